"""Agent workflows against the real gunicorn + worker processes and a FHIR server on
127.0.0.1: a run through an approval, two resumes at once, a worker SIGKILLed mid-step, a
failed sync's log."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest
from fhir.resources.R4B.bundle import Bundle

from tests.e2e.service import Client, Service, free_port
from tests.fakes.fhir_server import FakeFhirServer

BASE = "/api/agent-workflows"
TRANSCRIPT = ("Clinician: How has your mood been?\n"
              "Patient: A bit better. My PHQ-9 was 11 and the GAD-7 was 6.\n"
              "Clinician: Let us schedule a follow-up in two weeks.")
DONE = ("completed", "failed", "cancelled")


def node(id_, type_, next_=None, **config):
    return {"id": id_, "type": type_, "config": config, "next": next_}


@pytest.fixture(scope="module")
def fhir() -> Iterator[FakeFhirServer]:
    with FakeFhirServer() as server:
        yield server


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, fhir) -> Iterator[Service]:
    # Queues of its own: on PostgreSQL every e2e service shares one Redis database, and another
    # service's worker must not take these jobs to its own database.
    running = Service(tmp_path_factory.mktemp("e2e-workflows"),
                      extra_env={"QUEUE_PREFIX": "e2e-workflows-",
                                 "ALLOW_PRIVATE_WEBHOOK_URLS": "true"}).start()
    try:
        yield running
    finally:
        running.stop()


def _workflow(clinic: Client, fhir: FakeFhirServer, definition: dict) -> dict:
    response = clinic.call("POST", BASE, {"name": "Post-visit", "definition": definition,
                                          "fhir_base_url": fhir.base_url})
    assert response.status_code == 201, response.text
    return response.json()


def _start(clinic: Client, workflow: dict, payload: dict) -> str:
    response = clinic.call("POST", f"{BASE}/{workflow['id']}/executions", {"input": payload})
    assert response.status_code == 202, response.text
    return response.json()["id"]


POST_VISIT = {"start": "analyze", "nodes": [
    node("analyze", "analyze_session", "review"),
    node("review", "approval", "sync", title="Sign the note"),
    node("sync", "ehr_sync", "done"),
    node("done", "end")]}


def _approve(clinic: Client, execution_id: str) -> None:
    path = f"{BASE}/executions/{execution_id}"
    clinic.wait_for(path, lambda b: b["status"] == "paused")
    approval = clinic.call("GET", f"{path}/approvals").json()[0]
    decided = clinic.call("POST", f"{path}/approvals/{approval['id']}",
                          {"decision": "approve", "comment": "Signed"})
    assert decided.status_code == 200, decided.text


def test_workflow_runs_from_create_to_completed_through_an_approval(clinic, fhir):
    workflow = _workflow(clinic, fhir, POST_VISIT)
    execution_id = _start(clinic, workflow, {"transcript": TRANSCRIPT, "patient_id": "pat-9"})
    _approve(clinic, execution_id)
    assert clinic.call("POST", f"{BASE}/executions/{execution_id}/resume").status_code == 202
    body = clinic.wait_for(f"{BASE}/executions/{execution_id}", lambda b: b["status"] in DONE)
    assert body["status"] == "completed", body["error"]
    assert [e["event"] for e in body["execution_trace"] if e["node_id"] == "review"] == [
        "start", "paused", "resumed", "complete"]
    sync = clinic.call("GET", f"{BASE}/executions/{execution_id}/sync-status").json()
    assert sync["status"] == "synced"
    sent = next(b for b in fhir.bundles
                if any(execution_id in e["resource"]["identifier"][0]["value"]
                       for e in b["entry"]))
    Bundle.model_validate(sent)


def test_two_resumes_at_once_let_exactly_one_through(clinic, fhir):
    workflow = _workflow(clinic, fhir, {"start": "review", "nodes": [
        node("review", "approval", "done"), node("done", "end")]})
    execution_id = _start(clinic, workflow, {})
    _approve(clinic, execution_id)
    barrier = threading.Barrier(2)
    codes: list[int] = []

    def resume() -> None:
        other = Client(clinic.base, None)
        other.http.headers.update(clinic.http.headers)
        barrier.wait()
        codes.append(other.call("POST", f"{BASE}/executions/{execution_id}/resume").status_code)

    threads = [threading.Thread(target=resume) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(codes) == [202, 409]
    body = clinic.wait_for(f"{BASE}/executions/{execution_id}", lambda b: b["status"] in DONE)
    assert body["status"] == "completed"
    assert [e["event"] for e in body["execution_trace"]].count("resumed") == 1


def _sync_under_way(clinic, fhir, hang_s: float) -> str:
    """An execution whose EHR sync has reached the FHIR server, which answers after `hang_s`."""
    workflow = _workflow(clinic, fhir, {"start": "analyze", "nodes": [
        node("analyze", "analyze_session", "sync"), node("sync", "ehr_sync")]})
    fhir.delay_next(hang_s)
    seen = len(fhir.requests)
    execution_id = _start(clinic, workflow, {"transcript": TRANSCRIPT})
    fhir.wait_for_requests(seen + 1, timeout_s=60)
    return execution_id


def test_worker_killed_mid_step_then_the_execution_completes_once(clinic, fhir, service):
    execution_id = _sync_under_way(clinic, fhir, 120)  # hangs until the worker is killed
    service.kill_workers()
    service.start_worker()
    body = clinic.wait_for(f"{BASE}/executions/{execution_id}", lambda b: b["status"] in DONE,
                           timeout_s=90)
    assert body["status"] == "completed", body["error"]
    sync_events = [e["event"] for e in body["execution_trace"] if e["node_id"] == "sync"]
    assert sync_events.count("complete") == 1
    assert sync_events == ["start", "error", "start", "complete"]
    interrupted = [e for e in body["execution_trace"] if e["event"] == "error"]
    assert "stopped before it ended" in interrupted[0]["error"]


def test_an_idle_worker_requeues_the_step_of_a_killed_one(clinic, fhir, service):
    # No new worker, no other job: an idle worker waited on the queues for 405 s before its
    # loop came round to maintenance, so the dead worker's step stalled for that long.
    execution_id = _sync_under_way(clinic, fhir, 120)
    busy = list(service.workers)
    started = service.log_tail("worker", 10_000_000).count("started with PID")
    service.start_worker()
    deadline = time.monotonic() + 60
    while service.log_tail("worker", 10_000_000).count("started with PID") <= started:
        assert time.monotonic() < deadline, "the second worker did not start"
        time.sleep(0.2)
    time.sleep(2)  # past its first round of maintenance, waiting on the queues
    for worker in busy:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
        service.workers.remove(worker)
    body = clinic.wait_for(f"{BASE}/executions/{execution_id}", lambda b: b["status"] in DONE,
                           timeout_s=45)
    assert body["status"] == "completed", body["error"]


def test_a_failed_sync_logs_no_secret_from_the_fhir_address(clinic, service):
    """The FHIR server unreachable: the worker logs the failed attempt as one warning line in
    the service's own words, naming the connection error without its message, which quotes
    the address with its query string (and without a traceback: retries are there for it)."""
    secret = "api-key-e2e-not-for-logs"
    unreachable = f"http://127.0.0.1:{free_port()}/fhir?api_key={secret}"
    response = clinic.call("POST", BASE, {"name": "Sync only", "fhir_base_url": unreachable,
                                          "definition": {"start": "analyze", "nodes": [
                                              node("analyze", "analyze_session", "sync"),
                                              node("sync", "ehr_sync")]}})
    assert response.status_code == 201, response.text
    execution_id = _start(clinic, response.json(), {"transcript": TRANSCRIPT})
    sync = clinic.wait_for(f"{BASE}/executions/{execution_id}/sync-status",
                           lambda b: b["attempts"] >= 1 and b["last_error"])
    assert sync["last_error"] == "FHIR server unreachable: ConnectionError"
    deadline = time.monotonic() + 30
    while "FHIR server unreachable" not in service.log_tail("worker", 200_000):
        assert time.monotonic() < deadline, "the failed attempt was not logged"
        time.sleep(0.2)
    logged = service.log_tail("worker", 200_000)
    line = next(json.loads(entry) for entry in logged.splitlines()
                if "FHIR server unreachable" in entry and entry.startswith("{"))
    assert line["level"] == "WARNING" and "Traceback" not in json.dumps(line)
    assert line["message"].endswith("workflows): FHIR server unreachable: ConnectionError")
    assert secret not in logged


def test_a_step_that_ends_after_a_cancel_is_shown_in_the_trace(clinic, fhir):
    # The cancel is answered at once; the sync already sent goes on. Its end was missing from
    # the trace, which stopped at "sync start" while the bundle was written.
    execution_id = _sync_under_way(clinic, fhir, 3)
    cancelled = clinic.call("POST", f"{BASE}/executions/{execution_id}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    body = clinic.wait_for(f"{BASE}/executions/{execution_id}",
                           lambda b: b["execution_trace"][-1]["event"] != "start", timeout_s=30)
    last = body["execution_trace"][-1]
    assert (last["node_id"], last["event"]) == ("sync", "complete")
    assert "after the execution was cancelled" in last["error"]
    assert body["status"] == "cancelled" and "sync" not in body["state"]


def test_a_step_that_fails_after_a_cancel_says_so_in_the_trace(clinic, fhir):
    # Its error was in the trace as any other, as if the execution had not been cancelled.
    workflow = _workflow(clinic, fhir, {"start": "analyze", "nodes": [
        node("analyze", "analyze_session", "sync"), node("sync", "ehr_sync")]})
    fhir.fail_next(1, 422, delay_s=3)  # a refusal, after the cancel
    seen = len(fhir.requests)
    execution_id = _start(clinic, workflow, {"transcript": TRANSCRIPT})
    fhir.wait_for_requests(seen + 1, timeout_s=60)
    cancelled = clinic.call("POST", f"{BASE}/executions/{execution_id}/cancel")
    assert cancelled.status_code == 200
    body = clinic.wait_for(f"{BASE}/executions/{execution_id}",
                           lambda b: b["execution_trace"][-1]["event"] != "start", timeout_s=30)
    last = body["execution_trace"][-1]
    assert (last["node_id"], last["event"]) == ("sync", "error")
    assert last["error"].startswith("failed after the execution was cancelled: FHIR server")
    assert body["status"] == "cancelled"
