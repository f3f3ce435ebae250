"""Live clinical session bodies and resources."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from schemas.common import Identifier, NonBlank, StrictSchema, UTCDateTime
from services.limits import MAX_TRANSCRIPT_CHARS

SPEAKERS = ("clinician", "patient")


class ClinicalStartSchema(StrictSchema):
    session_id = Identifier(required=True)


class TranscriptChunkInSchema(StrictSchema):
    speaker = fields.String(required=True, validate=validate.OneOf(SPEAKERS))
    text = NonBlank(MAX_TRANSCRIPT_CHARS, min_length=1, required=True)


class ClinicalSessionSchema(ma.Schema):
    clinical_session_id = fields.String(attribute="id")
    session_id = fields.String()
    status = fields.String(metadata={"enum": ["active", "stopped"]})
    started_at = UTCDateTime()
    stopped_at = UTCDateTime(allow_none=True)
    chunk_count = fields.Integer()
    analysis_job_id = fields.String(allow_none=True)
    analysis_status = fields.Method("_analysis_status")

    def _analysis_status(self, obj) -> str:
        return obj.session.analysis_status


class TranscriptChunkSchema(ma.Schema):
    clinical_session_id = fields.String()
    seq = fields.Integer()
    speaker = fields.String()
    text = fields.String()
    at = UTCDateTime()


class TranscriptSchema(ma.Schema):
    clinical_session_id = fields.String()
    entries = fields.List(fields.Nested(TranscriptChunkSchema))
