"""Post-visit analysis request and response."""

from __future__ import annotations

from collections.abc import Mapping

import marshmallow as ma
from marshmallow import fields, validate

from models.analyses import ANALYSIS_SOURCES
from schemas.common import InputSchema, NonBlank, RecordSchema, StrictSchema, UTCDateTime
from services.analysis.shape import PRIORITIES, RISK_LEVELS
from services.limits import MAX_TRANSCRIPT_CHARS


class AnalyzeSessionSchema(StrictSchema):
    session_transcript = NonBlank(MAX_TRANSCRIPT_CHARS, min_length=1, required=True)
    vital_signs = fields.Dict(keys=fields.String(), load_default=dict)
    clinical_context = fields.Dict(keys=fields.String(), load_default=dict, metadata={
        "description": "`session_id` links the analysis to a therapy session; `template_id` "
                       "makes the summary follow that template's sections."})
    ai_metadata = fields.Dict(keys=fields.String(), load_default=dict)

    @ma.validates("clinical_context")
    def _context_ids(self, value: dict, **kwargs) -> None:
        for key in ("session_id", "template_id"):
            if key in value and not isinstance(value[key], str):
                raise ma.ValidationError(f"{key} must be a string.")


class AnalysisSourceQuerySchema(InputSchema):
    source = fields.String(validate=validate.OneOf(ANALYSIS_SOURCES), metadata={
        "description": "`clinical_session`: made when a live clinical session stopped; "
                       "`api`: made by POST /api/therapy/analyze-session; `workflow`: made by "
                       "an agent workflow's `analyze_session` node."})


class TaskSchema(ma.Schema):
    id = fields.Integer()
    title = fields.String()
    description = fields.String()
    assignee = fields.String()
    icon = fields.String()
    priority = fields.String(metadata={"enum": list(PRIORITIES)})
    estimatedTime = fields.String()


class VisitSummarySchema(ma.Schema):
    topicsDiscussed = fields.List(fields.String())
    keyFindings = fields.List(fields.String())
    decisionsMade = fields.List(fields.String())
    nextSteps = fields.List(fields.String())


class RiskAssessmentSchema(ma.Schema):
    level = fields.String(metadata={"enum": list(RISK_LEVELS)})
    summary = fields.String()
    factors = fields.List(fields.String())


class AnalysisSchema(RecordSchema):
    """The SPEC's response: a stored analysis's shape plus its id, provider and model."""

    success = fields.Boolean()
    aiTasks = fields.List(fields.Nested(TaskSchema))
    visitSummary = fields.Nested(VisitSummarySchema)
    differentialDiagnoses = fields.List(fields.String())
    riskAssessment = fields.Nested(RiskAssessmentSchema)
    clinicalFindings = fields.List(fields.String())
    treatmentPlan = fields.List(fields.String())
    recommendations = fields.List(fields.String())
    analysis_id = fields.String()
    provider = fields.String(metadata={"enum": ["openai", "rules"]})
    model = fields.String()
    session_id = fields.String(allow_none=True)
    source = fields.String(metadata={"enum": list(ANALYSIS_SOURCES)})
    created_at = UTCDateTime()

    @ma.pre_dump
    def _flatten(self, analysis, **kwargs):
        if isinstance(analysis, Mapping):
            return analysis
        return {"success": True, **analysis.result, "analysis_id": analysis.id,
                "provider": analysis.provider, "model": analysis.model,
                "session_id": analysis.session_id, "source": analysis.source,
                "created_at": analysis.created_at}
