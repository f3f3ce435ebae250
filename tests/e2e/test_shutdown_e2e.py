"""Stopping the service as an operator or a container runtime does (SIGTERM): every process
leaves on its own, and none is killed."""

from __future__ import annotations

import os
import runpy
import signal
import subprocess
import time
from pathlib import Path

from tests.e2e.service import PROJECT_ROOT, Client, Service

# Past it the master kills the workers that have not left.
GRACEFUL_TIMEOUT_S = runpy.run_path(str(PROJECT_ROOT / "gunicorn.conf.py"))["graceful_timeout"]
SESSION = {"patient_id": "pat-stop", "provider_id": "prov-1",
           "session_date": "2026-11-20T15:00:00Z"}


def test_sigterm_stops_web_and_worker_without_killing_any_process(tmp_path: Path) -> None:
    service = Service(tmp_path / "service").start()
    try:
        clinic = Client(service.base, service.new_admin_token("Stopping Clinic"))
        # The workers have used the language models (loaded in the master before the fork).
        analysis = clinic.call("POST", "/api/therapy/analyze-session", {
            "session_transcript": "Patient: I keep my pills in the cabinet and I take them "
                                  "every night as prescribed."})
        assert analysis.status_code in (200, 201), analysis.text[:300]
        assert clinic.call("POST", "/api/therapy-sessions", SESSION).status_code == 201
        # Stopped while it still loads, a worker dies of the signal's default action (it has
        # taken no job): what is tested here is a worker that has started.
        clinic.wait_for("/api/agent-workflows/queue/stats",
                        lambda body: body["workers"]["idle"] == len(service.workers))

        started = time.monotonic()
        os.killpg(service.web.pid, signal.SIGTERM)
        for worker in service.workers:
            os.killpg(worker.pid, signal.SIGTERM)
        try:
            web_code = service.web.wait(timeout=GRACEFUL_TIMEOUT_S + 15)
        except subprocess.TimeoutExpired:
            web_code = None
        took = time.monotonic() - started
        worker_codes = [worker.wait(timeout=30) for worker in service.workers]
    finally:
        service.stop()
    log = service.log_tail("web", chars=20_000)
    assert web_code == 0, log[-2000:]
    # A worker that hung at exit is killed at the graceful timeout, and the master says so.
    assert "was sent SIGKILL" not in log and "was sent SIGABRT" not in log, log[-2000:]
    assert "terminate called" not in log, log[-2000:]
    assert took < GRACEFUL_TIMEOUT_S, (took, log[-2000:])
    assert worker_codes == [0], service.log_tail("worker")
