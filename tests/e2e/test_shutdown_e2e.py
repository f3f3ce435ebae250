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
    # gunicorn's own lines ("Booting worker", "Handling signal") are JSON like the rest.
    whole = service.log_tail("web", chars=10**7)
    assert [line for line in whole.splitlines() if line.strip() and not _is_json(line)] == []
    # The address is in the log (gunicorn's own line names none: each worker binds it).
    assert f"Listening at: {service.base.split('//')[1]} " in whole


def _is_json(line: str) -> bool:
    import json

    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False


def test_ctrl_c_stops_bin_serve_and_everything_it_started(tmp_path: Path) -> None:
    """Ctrl-C reaches every process of the terminal's group at once. Before: the embedded
    Redis server was left running (its owner, the web master, shuts it down only when no
    other client is connected, and the worker still was); a web worker hung at exit or
    aborted; the worker answered the signal only when its 60 s wait on the queues ended."""
    import json

    import psutil
    import requests

    from tests.e2e.service import free_port

    port = free_port()
    instance = tmp_path / "instance"
    env = {key: value for key, value in os.environ.items()
           if key not in ("DATABASE_URL", "REDIS_URL")}
    env.update(INSTANCE_PATH=str(instance), HOST="127.0.0.1", PORT=str(port))
    log_path = tmp_path / "serve.log"
    with open(log_path, "wb") as log:
        serve = subprocess.Popen([str(PROJECT_ROOT / "bin" / "serve")], cwd=PROJECT_ROOT,
                                 env=env, stdout=log, stderr=subprocess.STDOUT,
                                 start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            if "Clinical Workflow Service on" in log_path.read_text(errors="replace"):
                break
            assert serve.poll() is None, log_path.read_text()[-3000:]
            time.sleep(0.2)
        quickstart = subprocess.run(
            [str(PROJECT_ROOT / ".venv" / "bin" / "flask"), "--app", "app", "quickstart",
             "--name", "Ctrl-C Clinic"], cwd=PROJECT_ROOT, env=env, capture_output=True,
            text=True, timeout=120)
        token = quickstart.stdout.strip().splitlines()[-1]
        answer = requests.post(f"{base}/api/therapy/analyze-session", timeout=30,
                               headers={"Authorization": f"Bearer {token}"},
                               json={"session_transcript": "Patient: I sleep better now."})
        assert answer.status_code == 200, answer.text[:300]
        Client(base, token).wait_for("/api/agent-workflows/queue/stats",
                                     lambda body: body["workers"]["idle"] == 1)
        started = [p for p in psutil.process_iter() if _session_of(p) == serve.pid]
        settings = json.loads((instance / "redis.rdb.settings").read_text())
        redis_server = psutil.Process(int(Path(settings["pidfile"]).read_text()))

        began = time.monotonic()
        os.killpg(serve.pid, signal.SIGINT)
        code = serve.wait(timeout=GRACEFUL_TIMEOUT_S + 30)
        took = time.monotonic() - began
        time.sleep(1)
        left = [p.pid for p in [*started, redis_server]
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    finally:
        if serve.poll() is None:
            os.killpg(serve.pid, signal.SIGKILL)
    log = log_path.read_text(errors="replace")
    assert left == [], log[-3000:]
    assert "was sent SIGKILL" not in log and "was sent SIGABRT" not in log, log[-3000:]
    assert "terminate called" not in log, log[-3000:]
    # gunicorn's control socket, one path (~/.gunicorn/gunicorn.ctl) for every instance.
    assert "Control socket listening" not in log
    # bin/serve's own signal after the terminal's made rq's warm shutdown a cold one.
    assert "cold shut down" not in log and "warm shut down requested" in log
    assert took < 15, (took, log[-3000:])
    assert code in (0, 130), log[-3000:]


def _session_of(process) -> int | None:
    try:
        return os.getsid(process.pid)
    except OSError:
        return None


_NESTED_QUIT = r"""
import os, signal
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

from web.server_worker import JSONErrorThreadWorker


class Pool(ThreadPoolExecutor):
    def shutdown(self, wait=True, *, cancel_futures=False):
        with self._shutdown_lock:  # where the real shutdown holds it
            os.kill(os.getpid(), signal.SIGQUIT)  # the master's, just after Ctrl-C's SIGINT
            sum(range(1000))  # its handler runs at one of these bytecodes, the lock held
        super().shutdown(wait=wait, cancel_futures=cancel_futures)


worker = object.__new__(JSONErrorThreadWorker)
worker.alive = True
worker.tpool = Pool(2)
worker.cfg = SimpleNamespace(worker_int=lambda w: print("worker_int", flush=True))
signal.signal(signal.SIGQUIT, worker.handle_quit)
signal.signal(signal.SIGINT, worker.handle_quit)
os.kill(os.getpid(), signal.SIGINT)
sum(range(1000))
print("not reached", flush=True)
"""


def test_a_quit_signal_during_the_first_ones_handler_does_not_hang_the_web_worker() -> None:
    """gunicorn's threaded worker shuts its thread pool down on SIGINT and SIGQUIT; a second
    of them arriving during that shutdown waited for ever on the pool's lock (the intermittent
    Ctrl-C hang: the master killed the worker after graceful_timeout, 30 s)."""
    import sys

    done = subprocess.run([sys.executable, "-c", _NESTED_QUIT], cwd=PROJECT_ROOT,
                          capture_output=True, text=True, timeout=20)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["worker_int"]
