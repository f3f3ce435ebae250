"""Workflow steps on real RQ workers: a worker SIGKILLed in the middle of a step loses nothing."""

import os
import signal
import subprocess
import sys
from pathlib import Path

from models.workflows import AgentWorkflow, TraceEntry, WorkflowExecution
from services.workflows import engine
from tests.fakes.fhir_server import FakeFhirServer

PROJECT = Path(__file__).resolve().parents[2]
WAIT_S = 30
DEFINITION = {"start": "analyze", "nodes": [
    {"id": "analyze", "type": "analyze_session", "config": {}, "next": "sync"},
    {"id": "sync", "type": "ehr_sync", "config": {}, "next": None}]}
TRANSCRIPT = "Clinician: How are you?\nPatient: Better. My PHQ-9 was 8 this week."


def _start_worker(config: dict) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": config["DATABASE_URL"],
           "REDIS_URL": config["REDIS_URL"], "INSTANCE_PATH": config["INSTANCE_PATH"],
           "LOG_LEVEL": "WARNING"}
    return subprocess.Popen([sys.executable, "-m", "flask", "--app", "app", "worker"],
                            cwd=PROJECT, env=env, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def test_step_of_a_killed_worker_is_requeued_and_completes_once(make_app, app_config, org):
    app = make_app(JOB_RETRY_INTERVALS_S=[0, 0, 0])
    with FakeFhirServer() as fhir:
        fhir.delay_next(60)  # the first sync hangs: the worker is killed while it waits
        with app.app_context():
            workflow = AgentWorkflow.create(organization=org.id, name="Sync",
                                            definition=DEFINITION, fhir_base_url=fhir.base_url)
            execution = engine.start_execution(org.id, workflow, {"transcript": TRANSCRIPT})
        worker = _start_worker(app_config)
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
        assert trace == [("analyze", "start"), ("analyze", "complete"), ("sync", "start"),
                         ("sync", "start"), ("sync", "complete")]
        assert len(fhir.requests) == 2
        assert sum(fhir.created.values()) == len(fhir.bundles[0]["entry"])

