"""A real `flask worker` process for the tests that kill one mid-job, and a bounded wait."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[2]
WAIT_S = 30


def start_worker(config: dict, **env: str) -> subprocess.Popen:
    """A worker on the test app's database and Redis, in a process group of its own (so that
    a test can SIGKILL it with the job's forked child)."""
    environment = {**os.environ, "DATABASE_URL": config["DATABASE_URL"],
                   "REDIS_URL": config["REDIS_URL"], "INSTANCE_PATH": config["INSTANCE_PATH"],
                   "LOG_LEVEL": "WARNING", **env}
    return subprocess.Popen([sys.executable, "-m", "flask", "--app", "app", "worker"],
                            cwd=PROJECT, env=environment, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def wait_for(predicate: Callable[[], bool], timeout_s: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout_s
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.1)


def app_worker(app):
    """An in-process worker of `app` on every queue, not started (`run_maintenance_tasks`
    and the like are called on it directly); register its birth to make it live."""
    from jobs.queue import QUEUE_NAMES, get_queue
    from jobs.worker import AppWorker

    connection = app.extensions["redis"]
    with app.app_context():
        return AppWorker([get_queue(name, connection) for name in QUEUE_NAMES],
                         connection=connection, app=app)
