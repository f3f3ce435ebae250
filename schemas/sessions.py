"""Therapy session resource, its create/update bodies and list filters."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from models.sessions import ANALYSIS_STATUSES, SESSION_STATUSES, SESSION_TYPES
from schemas.common import (
    Identifier,
    InputSchema,
    NonBlank,
    RecordSchema,
    StrictSchema,
    UTCDateTime,
)

MIN_DURATION, MAX_DURATION, DEFAULT_DURATION = 1, 480, 50
MAX_LIST_ITEMS, MAX_ITEM_CHARS = 50, 2000
MIN_CO_PROVIDERS, MAX_CO_PROVIDERS = 1, 4
CO_THERAPY_PATH = "/api/co-therapy-sessions"


def _text_list() -> fields.List:
    return fields.List(NonBlank(MAX_ITEM_CHARS), validate=validate.Length(max=MAX_LIST_ITEMS))


class SessionFieldsMixin(StrictSchema):
    provider_id = Identifier()
    template_id = fields.String(allow_none=True, validate=validate.Length(max=64))
    session_date = UTCDateTime()
    duration_minutes = fields.Integer(
        strict=True, validate=validate.Range(min=MIN_DURATION, max=MAX_DURATION))
    chief_complaints = _text_list()
    session_goals = _text_list()


class SessionCreateSchema(SessionFieldsMixin):
    patient_id = Identifier(required=True)
    provider_id = Identifier(required=True)
    session_date = UTCDateTime(required=True)
    duration_minutes = fields.Integer(
        strict=True, load_default=DEFAULT_DURATION,
        validate=validate.Range(min=MIN_DURATION, max=MAX_DURATION))
    chief_complaints = fields.List(NonBlank(MAX_ITEM_CHARS), load_default=list,
                                   validate=validate.Length(max=MAX_LIST_ITEMS))
    session_goals = fields.List(NonBlank(MAX_ITEM_CHARS), load_default=list,
                                validate=validate.Length(max=MAX_LIST_ITEMS))
    status = fields.String(
        load_default="scheduled",
        validate=validate.OneOf(["scheduled"], error="A new session's status must be "
                                                     "'scheduled'."))

    @ma.pre_load
    def _point_co_therapy_elsewhere(self, data, **kwargs):
        if isinstance(data, dict) and "co_provider_ids" in data:
            raise ma.ValidationError(
                f"Sessions with co-therapists are created with POST {CO_THERAPY_PATH}.",
                field_name="co_provider_ids")
        return data


def _validate_co_providers(data: dict) -> None:
    co = data.get("co_provider_ids")
    if co is None:
        return
    if len(set(co)) != len(co):
        raise ma.ValidationError("Co-provider ids must be distinct.", "co_provider_ids")
    if data.get("provider_id") in co:
        raise ma.ValidationError("Co-providers must differ from provider_id.", "co_provider_ids")


class CoTherapySessionCreateSchema(SessionCreateSchema):
    co_provider_ids = fields.List(
        Identifier(), required=True,
        validate=validate.Length(min=MIN_CO_PROVIDERS, max=MAX_CO_PROVIDERS))

    @ma.pre_load
    def _point_co_therapy_elsewhere(self, data, **kwargs):
        return data

    @ma.validates_schema
    def _co_providers(self, data, **kwargs):
        _validate_co_providers(data)


class SessionUpdateSchema(SessionFieldsMixin):
    status = fields.String(validate=validate.OneOf(SESSION_STATUSES))
    co_provider_ids = fields.List(
        Identifier(), validate=validate.Length(min=MIN_CO_PROVIDERS, max=MAX_CO_PROVIDERS))


class SessionSchema(RecordSchema):
    id = fields.String(dump_only=True)
    organization_id = fields.String(dump_only=True)
    patient_id = fields.String()
    provider_id = fields.String()
    co_provider_ids = fields.List(fields.String())
    session_type = fields.String(metadata={"enum": list(SESSION_TYPES)})
    template_id = fields.String(allow_none=True)
    session_date = UTCDateTime()
    duration_minutes = fields.Integer()
    chief_complaints = fields.List(fields.String())
    session_goals = fields.List(fields.String())
    status = fields.String(metadata={"enum": list(SESSION_STATUSES)})
    analysis_status = fields.String(dump_only=True, metadata={
        "enum": list(ANALYSIS_STATUSES),
        "description": "State of the analysis queued when a live clinical session stopped."})
    analysis_error = fields.String(dump_only=True, allow_none=True)
    latest_analysis_id = fields.String(dump_only=True, allow_none=True, metadata={
        "description": "The newest analysis of the session, from any source; every one is "
                       "listed at GET /api/therapy-sessions/{id}/analyses."})
    active_clinical_session_id = fields.String(dump_only=True, allow_none=True, metadata={
        "description": "The live clinical session running now (null when none)."})
    created_at = UTCDateTime(dump_only=True)
    updated_at = UTCDateTime(dump_only=True)


class SessionQuerySchema(InputSchema):
    patient_id = Identifier()
    provider_id = Identifier()
    status = fields.String(validate=validate.OneOf(SESSION_STATUSES))
    from_ = UTCDateTime(data_key="from", metadata={"description": "session_date ≥ this"})
    to = UTCDateTime(metadata={"description": "session_date < this"})

    @ma.validates_schema
    def _window(self, data, **kwargs):
        if data.get("from_") and data.get("to") and data["to"] <= data["from_"]:
            raise ma.ValidationError("'to' must be later than 'from'.", "to")
