"""Domain errors. Services raise these; the web layer turns them into the SPEC's error shape,
so no service knows about HTTP."""

from __future__ import annotations


class DomainError(Exception):
    def __init__(self, message: str, field: str | None = None,
                 extra: dict | None = None, location: str = "json") -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.location = location  # where the field is: "json" (the body) or "query"
        self.extra = extra or {}


class NotFound(DomainError):
    """The record does not exist for this organization (also: belongs to another one)."""


class Conflict(DomainError):
    """The request is valid but clashes with the record's current state."""


class Unprocessable(DomainError):
    """A field's value is well-formed but refers to something unusable."""


class UpstreamFailure(DomainError):
    """A service we depend on failed; `status` is 502, 503 or 504."""

    def __init__(self, message: str, status: int = 502, extra: dict | None = None,
                 retry_after_s: float | None = None) -> None:
        super().__init__(message, extra=extra)
        self.status = status
        # The wait the service asked for (its Retry-After): a job's next attempt waits as long.
        self.retry_after_s = retry_after_s


class TooManyRequests(DomainError):
    """A limit of the organization (a quota) is used up."""
