"""Bearer-token authentication, scopes and the caller's identity for tenancy and audit."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from flask import current_app, g, request
from flask_smorest import abort

from models.audit import AuditEntry
from services import audit
from services.tokens import Identity, authenticate, hash_token
from web.apidoc import AUTHENTICATED_ANSWERS, document

CHALLENGE = {"WWW-Authenticate": 'Bearer error="invalid_token"'}


def _bearer_token() -> str:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def identify() -> Identity | None:
    """The caller's identity (cached per request); None when the token is missing or invalid."""
    if "identity" not in g:
        config = current_app.config
        g.identity = authenticate(_bearer_token(), config["PLATFORM_ADMIN_TOKEN"],
                                  config["TOKEN_TRUST_SECONDS"])
    return g.identity


def require(*scopes: str, org: bool = True) -> Callable:
    """Decorator: a valid token holding every scope; `org=True` also needs an organization
    token (the platform token never reads a clinic's patient data)."""

    def decorator(view: Callable) -> Callable:
        @wraps(view)
        def wrapper(*args: Any, **kwargs: Any):
            identity = identify()
            if identity is None:
                abort(401, message="A valid bearer token is required.", headers=CHALLENGE)
            if org and identity.is_platform:
                abort(403, message="This operation needs an organization token.")
            missing = [s for s in scopes if not identity.has_scope(s)]
            if missing:
                abort(403, message=f"The token lacks the scope(s): {', '.join(missing)}.")
            return view(*args, **kwargs)

        if scopes == ("platform",):
            needs = "The platform (operator) token."
        elif scopes:
            needs = (f"Scope: {', '.join(f'`{s}`' for s in scopes)} (`admin` holds every "
                     "scope of its organization).")
        else:
            needs = "Any valid token."
        if org:
            needs += " An organization's token: the platform token gets 403."
        document(wrapper, description=needs, responses=AUTHENTICATED_ANSWERS,
                 **{"x-scopes": list(scopes)})
        return wrapper

    return decorator


def current_identity() -> Identity:
    identity = identify()
    assert identity is not None, "current_identity() used outside @require"
    return identity


def current_org_id() -> str:
    org_id = current_identity().organization_id
    assert org_id is not None, "current_org_id() used on a platform-token operation"
    return org_id


def audit_context() -> audit.AuditContext:
    identity = current_identity()
    return audit.AuditContext(actor=identity.actor, organization_id=identity.organization_id,
                              ip=request.remote_addr, request_id=g.get("request_id"))


def audit_entry(action: str, resource_type: str) -> AuditEntry:
    """The audit row this request writes for each record it `action`s."""
    return audit.entry(audit_context(), action, resource_type)


def audit_access(action: str, resource_type: str, *resource_ids: str | None) -> None:
    audit.record(audit_context(), action, resource_type, resource_ids)


def rate_limit_key() -> str:
    """Per-token rate-limit key (the token hash prefix), falling back to the client address."""
    token = _bearer_token()
    if token:
        return "tok:" + hash_token(token)[:32]
    return "ip:" + (request.remote_addr or "unknown")
