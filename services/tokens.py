"""Bearer tokens: creation, verification, revocation. Only SHA-256 hashes are stored; tokens
carry 256 random bits, so a fast hash is enough (no password stretching needed)."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from models.base import utcnow
from models.statements import first_where
from models.tokens import ApiToken
from services.errors import Unprocessable

TOKEN_PREFIX = "cws_"  # noqa: S105 (a public prefix, not a secret)
TOKEN_BYTES = 32
DISPLAY_PREFIX_CHARS = 12
# last_used_at is refreshed at most this often, so reads don't each cost a write.
LAST_USED_RESOLUTION = timedelta(minutes=1)
# Tokens verified recently, kept at most this many per process (then forgotten at once).
VERIFIED_TOKENS_MAX = 4096

ORG_SCOPES = (
    "sessions:read", "sessions:write", "analysis:run", "templates:read", "templates:write",
    "workflows:read", "workflows:write", "workflows:approve", "organizations:read",
    "usage:read", "billing:write", "voice:read", "voice:write",
)
ADMIN_SCOPE = "admin"
PLATFORM_SCOPE = "platform"
ALL_SCOPES = (*ORG_SCOPES, ADMIN_SCOPE)
PLATFORM_ACTOR = "platform"


@dataclass(frozen=True)
class Identity:
    """Who is calling: an organization token, or the platform (operator)."""

    actor: str  # token id, or "platform" for PLATFORM_ADMIN_TOKEN
    organization_id: str | None
    scopes: frozenset[str]

    @property
    def is_platform(self) -> bool:
        return self.organization_id is None

    def has_scope(self, scope: str) -> bool:
        if self.is_platform:
            # The operator reads any organization and its usage (counts, never patient data).
            return scope in (PLATFORM_SCOPE, "organizations:read", "usage:read")
        return scope in self.scopes or (ADMIN_SCOPE in self.scopes and scope in ORG_SCOPES)


class TokenError(Unprocessable):
    """The token cannot be made as asked (unknown scope, no scope)."""


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def create_token(organization_id: str | None, scopes: list[str], name: str = "",
                 expires_at: datetime | None = None) -> tuple[ApiToken, str]:
    """Create a token; returns the row and the token itself (shown once, never stored)."""
    unknown = [s for s in scopes if s not in ALL_SCOPES]
    if unknown:
        raise TokenError(f"unknown scope(s): {', '.join(unknown)}")
    if organization_id is not None and not scopes:
        raise TokenError("an organization token needs at least one scope")
    token = TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)
    row = ApiToken.create(
        organization=organization_id, name=name, token_hash=hash_token(token),
        display_prefix=token[:DISPLAY_PREFIX_CHARS],
        scopes=[PLATFORM_SCOPE] if organization_id is None else sorted(set(scopes)),
        expires_at=expires_at,
    )
    return row, token


def expiry_in_days(days: int | None) -> datetime | None:
    return utcnow() + timedelta(days=days) if days else None


def revoke_token(token_id: str) -> bool:
    """Revoke a token: refused at once by this process, within ``trust_for_s`` (the web
    server's TOKEN_TRUST_SECONDS) by processes that verified it just before."""
    revoked = bool(ApiToken.update(revoked_at=utcnow())
                   .where((ApiToken.id == token_id) & ApiToken.revoked_at.is_null()).execute())
    _verified.clear()
    return revoked


@dataclass(frozen=True)
class _Verified:
    identity: Identity
    expires_at: datetime | None
    verified_at: float  # time.monotonic()


# Token hash -> its identity as last read from the database (only valid tokens).
_verified: dict[str, _Verified] = {}


def authenticate(token: str, platform_token: str = "",
                 trust_for_s: float = 0.0) -> Identity | None:
    """The identity behind a presented token, or None if it is unknown, expired or revoked.

    With ``trust_for_s``, a token this process found valid less than that many seconds ago
    is taken again without reading its row (its expiry still checked): under load that is
    most requests, each of which would otherwise make a database round trip for the same
    answer. The price is that a revocation made elsewhere takes effect here within that
    window. Unknown and refused tokens are always looked up."""
    if not token:
        return None
    if platform_token and hmac.compare_digest(token.encode(), platform_token.encode()):
        return Identity(actor=PLATFORM_ACTOR, organization_id=None,
                        scopes=frozenset({PLATFORM_SCOPE}))
    if not token.startswith(TOKEN_PREFIX):
        return None
    digest = hash_token(token)
    if trust_for_s > 0:
        known = _verified.get(digest)
        if known is not None and time.monotonic() - known.verified_at < trust_for_s \
                and (known.expires_at is None or known.expires_at > utcnow()):
            return known.identity
    verified_at = time.monotonic()
    row = first_where(ApiToken, token_hash=digest)
    now = utcnow()
    if row is None or row.revoked_at is not None or (row.expires_at and row.expires_at <= now):
        _verified.pop(digest, None)
        return None
    if row.last_used_at is None or now - row.last_used_at >= LAST_USED_RESOLUTION:
        ApiToken.update(last_used_at=now).where(ApiToken.id == row.id).execute()
    identity = Identity(actor=row.id, organization_id=row.organization_id,
                        scopes=frozenset(row.scopes))
    if trust_for_s > 0:
        if len(_verified) >= VERIFIED_TOKENS_MAX:
            _verified.clear()
        _verified[digest] = _Verified(identity, row.expires_at, verified_at)
    return identity
