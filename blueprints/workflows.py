"""Agent workflows: definitions, executions, approvals, resume/cancel/retry, EHR sync status
and queue statistics."""


from flask import current_app
from flask.views import MethodView

from jobs.queue import QUEUE_NAMES, get_queue
from jobs.redis_conn import get_redis
from schemas.workflows import (
    ApprovalSchema,
    DecisionSchema,
    ExecutionCreateSchema,
    ExecutionDetailSchema,
    ExecutionQuerySchema,
    ExecutionSchema,
    QueueStatsSchema,
    SyncStatusSchema,
    WorkflowCreateSchema,
    WorkflowSchema,
)
from services.workflows import engine
from services.workflows.fhir import sync_status
from services.workflows.stats import queue_stats
from web.api import ListPage, page_items
from web.auth import audit_access, current_identity, current_org_id, require
from web.blueprint import Blueprint
from web.idempotency import idempotent

blp = Blueprint("agent_workflows", __name__, url_prefix="/api/agent-workflows",
                description="Agent workflows run node by node on the job queue.")

EXECUTION = "workflow_execution"
EXECUTION_PATH = "/executions/<execution_id>"


def _detail(execution):
    execution.execution_trace = engine.trace_of(execution)
    return execution


@blp.route("")
class Workflows(MethodView):
    @require("workflows:read")
    @blp.response(200, WorkflowSchema(many=True))
    @blp.paginate()
    def get(self, pagination_parameters):
        """List the organization's workflows"""
        return page_items(engine.list_workflows(current_org_id()), pagination_parameters)

    @require("workflows:write")
    @idempotent
    @blp.arguments(WorkflowCreateSchema)
    @blp.response(201, WorkflowSchema)
    def post(self, data):
        """Save a workflow definition (validated: node types, edges, start, reachability)"""
        return engine.create_workflow(current_org_id(), data)


@blp.route("/queue/stats")
class QueueStats(MethodView):
    @require("workflows:read")
    @blp.response(200, QueueStatsSchema)
    @blp.alt_response(503, response="DEFAULT_ERROR", description="Redis is unavailable")
    def get(self):
        """Jobs per queue and registry, and workers busy or idle"""
        connection = get_redis()
        return queue_stats({name: get_queue(name, connection) for name in QUEUE_NAMES},
                           connection,
                           current_app.config.get("WORKER_MAINTENANCE_INTERVAL_S") or 60)


@blp.route("/executions")
class Executions(MethodView):
    @require("workflows:read")
    @blp.arguments(ExecutionQuerySchema, location="query")
    @blp.response(200, ExecutionSchema(many=True))
    @blp.paginate()
    def get(self, filters, pagination_parameters):
        """List executions (filter by one or more statuses, workflow, creation window)"""
        return page_items(engine.list_executions(current_org_id(), filters),
                          pagination_parameters, audit=("list", EXECUTION))


@blp.route("/<workflow_id>")
class Workflow(MethodView):
    @require("workflows:read")
    @blp.response(200, WorkflowSchema)
    def get(self, workflow_id):
        """Get one workflow"""
        return engine.get_workflow(current_org_id(), workflow_id)


@blp.route("/<workflow_id>/executions")
class WorkflowExecutions(MethodView):
    @require("workflows:write")
    @idempotent
    # Optional: a workflow may need no input (no body is `{"input": {}}`).
    @blp.arguments(ExecutionCreateSchema, required=False)
    @blp.response(202, ExecutionSchema)
    def post(self, data, workflow_id):
        """Start an execution; its first step is queued"""
        workflow = engine.get_workflow(current_org_id(), workflow_id)
        execution = engine.start_execution(current_org_id(), workflow, data["input"])
        audit_access("create", EXECUTION, execution.id)
        return execution


@blp.route(EXECUTION_PATH)
class Execution(MethodView):
    @require("workflows:read")
    @blp.response(200, ExecutionDetailSchema)
    def get(self, execution_id):
        """Get an execution with its trace (a state snapshot after every event)"""
        execution = engine.get_execution(current_org_id(), execution_id)
        audit_access("read", EXECUTION, execution.id)
        return _detail(execution)


@blp.route(f"{EXECUTION_PATH}/approvals")
class Approvals(MethodView):
    @require("workflows:read")
    @blp.response(200, ApprovalSchema(many=True))
    @blp.paginate(ListPage)
    def get(self, execution_id):
        """List the execution's pending approvals"""
        execution = engine.get_execution(current_org_id(), execution_id)
        return engine.pending_approvals(execution)


@blp.route(f"{EXECUTION_PATH}/approvals/<approval_id>")
class Approval(MethodView):
    @require("workflows:approve")
    @blp.arguments(DecisionSchema)
    @blp.response(200, ApprovalSchema)
    def post(self, data, execution_id, approval_id):
        """Approve or reject (the approver is the token's identity); then resume"""
        execution = engine.get_execution(current_org_id(), execution_id)
        approval = engine.decide(execution, approval_id, data["decision"], data.get("comment"),
                                 current_identity().actor)
        audit_access("approve" if data["decision"] == "approve" else "reject", EXECUTION,
                     execution.id)
        return approval


@blp.route(f"{EXECUTION_PATH}/resume")
class Resume(MethodView):
    @require("workflows:write")
    @blp.response(202, ExecutionSchema)
    def post(self, execution_id):
        """Resume a paused execution whose approvals are decided (409 otherwise)"""
        execution = engine.resume(current_org_id(), execution_id)
        audit_access("resume", EXECUTION, execution.id)
        return execution


@blp.route(f"{EXECUTION_PATH}/cancel")
class Cancel(MethodView):
    @require("workflows:write")
    @blp.response(200, ExecutionSchema)
    def post(self, execution_id):
        """Cancel an execution that has not finished"""
        execution = engine.cancel(current_org_id(), execution_id)
        audit_access("cancel", EXECUTION, execution.id)
        return execution


@blp.route(f"{EXECUTION_PATH}/retry")
class Retry(MethodView):
    @require("workflows:write")
    @blp.response(202, ExecutionSchema)
    def post(self, execution_id):
        """Re-run the failed node of a failed execution (completed nodes are kept)"""
        execution = engine.retry(current_org_id(), execution_id)
        audit_access("retry", EXECUTION, execution.id)
        return execution


@blp.route(f"{EXECUTION_PATH}/sync-status")
class SyncStatus(MethodView):
    @require("workflows:read")
    @blp.response(200, SyncStatusSchema)
    def get(self, execution_id):
        """The execution's FHIR sync status"""
        execution = engine.get_execution(current_org_id(), execution_id)
        return sync_status(execution)
