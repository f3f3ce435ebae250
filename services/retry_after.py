"""A peer's `Retry-After` (RFC 9110 §10.2.3): the wait it asks for, read the same way for every
peer the service calls (clinic webhooks, FHIR servers, the model server, the card processor)."""

from __future__ import annotations

import email.utils
from datetime import UTC, datetime

# The longest wait a peer may ask for: past it, the service tries again anyway.
MAX_RETRY_AFTER_S = 24 * 3600


def parse_retry_after(value: str | None) -> float | None:
    """Seconds to wait: the header's whole seconds, or the time until its HTTP date (0 when
    past); None when it is absent or neither."""
    if not value:
        return None
    value = value.strip()
    if value.isascii() and value.isdigit():  # not "²", which float() refuses
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - datetime.now(UTC)).total_seconds(), 0.0)
