"""Agent workflows, executions (with their trace), approvals, EHR sync status, queue stats."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from models.workflows import APPROVAL_STATUSES, EXECUTION_STATUSES, SYNC_STATUSES, TRACE_EVENTS
from schemas.common import (
    Identifier,
    InputSchema,
    NonBlank,
    RecordSchema,
    StrictSchema,
    UTCDateTime,
    nested_errors,
)
from services.workflows.definition import definition_problems

MAX_NAME_CHARS, MAX_DESCRIPTION_CHARS, MAX_COMMENT_CHARS = 200, 2_000, 2_000
MAX_URL_CHARS = 500


class WorkflowCreateSchema(StrictSchema):
    name = NonBlank(MAX_NAME_CHARS, required=True)
    description = fields.String(load_default="", validate=validate.Length(
        max=MAX_DESCRIPTION_CHARS))
    definition = fields.Dict(required=True, metadata={
        "description": '{"start": node_id, "nodes": [{"id", "type", "config", "next"}]}'})
    fhir_base_url = fields.Url(schemes={"http", "https"}, require_tld=False, allow_none=True,
                               validate=validate.Length(max=MAX_URL_CHARS), metadata={
                                   "format": "uri",  # apispec writes "url", no OpenAPI format
                                   "description": "Overrides the organization's FHIR base URL."})

    @ma.validates_schema
    def _definition(self, data, **kwargs):
        if "definition" in data:
            problems = definition_problems(data["definition"])
            if problems:
                raise ma.ValidationError(nested_errors(problems))


class WorkflowSchema(RecordSchema):
    id = fields.String(dump_only=True)
    organization_id = fields.String(dump_only=True)
    name = fields.String()
    description = fields.String()
    definition = fields.Dict()
    fhir_base_url = fields.String(allow_none=True)
    created_at = UTCDateTime(dump_only=True)
    updated_at = UTCDateTime(dump_only=True)


class ExecutionCreateSchema(StrictSchema):
    input = fields.Dict(load_default=dict, metadata={
        "description": "The execution's input; `analyze_session` reads `input.transcript`."})


class ExecutionQuerySchema(InputSchema):
    status = fields.List(fields.String(validate=validate.OneOf(EXECUTION_STATUSES)),
                         metadata={"description": "One or more statuses (repeat the parameter "
                                                  "or separate with commas)."})
    workflow_id = Identifier()
    from_ = UTCDateTime(data_key="from", metadata={"description": "created_at ≥ this"})
    to = UTCDateTime(metadata={"description": "created_at < this"})

    @ma.pre_load
    def _split_statuses(self, data, **kwargs):
        if hasattr(data, "getlist") and "status" in data:
            statuses = [s for raw in data.getlist("status") for s in raw.split(",") if s]
            data = {**{k: data.get(k) for k in data}, "status": statuses}
        return data

    @ma.validates_schema
    def _window(self, data, **kwargs):
        if data.get("from_") and data.get("to") and data["to"] <= data["from_"]:
            raise ma.ValidationError("'to' must be later than 'from'.", "to")


class TraceEntrySchema(ma.Schema):
    seq = fields.Integer()
    node_id = fields.String(allow_none=True)
    node_type = fields.String(allow_none=True)
    event = fields.String(metadata={"enum": list(TRACE_EVENTS)})
    at = UTCDateTime()
    duration_ms = fields.Integer()
    error = fields.String(allow_none=True)
    state = fields.Dict(metadata={"description": "The state snapshot after this event."})


class ExecutionSchema(RecordSchema):
    id = fields.String(dump_only=True)
    workflow_id = fields.String(dump_only=True)
    status = fields.String(metadata={"enum": list(EXECUTION_STATUSES)})
    input = fields.Dict()
    state = fields.Dict()
    current_node = fields.String(allow_none=True)
    completed_nodes = fields.List(fields.String())
    error = fields.String(allow_none=True)
    created_at = UTCDateTime(dump_only=True)
    updated_at = UTCDateTime(dump_only=True)
    finished_at = UTCDateTime(dump_only=True, allow_none=True)


class ExecutionDetailSchema(ExecutionSchema):
    execution_trace = fields.List(fields.Nested(TraceEntrySchema))


class ApprovalSchema(ma.Schema):
    id = fields.String()
    execution_id = fields.String()
    node_id = fields.String()
    title = fields.String()
    status = fields.String(metadata={"enum": list(APPROVAL_STATUSES)})
    requested_at = UTCDateTime()
    decided_at = UTCDateTime(allow_none=True)
    decided_by = fields.String(allow_none=True)
    comment = fields.String(allow_none=True)


class DecisionSchema(StrictSchema):
    """The approver is the token's identity, so the body has no field naming one."""

    decision = fields.String(required=True, validate=validate.OneOf(("approve", "reject")))
    comment = fields.String(allow_none=True, validate=validate.Length(max=MAX_COMMENT_CHARS))


class SyncResourceSchema(ma.Schema):
    resourceType = fields.String()
    id = fields.String()


class SyncStatusSchema(ma.Schema):
    execution_id = fields.String()
    status = fields.String(metadata={"enum": list(SYNC_STATUSES)})
    target = fields.String(allow_none=True)
    attempts = fields.Integer()
    last_attempt_at = UTCDateTime(allow_none=True)
    last_error = fields.String(allow_none=True)
    resources = fields.List(fields.Nested(SyncResourceSchema))
    synced_at = UTCDateTime(allow_none=True)


class QueueRowSchema(ma.Schema):
    name = fields.String()
    queued = fields.Integer()
    started = fields.Integer()
    finished = fields.Integer()
    failed = fields.Integer()
    deferred = fields.Integer()
    scheduled = fields.Integer()
    canceled = fields.Integer()


class WorkerCountsSchema(ma.Schema):
    total = fields.Integer()
    busy = fields.Integer()
    idle = fields.Integer()


class QueueStatsSchema(ma.Schema):
    queues = fields.List(fields.Nested(QueueRowSchema))
    workers = fields.Nested(WorkerCountsSchema)
