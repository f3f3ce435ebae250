"""Authenticity of the voice platform's server messages.

The signature is checked on the raw body bytes, before anything parses them, in constant
time: `hex(HMAC-SHA256(secret, body))`, or of `"{timestamp}.{body}"` when the request carries
a timestamp header, which must then be within five minutes of now (replays are refused).
"""

from __future__ import annotations

import time

from services.outbound.signing import hex_hmac, matches

MAX_SKEW_S = 300
EPOCH_MS_THRESHOLD = 10**11  # above this a timestamp is in milliseconds


class SignatureInvalid(Exception):
    """The message is not from the platform (or was altered, or is replayed)."""


def verify(secret: str, body: bytes, signature: str | None, timestamp: str | None,
           now: float | None = None) -> None:
    if not signature or not signature.strip():
        raise SignatureInvalid("the signature header is missing")
    if timestamp is not None:
        if not timestamp.strip().isdigit():
            raise SignatureInvalid("the timestamp header is malformed")
        moment = float(timestamp.strip())
        if moment > EPOCH_MS_THRESHOLD:
            moment /= 1000
        if abs((now if now is not None else time.time()) - moment) > MAX_SKEW_S:
            raise SignatureInvalid("the timestamp is more than five minutes off")
        payload = timestamp.strip().encode() + b"." + body
    else:
        payload = body
    if not matches(hex_hmac(secret, payload), signature):
        raise SignatureInvalid("the signature does not match")
