"""Field types and small schemas shared by every domain."""

from __future__ import annotations

from datetime import UTC, datetime

import marshmallow as ma
from marshmallow import fields, validate

MAX_ID_LENGTH = 128


class UTCDateTime(fields.AwareDateTime):
    """ISO 8601 with a zone on input (naive values are refused), `…Z` in UTC on output."""

    default_error_messages = {
        "invalid_awareness": "Timestamps must carry a time zone (e.g. 2026-01-31T14:00:00Z).",
    }

    def __init__(self, **kwargs):
        super().__init__(format="iso", **kwargs)

    def _serialize(self, value: datetime | None, attr, obj, **kwargs):
        if value is None:
            return None
        return value.astimezone(UTC).isoformat().replace("+00:00", "Z")

    def _deserialize(self, value, attr, data, **kwargs) -> datetime:
        aware = super()._deserialize(value, attr, data, **kwargs)
        try:
            return aware.astimezone(UTC)
        except OverflowError as exc:  # e.g. 0001-01-01T00:00:00+01:00 has no UTC year
            raise self.make_error("invalid", input=value, obj_type=self.OBJ_TYPE) from exc


def no_nul(value: str) -> None:
    """PostgreSQL text cannot hold NUL, and no field has a use for it: a field error, not a 500."""
    if "\x00" in value:
        raise ma.ValidationError("Must not contain NUL characters.")


def NonBlank(max_length: int, **kwargs) -> fields.String:
    """A string with at least one non-space character and at most `max_length` characters."""
    return fields.String(validate=[
        validate.Length(max=max_length),
        validate.Regexp(r"\S", error="Must not be empty."),
        no_nul,
    ], **kwargs)


def Identifier(**kwargs) -> fields.String:
    return fields.String(validate=[validate.Length(min=1, max=MAX_ID_LENGTH),
                                   validate.Regexp(r"\S", error="Must not be empty."), no_nul],
                         **kwargs)


class StrictSchema(ma.Schema):
    """Unknown fields are an error (marshmallow's RAISE, stated for the reader)."""

    class Meta:
        unknown = ma.RAISE
