"""The workflow engine: it decides, `jobs.workflows` runs.

Each node step is one RQ job `wf-<execution>-<node>-<attempt>`. A step is three moves: claim
(a locked check that the execution is running, is at this node and has not completed it; trace
`start`), run the node outside any transaction (it may call a model or a FHIR server), then
commit its output, trace `complete` and queue the next step in one transaction — again only if
the node is still the current, uncompleted one. So a job delivered twice, or re-run after its
worker died after the commit, finds the node completed and does nothing: a completed node never
runs again, and nothing is half-applied. A pure node (`nodes.PURE_NODE_TYPES`: no I/O) runs
inside the claim's transaction instead, so its whole step is one commit. The step's job record
is written in the same transactions (`models.jobs.running_job_*`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from peewee import Function, fn

from models.base import db, is_postgres, new_id, utcnow
from models.jobs import (
    QUEUE_WORKFLOWS,
    cancel_waiting_job,
    job_id,
    record_job,
    running_job_started,
    running_job_succeeded,
)
from models.workflows import (
    OPEN_EXECUTION_STATUSES,
    AgentWorkflow,
    TraceEntry,
    WorkflowApproval,
    WorkflowExecution,
)
from services.errors import Conflict, NotFound
from services.outbound.endpoints import check_webhook_url
from services.tenancy import get_owned
from services.usage import record_usage
from services.workflows import nodes as node_runner
from services.workflows.definition import nodes_by_id
from services.workflows.nodes import NodeError, NodeResult, TransientNodeError

logger = logging.getLogger(__name__)
MAX_ERROR_CHARS = 1_000
DEFAULT_APPROVAL_TITLE = "Approval required"
INTERRUPTED = "the worker running this step stopped before it ended; the step runs again"


# Definitions ---------------------------------------------------------------------------------

def create_workflow(organization_id: str, data: Mapping[str, Any]) -> AgentWorkflow:
    if data.get("fhir_base_url"):  # refused on save as at send time (SSRF guard, credentials)
        check_webhook_url(data["fhir_base_url"], field="fhir_base_url", what="FHIR server URL")
    return AgentWorkflow.create(organization=organization_id, name=data["name"],
                                description=data.get("description") or "",
                                definition=data["definition"],
                                fhir_base_url=data.get("fhir_base_url"))


def list_workflows(organization_id: str):
    return (AgentWorkflow.select().where(AgentWorkflow.organization == organization_id)
            .order_by(AgentWorkflow.created_at.desc(), AgentWorkflow.id))


def get_workflow(organization_id: str, workflow_id: str) -> AgentWorkflow:
    return get_owned(AgentWorkflow, organization_id, workflow_id, "Workflow")


# Transient node errors (a model or FHIR server down) are retried by RQ at JOB_RETRY_INTERVALS_S.
STEP_MAX_ATTEMPTS = 4
STEP_JOB = "jobs.workflows.run_step"
STEP_FAILED_HOOK = "jobs.workflows.step_failed"


def step_job_id(execution_id: str, node_id: str, attempt: int) -> str:
    return job_id("wf", execution_id, node_id, attempt)


def queue_step(execution_id: str, node_id: str, attempt: int) -> str:
    """Record a node step (inside the caller's transaction; pushed after commit)."""
    jid = step_job_id(execution_id, node_id, attempt)
    record_job(STEP_JOB, execution_id, node_id, attempt, id=jid, queue=QUEUE_WORKFLOWS,
               max_attempts=STEP_MAX_ATTEMPTS, on_failure=STEP_FAILED_HOOK)
    return jid


# Executions ----------------------------------------------------------------------------------

def start_execution(organization_id: str, workflow: AgentWorkflow,
                    payload: Mapping[str, Any]) -> WorkflowExecution:
    """Create an execution and queue its first step (in the same transaction)."""
    with db.atomic():
        execution = WorkflowExecution.create(
            organization=organization_id, workflow=workflow.id, definition=workflow.definition,
            status="queued", input=dict(payload), state={"input": dict(payload)},
            current_node=workflow.definition["start"])
        record_usage(organization_id, "workflow_executions",
                     details={"workflow_id": workflow.id, "execution_id": execution.id})
        queue_step(execution.id, execution.current_node, execution.attempt)
    return execution


def list_executions(organization_id: str, filters: Mapping[str, Any]):
    query = WorkflowExecution.select().where(WorkflowExecution.organization == organization_id)
    if filters.get("status"):
        query = query.where(WorkflowExecution.status.in_(filters["status"]))
    if filters.get("workflow_id"):
        query = query.where(WorkflowExecution.workflow == filters["workflow_id"])
    if filters.get("from_"):
        query = query.where(WorkflowExecution.created_at >= filters["from_"])
    if filters.get("to"):
        query = query.where(WorkflowExecution.created_at < filters["to"])
    return query.order_by(WorkflowExecution.created_at.desc(), WorkflowExecution.id)


def get_execution(organization_id: str, execution_id: str) -> WorkflowExecution:
    return get_owned(WorkflowExecution, organization_id, execution_id, "Execution")


def trace_of(execution: WorkflowExecution) -> list[TraceEntry]:
    return list(TraceEntry.select().where(TraceEntry.execution == execution.id)
                .order_by(TraceEntry.seq))


def pending_approvals(execution: WorkflowExecution):
    """The execution's pending approvals, oldest first (a query: the API pages it)."""
    return (WorkflowApproval.select()
            .where((WorkflowApproval.execution == execution.id)
                   & (WorkflowApproval.status == "pending"))
            .order_by(WorkflowApproval.requested_at, WorkflowApproval.id))


def _locked(execution_id: str) -> WorkflowExecution | None:
    """The execution, locked for the rest of the transaction (SQLite's BEGIN IMMEDIATE already
    holds the database's write lock)."""
    query = WorkflowExecution.select().where(WorkflowExecution.id == execution_id)
    if is_postgres():
        query = query.for_update()
    return query.first()


def _trace(execution: WorkflowExecution, event: str, node: Mapping[str, Any] | None,
           duration_ms: int = 0, error: str | None = None, defer: bool = False) -> None:
    """Append a trace entry, with the execution locked (so no other writer picks the same
    seq). The seq is computed by the INSERT itself, one round trip fewer; a `defer`red entry
    is written with the next one, in the same INSERT."""
    pending = getattr(execution, "_trace_pending", [])
    pending.append({"id": new_id("wft"), "execution": execution.id,
                    "seq": _last_seq(execution.id) + len(pending) + 1,
                    "node_id": node["id"] if node else None,
                    "node_type": node["type"] if node else None, "event": event,
                    "at": utcnow(), "duration_ms": duration_ms, "error": error,
                    "state": execution.state})
    execution._trace_pending = pending if defer else []
    if not defer:
        TraceEntry.insert_many(pending).execute()


def _started_and_not_ended(execution_id: str, node_id: str) -> bool:
    """Whether the execution's last trace entry is this node's `start`."""
    last = (TraceEntry.select(TraceEntry.node_id, TraceEntry.event)
            .where(TraceEntry.execution == execution_id)
            .order_by(TraceEntry.seq.desc()).first())
    return last is not None and (last.node_id, last.event) == (node_id, "start")


def _last_seq(execution_id: str) -> Function:
    """The execution's last trace seq, as SQL evaluated by the statement that uses it."""
    return fn.COALESCE(TraceEntry.select(fn.MAX(TraceEntry.seq))
                       .where(TraceEntry.execution == execution_id), 0)


def _save(execution: WorkflowExecution, **fields: Any) -> None:
    for name, value in fields.items():
        setattr(execution, name, value)
    execution.updated_at = utcnow()
    if execution.status not in OPEN_EXECUTION_STATUSES and execution.finished_at is None:
        execution.finished_at = utcnow()
    elif execution.status in OPEN_EXECUTION_STATUSES and execution.finished_at is not None:
        execution.finished_at = None  # retried: it has not finished (again) yet
    # Only what changed: the definition and input are never rewritten.
    execution.save(only=execution.dirty_fields)


def _is_current(execution: WorkflowExecution | None, node_id: str) -> bool:
    return (execution is not None and execution.status in ("queued", "running")
            and execution.current_node == node_id
            and node_id not in execution.completed_nodes)


def _advance(execution: WorkflowExecution, next_id: str | None) -> None:
    """Move to `next_id` and queue its step, or finish the execution."""
    if next_id is None:
        _save(execution, status="completed", current_node=None)
        return
    _save(execution, status="running", current_node=next_id)
    queue_step(execution.id, next_id, execution.attempt)


# Steps ---------------------------------------------------------------------------------------

def _elapsed_ms(started: float) -> int:
    return int((time.monotonic() - started) * 1000)


def _context(execution: WorkflowExecution, node_id: str,
             config: Mapping[str, Any]) -> node_runner.NodeContext:
    return node_runner.NodeContext(
        organization_id=execution.organization_id, execution_id=execution.id,
        workflow_id=execution.workflow_id, state=execution.state,
        definition=execution.definition, config=config, node_id=node_id)


def run_step(execution_id: str, node_id: str, config: Mapping[str, Any]) -> str:
    """Run one node step; returns what happened (for the job's log)."""
    with db.atomic():
        execution = _locked(execution_id)
        if not _is_current(execution, node_id):
            logger.info("execution %s step %s skipped (not current)", execution_id, node_id)
            return "skipped"
        node = nodes_by_id(execution.definition)[node_id]
        if node["type"] in node_runner.PURE_NODE_TYPES:
            return _run_pure(execution, node, config)
        if _started_and_not_ended(execution.id, node_id):
            # Its worker died mid-step (the job was re-queued): the trace says so before the
            # step's second start.
            _trace(execution, "error", node, error=INTERRUPTED)
        _save(execution, status="running")
        _trace(execution, "start", node)
        running_job_started()
    # Outside any transaction: the node may wait on a model or a FHIR server.
    started = time.monotonic()
    try:
        result = node_runner.run_node(node, _context(execution, node_id, config))
    except TransientNodeError as exc:
        # Recorded, then raised so that RQ retries the job with backoff.
        _record_error(execution_id, node, str(exc), _elapsed_ms(started), fail=False)
        raise
    except NodeError as exc:
        _record_error(execution_id, node, str(exc), _elapsed_ms(started), fail=True)
        return "failed"
    return _finish(execution_id, node, result, _elapsed_ms(started))


def _run_pure(execution: WorkflowExecution, node: Mapping[str, Any],
              config: Mapping[str, Any]) -> str:
    """A pure node's whole step, in the claim's transaction (its status and trace entries
    written once, at the end)."""
    _trace(execution, "start", node, defer=True)
    started = time.monotonic()
    try:
        result = node_runner.run_node(node, _context(execution, node["id"], config))
    except NodeError as exc:
        _apply_error(execution, node, str(exc)[:MAX_ERROR_CHARS], _elapsed_ms(started), True)
        running_job_succeeded()
        return "failed"
    return _apply(execution, node, result, _elapsed_ms(started))


def _record_error(execution_id: str, node: Mapping[str, Any], error: str, duration_ms: int,
                  fail: bool) -> None:
    with db.atomic():
        execution = _locked(execution_id)
        if _cancelled_while_running(execution, node["id"]):
            _trace(execution, "error", node, duration_ms,
                   f"{CANCELLED_THEN_FAILED}: {error}"[:MAX_ERROR_CHARS])
            return
        if not _is_current(execution, node["id"]):
            return
        _apply_error(execution, node, error[:MAX_ERROR_CHARS], duration_ms, fail)


def _apply_error(execution: WorkflowExecution, node: Mapping[str, Any], error: str,
                 duration_ms: int, fail: bool) -> None:
    _trace(execution, "error", node, duration_ms, error)
    if fail:
        _save(execution, status="failed", error=error)
    logger.info("execution %s node %s error (%s)", execution.id, node["id"],
                "failed" if fail else "will retry")


def _finish(execution_id: str, node: Mapping[str, Any], result: NodeResult,
            duration_ms: int) -> str:
    with db.atomic():
        execution = _locked(execution_id)
        if _cancelled_while_running(execution, node["id"]):
            # What the step did outside (a bundle written, an event sent) stays done: the
            # trace says so, the output is not used.
            _trace(execution, "complete", node, duration_ms, CANCELLED_WHILE_RUNNING)
            return "discarded"
        if not _is_current(execution, node["id"]):
            return "discarded"  # a duplicate delivery got here first
        return _apply(execution, node, result, duration_ms)


CANCELLED_WHILE_RUNNING = ("finished after the execution was cancelled; its output was not "
                           "used")
CANCELLED_THEN_FAILED = "failed after the execution was cancelled"


def _cancelled_while_running(execution: WorkflowExecution | None, node_id: str) -> bool:
    return (execution is not None and execution.status == "cancelled"
            and execution.current_node == node_id
            and node_id not in execution.completed_nodes)


def _apply(execution: WorkflowExecution, node: Mapping[str, Any], result: NodeResult,
           duration_ms: int) -> str:
    """Store a node's output and move on (or pause), with the step's job record, in the
    caller's transaction."""
    running_job_succeeded()
    execution.state = {**execution.state, node["id"]: result.output}
    if result.pause:
        title = (node.get("config") or {}).get("title") or DEFAULT_APPROVAL_TITLE
        approval, _ = WorkflowApproval.get_or_create(
            execution=execution.id, node_id=node["id"], defaults={"title": title})
        execution.state = {**execution.state,
                           node["id"]: {"approval_id": approval.id, "status": "pending"}}
        _save(execution, status="paused")
        _trace(execution, "paused", node, duration_ms)
        return "paused"
    execution.completed_nodes = [*execution.completed_nodes, node["id"]]
    _trace(execution, "complete", node, duration_ms)
    _advance(execution, result.next_node)
    return "completed"


def step_failed(execution_id: str, node_id: str, error: str) -> None:
    """The step's last attempt failed (or its worker died with no retry left)."""
    error = error[:MAX_ERROR_CHARS]
    with db.atomic():
        execution = _locked(execution_id)
        if not _is_current(execution, node_id):
            return
        node = nodes_by_id(execution.definition)[node_id]
        last = (TraceEntry.select().where(TraceEntry.execution == execution.id)
                .order_by(TraceEntry.seq.desc()).first())
        if last is None or last.event != "error" or last.node_id != node_id:
            _trace(execution, "error", node, 0, error)
        _save(execution, status="failed", error=error)
        if node["type"] == "ehr_sync":
            from services.workflows.fhir import mark_failed

            mark_failed(execution_id, error)


# Approvals, resume, cancel, retry -------------------------------------------------------------

def get_approval(execution: WorkflowExecution, approval_id: str) -> WorkflowApproval:
    approval = WorkflowApproval.get_or_none((WorkflowApproval.id == approval_id)
                                            & (WorkflowApproval.execution == execution.id))
    if approval is None:
        raise NotFound("Approval not found.")
    return approval


def decide(execution: WorkflowExecution, approval_id: str, decision: str,
           comment: str | None, actor: str) -> WorkflowApproval:
    """Record an approver's decision; `resume` then moves the execution on."""
    with db.atomic():
        _locked(execution.id)
        approval = get_approval(execution, approval_id)
        if approval.status != "pending":
            raise Conflict(f"This approval is already {approval.status}.")
        updated = (WorkflowApproval.update(
            status="approved" if decision == "approve" else "rejected", decided_at=utcnow(),
            decided_by=actor, comment=comment)
            .where((WorkflowApproval.id == approval.id)
                   & (WorkflowApproval.status == "pending")).execute())
        if updated != 1:
            raise Conflict("This approval was decided meanwhile.")
    return WorkflowApproval.get_by_id(approval.id)


def resume(organization_id: str, execution_id: str) -> WorkflowExecution:
    """The atomic `paused → running` switch: exactly one of concurrent resumes gets through."""
    with db.atomic():
        execution = _locked(execution_id)
        if execution is None or execution.organization_id != organization_id:
            raise NotFound("Execution not found.")
        if execution.status != "paused":
            raise Conflict(f"The execution is {execution.status}, not paused.")
        if pending_approvals(execution).exists():
            raise Conflict("An approval of this execution is still pending.")
        switched = (WorkflowExecution.update(status="running", updated_at=utcnow())
                    .where((WorkflowExecution.id == execution.id)
                           & (WorkflowExecution.status == "paused")).execute())
        if switched != 1:
            raise Conflict("The execution was resumed meanwhile.")
        execution.status = "running"
        node = nodes_by_id(execution.definition)[execution.current_node]
        approval = WorkflowApproval.get((WorkflowApproval.execution == execution.id)
                                        & (WorkflowApproval.node_id == node["id"]))
        execution.state = {**execution.state, node["id"]: _decision_output(approval)}
        _trace(execution, "resumed", node)
        execution.completed_nodes = [*execution.completed_nodes, node["id"]]
        _trace(execution, "complete", node)
        if approval.status == "approved":
            _advance(execution, node.get("next"))
        elif (node.get("config") or {}).get("on_reject"):
            _advance(execution, node["config"]["on_reject"])
        else:
            _save(execution, status="cancelled", current_node=None,
                  error="The approval was rejected.")
    return execution


def _decision_output(approval: WorkflowApproval) -> dict[str, Any]:
    decided_at: datetime | None = approval.decided_at
    return {"approval_id": approval.id, "status": approval.status,
            "decided_by": approval.decided_by, "comment": approval.comment,
            "decided_at": decided_at.isoformat().replace("+00:00", "Z") if decided_at else None}


def cancel(organization_id: str, execution_id: str) -> WorkflowExecution:
    with db.atomic():
        execution = _locked(execution_id)
        if execution is None or execution.organization_id != organization_id:
            raise NotFound("Execution not found.")
        if execution.status not in OPEN_EXECUTION_STATUSES:
            raise Conflict(f"The execution is already {execution.status}.")
        (WorkflowApproval.update(status="cancelled")
         .where((WorkflowApproval.execution == execution.id)
                & (WorkflowApproval.status == "pending")).execute())
        # A paused approval's entry in the state says what became of it (it said "pending"
        # for good); one decided but not yet resumed keeps its decision.
        waiting = execution.current_node
        if execution.status == "paused" and waiting in execution.state:
            entry = execution.state[waiting]
            approval = WorkflowApproval.get_or_none(
                WorkflowApproval.execution == execution.id, WorkflowApproval.node_id == waiting)
            if isinstance(entry, dict) and approval is not None:
                execution.state = {**execution.state,
                                   waiting: {**entry, "status": approval.status}}
        # A step still waiting on the queue will not run (one running ends and sees the cancel).
        if execution.current_node is not None:
            cancel_waiting_job(
                step_job_id(execution.id, execution.current_node, execution.attempt),
                "the execution was cancelled before this step started")
        _save(execution, status="cancelled")
    return execution


def retry(organization_id: str, execution_id: str) -> WorkflowExecution:
    """Re-run the failed node (only it: completed nodes keep their output)."""
    with db.atomic():
        execution = _locked(execution_id)
        if execution is None or execution.organization_id != organization_id:
            raise NotFound("Execution not found.")
        if execution.status != "failed":
            raise Conflict(f"Only a failed execution can be retried; this one is "
                           f"{execution.status}.")
        _save(execution, status="running", error=None, attempt=execution.attempt + 1)
        queue_step(execution.id, execution.current_node, execution.attempt)
    return execution
