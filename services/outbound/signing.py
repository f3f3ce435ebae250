"""Signatures of outbound webhooks and of inbound voice-platform messages.

Outbound, every request carries two independent signatures over the same body bytes:

* `Service-Signature: sha256=<hex>` — HMAC-SHA256 of the raw body, keyed with the endpoint's
  secret string exactly as shown to the clinic (`whsec_…`, UTF-8), the GitHub/Stripe habit.
* Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`): `v1,<base64>`
  HMAC-SHA256 of `"{id}.{timestamp}.{body}"` keyed with the base64-decoded part of the secret,
  as that specification (and its reference library) defines it. The timestamp is fresh on
  every attempt, so a receiver can refuse replays; during a rotation the old key signs too.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Iterable
from datetime import datetime

from standardwebhooks import Webhook

SECRET_PREFIX = "whsec_"  # noqa: S105  (a format prefix, not a secret)
SECRET_BYTES = 24
SIGNATURE_PREFIX = "sha256="


def new_secret() -> str:
    """A Standard Webhooks secret: `whsec_` and the base64 of 24 random bytes."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def body_signature(secret: str, body: bytes) -> str:
    """`sha256=<lowercase hex HMAC-SHA256 of body>` keyed with the secret string."""
    return SIGNATURE_PREFIX + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def standard_headers(event_id: str, body: bytes, secrets_: Iterable[str],
                     at: datetime) -> dict[str, str]:
    """The Standard Webhooks headers, one `v1,` signature per key (new key first)."""
    text = body.decode()
    signatures = [Webhook(secret).sign(event_id, at, text) for secret in secrets_]
    return {"webhook-id": event_id, "webhook-timestamp": str(int(at.timestamp())),
            "webhook-signature": " ".join(signatures)}


def hex_hmac(secret: str, payload: bytes) -> str:
    return hmac.new(secret.encode(), payload, hashlib.sha256).hexdigest()


def matches(expected_hex: str, presented: str) -> bool:
    """Constant-time comparison of a presented hex signature (`sha256=` prefix allowed)."""
    value = presented.strip()
    if value.lower().startswith(SIGNATURE_PREFIX):
        value = value[len(SIGNATURE_PREFIX):]
    return hmac.compare_digest(expected_hex.encode(), value.lower().encode("ascii", "replace"))
