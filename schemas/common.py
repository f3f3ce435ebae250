"""Field types and small schemas shared by every domain."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import marshmallow as ma
import orjson
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
        if value.tzinfo is not UTC:
            value = value.astimezone(UTC)
        if value.__class__ is datetime:
            # orjson writes what isoformat() would, `Z` for UTC, in a third of the time: a
            # list's timestamps were 40 % of its dump.
            return orjson.dumps(value, option=orjson.OPT_UTC_Z)[1:-1].decode()
        return value.isoformat().replace("+00:00", "Z")

    def _deserialize(self, value, attr, data, **kwargs) -> datetime:
        aware = super()._deserialize(value, attr, data, **kwargs)
        try:
            return aware.astimezone(UTC)
        except OverflowError as exc:  # e.g. 0001-01-01T00:00:00+01:00 has no UTC year
            raise self.make_error("invalid", input=value, obj_type=self.OBJ_TYPE) from exc


class HasText(validate.Validator):
    """At least one non-space character anywhere (leading white space is fine)."""

    error = "Must not be empty."

    def __call__(self, value: str) -> str:
        if not value.strip():
            raise ma.ValidationError(self.error)
        return value


class WholeMatch(validate.Regexp):
    """`validate.Regexp` whose pattern must match the whole value. Python's `$` also matches
    before a final newline, so "slug\\n" passed `^[a-z0-9-]+$`; the pattern stays as written
    for the OpenAPI document (JSON Schema has no `\\Z`)."""

    def __call__(self, value: str) -> str:
        if self.regex.fullmatch(value) is None:
            raise ma.ValidationError(self._format_error(value))
        return value


class JSONBoolean(fields.Boolean):
    """`true` or `false` only: marshmallow's Boolean also takes 0, 1, "yes", "off"…, which
    the OpenAPI document (type boolean) does not admit."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


# HasText in the OpenAPI document: JSON Schema patterns are unanchored searches, so this says
# "contains a character that is neither white space nor NUL" and no NUL anywhere.
HAS_TEXT_PATTERN = "^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$"


def NonBlank(max_length: int, min_length: int | None = None, **kwargs) -> fields.String:
    """A string with at least one non-space character and at most `max_length` characters."""
    metadata = {"pattern": HAS_TEXT_PATTERN, **kwargs.pop("metadata", {})}
    return fields.String(validate=[validate.Length(min=min_length, max=max_length), HasText()],
                         metadata=metadata, **kwargs)


def Identifier(**kwargs) -> fields.String:
    return NonBlank(MAX_ID_LENGTH, min_length=1, **kwargs)


NUL_MESSAGE = "Must not contain NUL characters."


def nested_errors(flat: Mapping[str, list[str]] | Sequence[tuple[Sequence[str], list[str]]]
                  ) -> dict[str, Any]:
    """Errors found by a check of our own, keyed by path (`"voice.webhook_url"`, or a
    sequence of keys), in the shape marshmallow gives a nested field's errors:
    `{"voice": {"webhook_url": [why]}}`, so that one body's errors nest one way. Where an
    object has errors of its own besides its fields', they are under `_schema`, as
    marshmallow puts them."""
    pairs = [(path.split("."), why) for path, why in flat.items()] \
        if isinstance(flat, Mapping) else flat
    nested: dict[str, Any] = {}
    for path, messages in pairs:
        node = nested
        for key in path[:-1]:
            child = node.get(key)
            if isinstance(child, list):
                child = {"_schema": child}
            node[key] = node = child if isinstance(child, dict) else {}
        leaf = path[-1] if path else "_schema"
        if isinstance(node.get(leaf), dict):
            node[leaf].setdefault("_schema", []).extend(messages)
        else:
            node.setdefault(leaf, []).extend(messages)
    return nested


def _has_nul(value: object) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, Mapping):
        return any(_has_nul(k) or _has_nul(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_has_nul(item) for item in value)
    return False


class InputSchema(ma.Schema):
    """Base of every request schema (bodies and query strings).

    Text containing NUL is refused in any field, however deeply nested: PostgreSQL text cannot
    hold it and no field has a use for it, so it is a field error rather than a 500."""

    @ma.pre_load
    def _refuse_nul(self, data, **kwargs):
        if isinstance(data, Mapping):
            bad = [key for key, value in data.items() if _has_nul(value)]
            if bad:
                raise ma.ValidationError({key: [NUL_MESSAGE] for key in bad})
        return data


class StrictSchema(InputSchema):
    """Unknown fields are an error (marshmallow's RAISE, stated for the reader)."""

    class Meta:
        unknown = ma.RAISE


def _plain(field: fields.Field, name: str) -> bool:
    """A field whose value is its object's attribute as it is: no default, no dotted path,
    no reading or serializing of its own."""
    kind = type(field)
    return field._CHECK_ATTRIBUTE and field.dump_default is ma.missing \
        and "." not in (field.attribute or name) \
        and kind.get_value is fields.Field.get_value and kind.serialize is fields.Field.serialize


class RecordSchema(ma.Schema):
    """Base of response schemas for stored records, dumped many at a time by lists.

    marshmallow reads each value through `Field.serialize`, the schema's accessor and a generic
    lookup that tries `obj[key]` first; for a page of records that is most of the dump. Here a
    plain field (a top-level attribute, no dump default) is read with one `getattr` (or `get`
    for a mapping) and formatted by the field itself; any other field goes through marshmallow
    as usual. The output is the same: an attribute the object lacks is left out."""

    def _serialize(self, obj: object, *, many: bool = False):
        if many and obj is not None:
            return [self._serialize(item) for item in obj]
        plan = self.__dict__.get("_dump_plan")
        if plan is None:
            plan = self._dump_plan = tuple(
                (field.data_key or name, field.attribute or name, field, _plain(field, name))
                for name, field in self.dump_fields.items())
        getter = obj.get if isinstance(obj, Mapping) else \
            (lambda attr, default: getattr(obj, attr, default))
        ret = self.dict_class()
        for key, attr, field, plain in plan:
            if plain:
                value = getter(attr, ma.missing)
                if value is ma.missing:
                    continue
                ret[key] = field._serialize(value, attr, obj)
            else:
                value = field.serialize(attr, obj, accessor=self.get_attribute)
                if value is not ma.missing:
                    ret[key] = value
        return ret
