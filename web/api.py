"""The flask-smorest Api, its OpenAPI settings, and the one error shape for every status."""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping

import marshmallow as ma
import redis
from flask import Flask, send_from_directory
from flask_smorest import Api, Page
from flask_smorest.error_handler import ErrorSchema as BaseErrorSchema
from flask_smorest.pagination import PaginationMetadataSchema, PaginationParameters
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from schemas.common import nested_errors
from services import audit as audit_trail
from services.errors import (
    Conflict,
    DomainError,
    NotFound,
    TooManyRequests,
    Unprocessable,
    UpstreamFailure,
)
from web.apidoc import OperationDocs
from web.auth import audit_entry

logger = logging.getLogger(__name__)

API_TITLE = "Clinical Workflow Service"
API_VERSION = "1.0.0"
BEARER_SCHEME = "bearerAuth"
PUBLIC = []  # `@blp.doc(security=PUBLIC)` marks an operation that needs no token

_DOMAIN_STATUS = ((NotFound, 404), (Conflict, 409), (Unprocessable, 422),
                  (TooManyRequests, 429))


def _field_errors(messages, path: str = "") -> list[str]:
    """`field: why` for every failing field of one location's webargs messages."""
    if isinstance(messages, dict):
        return [line for key, value in messages.items()
                for line in _field_errors(value, path if key == "_schema"
                                          else f"{path}.{key}" if path else str(key))]
    if isinstance(messages, list | tuple):
        return [line for message in messages for line in _field_errors(message, path)]
    return [f"{path}: {messages}" if path else str(messages)]


def _validation_summary(errors) -> str:
    """The failing fields in one line, so that the message alone tells what to fix."""
    if not isinstance(errors, dict):
        return ""
    return "; ".join(line for messages in errors.values() for line in _field_errors(messages))


class ErrorSchema(BaseErrorSchema):
    """flask-smorest's error shape; some errors add a field that says more, documented here
    (the document's only use of this schema: the payload is sent as built)."""

    success = ma.fields.Boolean(metadata={
        "description": "`false` on an analysis that failed (502/504)."})
    riskAssessment = ma.fields.Dict(metadata={
        "description": "The safety floor's reading of a transcript whose analysis failed "
                       "(502/504, or a live session's failed analysis): level and factors."})
    analysis_status = ma.fields.String(metadata={
        "description": "On a 404 for a session's analysis: where it stands "
                       "(queued, running, retrying, failed, skipped…)."})
    processor_code = ma.fields.String(allow_none=True, metadata={
        "description": "The card processor's own error code (422/502 from billing)."})
    quota = ma.fields.String(metadata={"description": "On a 429 for a spent quota: which."})
    limit = ma.fields.Integer(metadata={"description": "That quota's limit this period."})
    used = ma.fields.Integer(metadata={"description": "What was used of it this period."})

    class Meta:
        unknown = ma.INCLUDE


class ServiceApi(Api):
    """Api whose error payload always carries `code`, `status` and `message`."""

    ERROR_SCHEMA = ErrorSchema

    def handle_http_exception(self, error: HTTPException):
        payload, code, headers = super().handle_http_exception(error)
        errors = payload.get("errors")
        if isinstance(errors, dict):
            # webargs reports a body it cannot parse as `{"json": ["Invalid JSON body."]}`:
            # a list where every other error has an object of fields. marshmallow's key for an
            # error of the whole object is `_schema`.
            payload["errors"] = {location: {"_schema": messages}
                                 if isinstance(messages, list) else messages
                                 for location, messages in errors.items()}
        payload.setdefault("message", _validation_summary(payload.get("errors"))
                           or error.description or error.name)
        retry_after = getattr(error, "retry_after", None)
        if retry_after is not None:
            headers = {**headers, "Retry-After": str(retry_after)}
        if isinstance(error, MethodNotAllowed) and error.valid_methods:
            headers = {**headers, "Allow": ", ".join(sorted(error.valid_methods))}
        return payload, code, headers

    def _register_pagination_header(self):
        # The header carries a JSON document, so it is described as JSON content: a plain
        # `schema` would tell clients to expect OpenAPI's comma-separated "simple" style.
        self.spec.components.header("PAGINATION", {
            "description": "Pagination metadata, a JSON object",
            "content": {"application/json": {"schema": PaginationMetadataSchema}},
        }, lazy=True)


# Pages starting beyond this item are not asked for with their count in one statement: the
# database's OFFSET overflows for a huge `page`.
MAX_COUNTED_OFFSET = 2**31 - 1


def page_items(query, params: PaginationParameters,
               audit: tuple[str, str] | None = None) -> list:
    """One page of a Peewee query; sets the item count for `X-Pagination`. A page past the
    end is empty without asking the database, whose OFFSET would overflow for a huge `page`.
    `audit` (action, resource type) writes the page's audit row naming every record it
    returns, in the page's own statement where the query can (`RowsWhere` on PostgreSQL)."""
    entry = audit_entry(*audit) if audit else None
    if params.item_count is None and hasattr(query, "page_and_count") and \
            params.first_item < MAX_COUNTED_OFFSET:
        items, count = query.page_and_count(params.page, params.page_size, audit=entry)
        if count is not None:
            params.item_count = count
            return items
    if params.item_count is None:
        params.item_count = query.count()
    if params.first_item >= params.item_count:
        return []
    items = list(query.paginate(params.page, params.page_size))
    if entry is not None:
        audit_trail.record_list(entry, [_record_id(item) for item in items])
    return items


def _record_id(item) -> str:
    """A listed record's id, whether the list reads instances or mappings
    (`RowsWhere(mappings=True)`)."""
    return item["id"] if isinstance(item, Mapping) else item.id


class ListPage(Page):
    """Pagination over a Peewee query."""

    @property
    def items(self):
        return page_items(self.collection, self.page_params)

    @property
    def item_count(self):
        return self.collection.count()


def _domain_error_payload(error: DomainError, code: int) -> tuple[dict, int]:
    from werkzeug.http import HTTP_STATUS_CODES

    payload = {"code": code, "status": HTTP_STATUS_CODES[code], "message": error.message}
    if error.field:
        # A dotted field ("clinical_context.session_id") nests as the body does.
        payload["errors"] = {error.location: nested_errors({error.field: [error.message]})}
    payload.update(error.extra)
    return payload, code


def _upstream_failure(error: UpstreamFailure):
    """A peer's failure; the wait it asked for (its Retry-After) is passed on to the client."""
    payload, code = _domain_error_payload(error, error.status)
    if error.retry_after_s:
        return payload, code, {"Retry-After": str(math.ceil(error.retry_after_s))}
    return payload, code


SWAGGER_ASSETS_PATH = "/api/docs/assets/"


def _serve_swagger_assets(app: Flask) -> None:
    """The docs page's scripts and styles come from the installed swagger-ui-bundle, so the
    page works on a clinic server with no Internet access."""
    from swagger_ui_bundle import swagger_ui_path

    @app.route(f"{SWAGGER_ASSETS_PATH}<path:filename>")
    def swagger_assets(filename: str):
        return send_from_directory(swagger_ui_path, filename)


def init_app(app: Flask) -> ServiceApi:
    """A new Api for this app (one per app: each holds its own OpenAPI document)."""
    app.config.update(
        API_TITLE=API_TITLE,
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs",
        OPENAPI_SWAGGER_UI_URL=SWAGGER_ASSETS_PATH,
        API_SPEC_OPTIONS={
            "security": [{BEARER_SCHEME: []}],
            "components": {"securitySchemes": {BEARER_SCHEME: {
                "type": "http", "scheme": "bearer",
                "description": "An API token (`cws_…`) created with `flask tokens create`."}}},
            "info": {"description": "Backend for therapy and behavioural-health clinics: "
                                    "sessions, note templates and post-visit analysis."},
        },
    )
    api = ServiceApi(app, spec_kwargs={"extra_plugins": [OperationDocs()]})
    _serve_swagger_assets(app)
    for error_class, code in _DOMAIN_STATUS:
        app.register_error_handler(
            error_class, lambda e, code=code: _domain_error_payload(e, code))
    app.register_error_handler(UpstreamFailure, _upstream_failure)
    for redis_error in (redis.exceptions.ConnectionError, redis.exceptions.TimeoutError):
        app.register_error_handler(redis_error, _queue_unavailable)
    return api


def _queue_unavailable(error: Exception):
    # What reads Redis itself (the queue statistics) while it is down or silent; writes do
    # not get here: their jobs are stored in the database and pushed once Redis is back.
    logger.warning("redis error: %s", type(error).__name__)
    body = {"code": 503, "status": "Service Unavailable",
            "message": "The job queue (Redis) is unavailable; try again shortly."}
    return body, 503, {"Retry-After": "1"}
