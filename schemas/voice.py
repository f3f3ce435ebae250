"""Voice intake: deployments, call state, transcripts, intake summaries and webhook deliveries."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from schemas.common import NonBlank, RecordSchema, StrictSchema, UTCDateTime, WholeMatch
from services.voice.messages import PHONE_ERROR, PHONE_PATTERN, phone_number_error
from services.voice.screeners import SCREENERS


class _E164(WholeMatch):
    """The pattern (also in the OpenAPI document), then the digits counted: one error for a
    number that fails both (it was listed twice)."""

    def __call__(self, value: str) -> str:
        super().__call__(value)
        error = phone_number_error(value)
        if error:
            raise ma.ValidationError(error)
        return value


def phone_field(**kwargs) -> fields.String:
    return fields.String(validate=_E164(PHONE_PATTERN, error=PHONE_ERROR), **kwargs)


def _screeners(**kwargs) -> fields.List:
    return fields.List(fields.String(validate=validate.OneOf(list(SCREENERS))),
                       validate=validate.Length(max=len(SCREENERS)), **kwargs)


class DeploymentCreateSchema(StrictSchema):
    name = NonBlank(200, required=True)
    phone_number = phone_field(required=True)
    webhook_url = fields.String(allow_none=True, validate=validate.Length(max=2048))
    screeners = _screeners()


class DeploymentUpdateSchema(StrictSchema):
    name = NonBlank(200)
    phone_number = phone_field()
    webhook_url = fields.String(allow_none=True, validate=validate.Length(max=2048))
    screeners = _screeners()


class DeploymentSchema(RecordSchema):
    id = fields.String()
    name = fields.String()
    phone_number = fields.String()
    webhook_url = fields.String(allow_none=True)
    screeners = fields.List(fields.String())
    created_at = UTCDateTime()
    updated_at = UTCDateTime()


class DeploymentWithSecretSchema(DeploymentSchema):
    """Create and rotate answers only: the secret in full, once."""

    signing_secret = fields.String(allow_none=True)


class ScreenerStateSchema(ma.Schema):
    screener = fields.String()
    score = fields.Integer()
    severity = fields.String()
    completed_at = UTCDateTime()


class CallStateSchema(ma.Schema):
    call_id = fields.String()
    deployment_id = fields.String(allow_none=True)
    status = fields.String()
    started_at = UTCDateTime(allow_none=True)
    ended_at = UTCDateTime(allow_none=True)
    ended_reason = fields.String(allow_none=True)
    duration_ms = fields.Integer(allow_none=True)
    patient_phone = fields.String(allow_none=True)
    hung_at = UTCDateTime(allow_none=True)
    interruptions = fields.Integer()
    details = fields.Dict()
    screeners = fields.List(fields.Nested(ScreenerStateSchema))
    risk_band = fields.String(allow_none=True)
    escalation_id = fields.String(allow_none=True)
    summary_id = fields.String(allow_none=True)


class TranscriptEntrySchema(ma.Schema):
    seq = fields.Integer()
    role = fields.String()
    text = fields.String()
    at = UTCDateTime()


class CallTranscriptSchema(ma.Schema):
    call_id = fields.String()
    entries = fields.List(fields.Nested(TranscriptEntrySchema))


class IntakeSummarySchema(ma.Schema):
    id = fields.String()
    call_id = fields.Method("_call_id")
    created_at = UTCDateTime()
    updated_at = UTCDateTime()
    content = fields.Dict()

    def _call_id(self, obj) -> str:
        return obj.content.get("call_id")


class DeliveryAttemptSchema(ma.Schema):
    number = fields.Integer()
    at = UTCDateTime()
    status_code = fields.Integer(allow_none=True)
    error = fields.String(allow_none=True)
    duration_ms = fields.Integer()
    next_attempt_at = UTCDateTime(allow_none=True)


class DeliverySchema(RecordSchema):
    id = fields.String()
    event_id = fields.String(attribute="event.id")
    event = fields.String(attribute="event.event")
    status = fields.String(metadata={"enum": ["pending", "succeeded", "failed"]})
    attempts = fields.Integer()
    next_attempt_at = UTCDateTime(allow_none=True, metadata={
        "description": "When the next attempt is due; null once the delivery has succeeded or "
                       "failed for good. A delivery waiting behind an older one of the same "
                       "call goes when that one is done."})
    last_status_code = fields.Integer(allow_none=True)
    last_error = fields.String(allow_none=True)
    created_at = UTCDateTime()
    delivered_at = UTCDateTime(allow_none=True)
    attempt_log = fields.Method("_attempts")

    @ma.post_dump
    def _no_next_attempt_when_done(self, data: dict, **kwargs) -> dict:
        # The column keeps the last schedule; a finished delivery has no next attempt.
        if data.get("status") != "pending":
            data["next_attempt_at"] = None
        return data

    def _attempts(self, obj) -> list:
        from services.outbound.delivery import attempts_of

        return DeliveryAttemptSchema(many=True).dump(attempts_of(obj))
