"""Workflow steps on real RQ workers: a worker SIGKILLed in the middle of a step loses nothing."""

import os
import signal

from models.workflows import AgentWorkflow, TraceEntry, WorkflowExecution
from services.workflows import engine
from tests.fakes.fhir_server import FakeFhirServer
from tests.jobs.worker_process import WAIT_S, start_worker

DEFINITION = {"start": "analyze", "nodes": [
    {"id": "analyze", "type": "analyze_session", "config": {}, "next": "sync"},
    {"id": "sync", "type": "ehr_sync", "config": {}, "next": None}]}
TRANSCRIPT = "Clinician: How are you?\nPatient: Better. My PHQ-9 was 8 this week."


def test_step_of_a_killed_worker_is_requeued_and_completes_once(make_app, app_config, org):
    app = make_app(JOB_RETRY_INTERVALS_S=[0, 0, 0], ALLOW_PRIVATE_WEBHOOK_URLS=True)
    with FakeFhirServer() as fhir:
        fhir.delay_next(60)  # the first sync hangs: the worker is killed while it waits
        with app.app_context():
            workflow = AgentWorkflow.create(organization=org.id, name="Sync",
                                            definition=DEFINITION, fhir_base_url=fhir.base_url)
            execution = engine.start_execution(org.id, workflow, {"transcript": TRANSCRIPT})
        worker = start_worker(app_config, ALLOW_PRIVATE_WEBHOOK_URLS="true")
        try:
            fhir.wait_for_requests(1, WAIT_S)
        finally:
            os.killpg(worker.pid, signal.SIGKILL)  # the worker and its work-horse, mid-step
            worker.wait()

        from jobs.worker import run_worker

        run_worker(app, burst=True)  # a new worker re-queues the abandoned step first
        done = WorkflowExecution.get_by_id(execution.id)
        assert done.status == "completed", done.error
        trace = [(t.node_id, t.event) for t in
                 TraceEntry.select().where(TraceEntry.execution == execution.id)
                 .order_by(TraceEntry.seq)]
        # The killed attempt's end is in the trace: it had two starts with nothing between.
        assert trace == [("analyze", "start"), ("analyze", "complete"), ("sync", "start"),
                         ("sync", "error"), ("sync", "start"), ("sync", "complete")]
        error = TraceEntry.get(TraceEntry.execution == execution.id, TraceEntry.event == "error")
        assert error.error == engine.INTERRUPTED
        assert len(fhir.requests) == 2
        assert sum(fhir.created.values()) == len(fhir.bundles[0]["entry"])


def test_ehr_sync_to_a_private_address_is_refused_without_the_setting(make_app, run_worker):
    """The FHIR server gets the webhooks' SSRF guard at send time too: a loopback URL (here
    the organization's, saved outside the API) fails the node unless ALLOW_PRIVATE_WEBHOOK_URLS
    is set, and nothing is sent. A workflow's own URL is refused when saved (422)."""
    from tests.fakes.fhir_server import FakeFhirServer

    app = make_app(JOB_RETRY_INTERVALS_S=[0, 0, 0])
    with FakeFhirServer() as fhir, app.app_context():
        client = app.test_client()
        from services.organizations import create_organization
        from services.tokens import create_token

        org = create_organization("Guarded Clinic")
        headers = {"Authorization": f"Bearer {create_token(org.id, ['admin'])[1]}"}
        definition = {"start": "sync", "nodes": [
            {"id": "sync", "type": "ehr_sync", "config": {}, "next": "done"},
            {"id": "done", "type": "end", "config": {}, "next": None}]}
        refused = client.post("/api/agent-workflows", headers=headers, json={
            "name": "Sync", "definition": definition, "fhir_base_url": fhir.base_url})
        assert refused.status_code == 422
        from models.organizations import Organization

        Organization.update(settings={"ehr": {"fhir_base_url": fhir.base_url}}).where(
            Organization.id == org.id).execute()
        workflow = client.post("/api/agent-workflows", headers=headers, json={
            "name": "Sync", "definition": definition}).json
        execution = client.post(f"/api/agent-workflows/{workflow['id']}/executions",
                                headers=headers, json={"input": {}}).json
        run_worker()
        state = client.get(f"/api/agent-workflows/executions/{execution['id']}",
                           headers=headers).json
        sync = client.get(f"/api/agent-workflows/executions/{execution['id']}/sync-status",
                          headers=headers).json
    assert state["status"] == "failed"
    assert "address refused" in (state["error"] or "")
    assert sync["status"] == "failed" and fhir.requests == []


def test_each_step_records_its_job_once_succeeded_with_one_attempt(app, org, run_worker):
    """Pure steps write their job row in their one transaction, others in claim and finish;
    either way the row ends succeeded with one attempt."""
    from models.jobs import JobRecord

    definition = {"start": "analyze", "nodes": [
        {"id": "analyze", "type": "analyze_session", "config": {}, "next": "mark"},
        {"id": "mark", "type": "set", "config": {"values": {"done": True}}, "next": "done"},
        {"id": "done", "type": "end", "config": {}, "next": None}]}
    with app.app_context():
        workflow = AgentWorkflow.create(organization=org.id, name="Steps", definition=definition)
        execution = engine.start_execution(org.id, workflow, {"transcript": TRANSCRIPT})
    run_worker()
    assert WorkflowExecution.get_by_id(execution.id).status == "completed"
    rows = {r.id: (r.status, r.attempts, r.finished_at is not None) for r in JobRecord.select()}
    assert rows == {engine.step_job_id(execution.id, node, 1): ("succeeded", 1, True)
                    for node in ("analyze", "mark", "done")}
    trace = [(t.seq, t.node_id, t.event) for t in TraceEntry.select()
             .where(TraceEntry.execution == execution.id).order_by(TraceEntry.seq)]
    assert trace == [(1, "analyze", "start"), (2, "analyze", "complete"), (3, "mark", "start"),
                     (4, "mark", "complete"), (5, "done", "start"), (6, "done", "complete")]


def test_a_fhir_servers_retry_after_delays_the_next_attempt(make_app, org):
    """A 429 with `Retry-After: 90` from the FHIR server: the sync's next attempt is scheduled
    90 s on (the retry interval here is 0), and the sync status says what the server asked."""
    import time

    from rq.registry import ScheduledJobRegistry

    from jobs.queue import QUEUE_WORKFLOWS, queue_name
    from jobs.redis_conn import get_redis
    from jobs.worker import run_worker
    from models.workflows import EhrSync

    app = make_app(JOB_RETRY_INTERVALS_S=[0, 0, 0], ALLOW_PRIVATE_WEBHOOK_URLS=True)
    with FakeFhirServer() as fhir, app.app_context():
        fhir.fail_next(1, status=429, headers={"Retry-After": "90"})
        workflow = AgentWorkflow.create(organization=org.id, name="Sync",
                                        definition=DEFINITION, fhir_base_url=fhir.base_url)
        execution = engine.start_execution(org.id, workflow, {"transcript": TRANSCRIPT})
        asked_at = time.time()
        run_worker(app, burst=True)
        assert len(fhir.requests) == 1  # not sent again at once
        assert WorkflowExecution.get_by_id(execution.id).status == "running"
        sync = EhrSync.get(EhrSync.execution == execution.id)
        assert sync.status == "pending"
        assert sync.last_error == "FHIR server answered 429 and asked for a retry after 90 s"
        registry = ScheduledJobRegistry(queue_name(QUEUE_WORKFLOWS), connection=get_redis())
        job_id = engine.step_job_id(execution.id, "sync", 1)
        assert 89 <= registry.connection.zscore(registry.key, job_id) - asked_at <= 95
