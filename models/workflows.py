"""Agent workflows: definitions, their executions, the execution trace, approvals and EHR sync."""

from peewee import CharField, ForeignKeyField, IntegerField, TextField

from models.base import BaseModel, JSONField, UTCDateTimeField, new_id, utcnow
from models.organizations import Organization

EXECUTION_STATUSES = ("queued", "running", "paused", "completed", "failed", "cancelled")
OPEN_EXECUTION_STATUSES = ("queued", "running", "paused")
TRACE_EVENTS = ("start", "complete", "error", "paused", "resumed")
APPROVAL_STATUSES = ("pending", "approved", "rejected", "cancelled")
SYNC_STATUSES = ("not_configured", "pending", "in_progress", "synced", "failed")


class AgentWorkflow(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("wf"))
    organization = ForeignKeyField(Organization, backref="workflows", on_delete="CASCADE")
    name = CharField(max_length=200)
    description = TextField(default="")
    definition = JSONField()
    # Until organizations carry EHR settings everywhere, a workflow may name its FHIR server.
    fhir_base_url = CharField(max_length=500, null=True)
    created_at = UTCDateTimeField(default=utcnow)
    updated_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("organization", "name"), False),)


class WorkflowExecution(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("wfx"))
    organization = ForeignKeyField(Organization, backref="workflow_executions",
                                   on_delete="CASCADE")
    workflow = ForeignKeyField(AgentWorkflow, backref="executions", on_delete="CASCADE")
    # The definition as it was when the execution started: later edits never change a run.
    definition = JSONField()
    status = CharField(max_length=20, default="queued", index=True)
    input = JSONField(default=dict)
    state = JSONField(default=dict)
    current_node = CharField(max_length=100, null=True)
    # Node ids whose step completed: such a node never runs again in this execution.
    completed_nodes = JSONField(default=list)
    # Bumped by retry: part of the step's RQ job id, so a retry is a new job.
    attempt = IntegerField(default=1)
    error = TextField(null=True)
    created_at = UTCDateTimeField(default=utcnow, index=True)
    updated_at = UTCDateTimeField(default=utcnow)
    finished_at = UTCDateTimeField(null=True)


class TraceEntry(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("wft"))
    execution = ForeignKeyField(WorkflowExecution, backref="trace", on_delete="CASCADE")
    seq = IntegerField()
    node_id = CharField(max_length=100, null=True)
    node_type = CharField(max_length=40, null=True)
    event = CharField(max_length=20)
    at = UTCDateTimeField(default=utcnow)
    duration_ms = IntegerField(default=0)
    error = TextField(null=True)
    state = JSONField(default=dict)

    class Meta:
        indexes = ((("execution", "seq"), True),)


class WorkflowApproval(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("apr"))
    execution = ForeignKeyField(WorkflowExecution, backref="approvals", on_delete="CASCADE")
    node_id = CharField(max_length=100)
    title = CharField(max_length=300)
    status = CharField(max_length=20, default="pending")
    requested_at = UTCDateTimeField(default=utcnow)
    decided_at = UTCDateTimeField(null=True)
    decided_by = CharField(max_length=200, null=True)
    comment = TextField(null=True)

    class Meta:
        indexes = ((("execution", "node_id"), True),)


class EhrSync(BaseModel):
    """The FHIR sync of one execution (its last `ehr_sync` node)."""

    id = CharField(primary_key=True, default=lambda: new_id("ehr"))
    execution = ForeignKeyField(WorkflowExecution, backref="ehr_syncs", on_delete="CASCADE",
                                unique=True)
    status = CharField(max_length=20, default="pending")
    target = CharField(max_length=500, null=True)
    attempts = IntegerField(default=0)
    last_attempt_at = UTCDateTimeField(null=True)
    last_error = TextField(null=True)
    resources = JSONField(default=list)
    synced_at = UTCDateTimeField(null=True)
