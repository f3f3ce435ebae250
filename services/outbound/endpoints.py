"""An organization's webhook endpoints: where events go and the secret that signs them."""

from __future__ import annotations

from datetime import datetime, timedelta

from flask import current_app
from peewee import IntegrityError

from models.base import db, is_postgres, utcnow
from models.outbound import WebhookEndpoint
from services.errors import Unprocessable
from services.outbound.addresses import AddressRefused, check_destination, check_url_syntax
from services.outbound.signing import new_secret

# After a rotation the previous key keeps signing beside the new one for this long.
ROTATION_OVERLAP = timedelta(hours=24)
# Bounds the webhook-signature header when a secret is rotated again and again within a day.
MAX_SIGNING_KEYS = 10


def check_webhook_url(url: str, field: str = "webhook_url", what: str = "webhook URL") -> str:
    """Refuse, when it is saved, a URL this service would not call (syntax and SSRF guard);
    also for the other URLs it calls out to (a FHIR server's)."""
    check_url_syntax(url, field)
    try:
        check_destination(url, bool(current_app.config.get("ALLOW_PRIVATE_WEBHOOK_URLS")))
    except AddressRefused as exc:
        raise Unprocessable(f"The {what} is refused: {exc}.", field=field) from exc
    return url


def ensure_endpoint(organization_id: str, url: str) -> WebhookEndpoint:
    """The organization's endpoint for `url`, created (with a new secret) when missing."""
    check_webhook_url(url)
    existing = WebhookEndpoint.get_or_none((WebhookEndpoint.organization == organization_id)
                                           & (WebhookEndpoint.url == url))
    if existing is not None:
        return existing
    try:
        with db.atomic():
            return WebhookEndpoint.create(organization=organization_id, url=url,
                                          secret=new_secret())
    except IntegrityError:  # created concurrently by another request
        return WebhookEndpoint.get((WebhookEndpoint.organization == organization_id)
                                   & (WebhookEndpoint.url == url))


def default_endpoint(organization_id: str) -> WebhookEndpoint | None:
    """The organization's oldest enabled endpoint."""
    return (WebhookEndpoint.select()
            .where((WebhookEndpoint.organization == organization_id)
                   & WebhookEndpoint.disabled_at.is_null())
            .order_by(WebhookEndpoint.created_at, WebhookEndpoint.id).first())


def remove_endpoint(endpoint_id: str) -> None:
    WebhookEndpoint.delete().where(WebhookEndpoint.id == endpoint_id).execute()


def _unexpired(endpoint: WebhookEndpoint, now: datetime) -> list[list[str]]:
    return [[key, expires] for key, expires in endpoint.previous_secrets or []
            if datetime.fromisoformat(expires) > now]


def rotate_secret(endpoint: WebhookEndpoint) -> WebhookEndpoint:
    """A new secret; each key rotated out keeps signing for ROTATION_OVERLAP, so receivers can
    switch, however many rotations that overlap holds (at most MAX_SIGNING_KEYS keys sign)."""
    with db.atomic():
        query = WebhookEndpoint.select().where(WebhookEndpoint.id == endpoint.id)
        # Two rotations at once must not both read the same list (SQLite's BEGIN IMMEDIATE
        # already holds the write lock).
        endpoint = (query.for_update() if is_postgres() else query).get()
        now = utcnow()
        endpoint.previous_secrets = [[endpoint.secret, (now + ROTATION_OVERLAP).isoformat()],
                                     *_unexpired(endpoint, now)][:MAX_SIGNING_KEYS - 1]
        endpoint.secret = new_secret()
        endpoint.save()
    return endpoint


def signing_secrets(endpoint: WebhookEndpoint) -> list[str]:
    """The keys that sign now: the current one, then those rotated out that still overlap."""
    return [endpoint.secret, *(key for key, _ in _unexpired(endpoint, utcnow()))]


def disable(endpoint_id: str, reason: str) -> None:
    (WebhookEndpoint.update(disabled_at=utcnow(), disabled_reason=reason)
     .where((WebhookEndpoint.id == endpoint_id) & WebhookEndpoint.disabled_at.is_null())
     .execute())


def enable(endpoint: WebhookEndpoint) -> None:
    WebhookEndpoint.update(disabled_at=None, disabled_reason=None).where(
        WebhookEndpoint.id == endpoint.id).execute()
