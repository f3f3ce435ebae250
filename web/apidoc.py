"""What the OpenAPI document says beyond flask-smorest's own: each operation's id and scopes,
the answers every authenticated operation may give (401, 403, 429 with their headers), and
the `Idempotency-Key` of creating POSTs. Decorators of the service add it to their view as
`Blueprint.doc` does, so the document follows the code that enforces it."""

from __future__ import annotations

from collections.abc import Callable
from copy import deepcopy
from typing import Any

from apispec import BasePlugin
from flask_smorest.utils import deepupdate

ERROR_SCHEMA = {"$ref": "#/components/schemas/Error"}


def _error(description: str, headers: dict[str, Any] | None = None) -> dict[str, Any]:
    answer: dict[str, Any] = {"description": description,
                              "content": {"application/json": {"schema": ERROR_SCHEMA}}}
    if headers:
        answer["headers"] = headers
    return answer


RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait before trying again.",
                               "schema": {"type": "integer"}}}
AUTHENTICATED_ANSWERS = {
    "401": _error("No valid bearer token (missing, unknown, expired or revoked).", {
        "WWW-Authenticate": {"description": 'Bearer error="invalid_token"',
                             "schema": {"type": "string"}}}),
    "403": _error("The token lacks a scope this operation needs (see `x-scopes`), or is the "
                  "platform token on an organization's data."),
    "429": _error("Too many requests from this token or address, or a quota spent.", RETRY_AFTER),
}


def document(view: Callable, description: str | None = None, **doc: Any) -> None:
    """Add `doc` to the operation of `view` (a decorator's wrapper), as `Blueprint.doc` does;
    `parameters` are added to those already there, and `description` to the docstring's."""
    apidoc = deepcopy(getattr(view, "_apidoc", {}))
    manual = apidoc.get("manual_doc", {})
    parameters = [*manual.get("parameters", []), *doc.pop("parameters", [])]
    manual = deepupdate(deepcopy(manual), doc)
    if parameters:
        manual["parameters"] = parameters
    apidoc["manual_doc"] = manual
    view._apidoc = apidoc  # type: ignore[attr-defined]
    if description:
        # The docstring's first line is the summary, the rest the description.
        text = (view.__doc__ or "").rstrip()
        view.__doc__ = f"{text}\n\n{description}" if text else f"\n\n{description}"


SIGNED_ANSWERS = {
    "400": _error("A body that is not JSON, or not a server message."),
    "401": _error("The HMAC signature is missing, wrong, or its timestamp is over 5 minutes "
                  "off."),
    "503": _error("No VOICE_WEBHOOK_SECRET is configured."),
}
NOT_FOUND = _error("No such record for this organization (another organization's record "
                   "answers the same).")


class OperationDocs(BasePlugin):
    """What every operation's document gets from its route: an `operationId` (generated clients
    name their methods by it), the blueprint, the view and the method, e.g.
    `therapy_sessions_Sessions_post`; and, with an id in its path, the 404 a missing (or
    another organization's) id gets."""

    def operation_helper(self, path: str | None = None, operations: dict | None = None,
                         **kwargs: Any) -> None:
        rule = kwargs.get("rule")
        if rule is None or not operations:
            return
        for method, operation in operations.items():
            operation.setdefault("operationId",
                                 f"{rule.endpoint.replace('.', '_')}_{method.lower()}")
            if rule.arguments:
                operation.setdefault("responses", {}).setdefault("404", NOT_FOUND)
