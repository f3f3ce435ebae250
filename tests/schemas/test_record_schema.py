"""RecordSchema's dump is marshmallow's: the same keys, values and omissions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import marshmallow as ma
import pytest
from marshmallow import fields

from schemas.common import RecordSchema, UTCDateTime
from schemas.sessions import SessionSchema
from schemas.workflows import ExecutionSchema


def _as_plain_schema(schema_class: type[ma.Schema]) -> ma.Schema:
    """The same fields on marshmallow's own Schema (its generic dump path)."""
    declared = {name: field for name, field in schema_class._declared_fields.items()}
    return ma.Schema.from_dict(declared)()


class _FromSource(fields.String):
    def get_value(self, obj, attr, accessor=None, default=ma.missing):
        return super().get_value(obj, "source", accessor, default)


class _Mixed(RecordSchema):
    id = fields.String()
    renamed = fields.String(data_key="shownAs")
    elsewhere = fields.String(attribute="source")
    dotted = fields.String(attribute="inner.value")
    defaulted = fields.String(dump_default="none given")
    when = UTCDateTime(allow_none=True)
    tags = fields.List(fields.String())
    computed = fields.Function(lambda obj: "computed")
    read_its_own_way = _FromSource()


def _session(**overrides) -> SimpleNamespace:
    values = dict(
        id="ses_1", organization_id="org_1", patient_id="pat-1", provider_id="prov-1",
        co_provider_ids=[], session_type="individual", template_id=None,
        session_date=datetime(2026, 11, 20, 15, tzinfo=UTC), duration_minutes=50,
        chief_complaints=["sleep"], session_goals=[], status="scheduled",
        analysis_status="none", analysis_error=None, latest_analysis_id=None,
        active_clinical_session_id=None, created_at=datetime(2026, 11, 1, tzinfo=UTC),
        updated_at=datetime(2026, 11, 2, 8, 30, tzinfo=UTC))
    return SimpleNamespace(**{**values, **overrides})


@pytest.mark.parametrize("obj", [
    _session(),
    vars(_session(template_id="tpl_soap")),  # a mapping is read with get
    {"id": "ses_2", "status": "completed"},  # absent keys are left out, as marshmallow does
])
def test_a_session_dumps_as_marshmallow_dumps_it(obj):
    assert SessionSchema().dump(obj) == _as_plain_schema(SessionSchema).dump(obj)
    assert SessionSchema(many=True).dump([obj, obj]) == \
        _as_plain_schema(SessionSchema).dump([obj, obj], many=True)


def test_an_execution_dumps_as_marshmallow_dumps_it():
    obj = {"id": "exe_1", "status": "running", "created_at": datetime(2026, 1, 1, tzinfo=UTC)}
    assert ExecutionSchema().dump(obj) == _as_plain_schema(ExecutionSchema).dump(obj)


def test_data_keys_attributes_defaults_and_computed_fields_keep_their_meaning():
    obj = SimpleNamespace(id="x", renamed="r", source="s", inner=SimpleNamespace(value="v"),
                          when=None, tags=["a", "b"])
    dumped = _Mixed().dump(obj)
    assert dumped == _as_plain_schema(_Mixed).dump(obj)
    assert dumped == {"id": "x", "shownAs": "r", "elsewhere": "s", "dotted": "v",
                      "defaulted": "none given", "when": None, "tags": ["a", "b"],
                      "computed": "computed", "read_its_own_way": "s"}


class _Later(datetime):
    """A datetime subclass (orjson refuses those): formatted by isoformat as before."""


@pytest.mark.parametrize("value", [
    datetime(2026, 11, 20, 15, tzinfo=UTC),
    datetime(2026, 11, 20, 15, 4, 5, 7, tzinfo=UTC),
    datetime(1, 1, 1, tzinfo=UTC),
    datetime(999, 5, 5, 1, 2, 3, tzinfo=UTC),
    datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    datetime(2026, 3, 29, 1, 30, tzinfo=timezone(timedelta(hours=2))),
    datetime(2026, 3, 29, 1, 30, tzinfo=ZoneInfo("America/New_York")),
    datetime(2026, 3, 29, 1, 30, tzinfo=ZoneInfo("UTC")),
    _Later(2026, 3, 29, 1, 30, 0, 250, tzinfo=UTC),
])
def test_a_timestamp_is_written_in_utc_as_isoformat_writes_it_with_z(value):
    expected = value.astimezone(UTC).isoformat().replace("+00:00", "Z")
    assert UTCDateTime()._serialize(value, "when", None) == expected
    assert expected.endswith("Z")
