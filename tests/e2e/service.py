"""The service as users run it: gunicorn with the project's gunicorn.conf.py and a separate
`flask worker` process, on a free port of 127.0.0.1.

With TEST_DATABASE_URL (PostgreSQL) it runs on a database of its own created beside that one and
on TEST_REDIS_URL; otherwise on the embedded defaults (SQLite and the embedded Redis server,
both under a temporary INSTANCE_PATH), exactly as `./bin/serve` does on a fresh machine."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import requests

PROJECT_ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
START_TIMEOUT_S = 60
E2E_REDIS_DB_OFFSET = 1
PLATFORM_TOKEN = "cws_platform-e2e-token-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pg_admin(url: str, statement: str) -> None:
    import psycopg2

    conn = psycopg2.connect(url)
    conn.autocommit = True
    try:
        conn.cursor().execute(statement)
    finally:
        conn.close()


class Service:
    """Start, drive and stop the web server and its worker."""

    def __init__(self, workdir: Path, extra_env: dict[str, str] | None = None) -> None:
        self.workdir = workdir
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.web: subprocess.Popen | None = None
        self.workers: list[subprocess.Popen] = []
        self._pg_database: str | None = None
        self.env = self._environment(extra_env or {})

    @property
    def kind(self) -> str:
        return "postgresql" if self._pg_database else "embedded"

    def _environment(self, extra: dict[str, str]) -> dict[str, str]:
        drop = ("DATABASE_URL", "REDIS_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL")
        env = {k: v for k, v in os.environ.items() if k not in drop}
        env.update(INSTANCE_PATH=str(self.workdir / "instance"), HOST="127.0.0.1",
                   PORT=str(self.port), PYTHONUNBUFFERED="1",
                   PLATFORM_ADMIN_TOKEN=PLATFORM_TOKEN,
                   # Many clients from one address within seconds: limits stay on, but wide.
                   RATELIMIT_DEFAULT="100000 per minute", RATELIMIT_PER_IP="100000 per minute",
                   JOB_SWEEP_AFTER_S="5", WORKER_MAINTENANCE_INTERVAL_S="3",
                   # Queues of their own: on PostgreSQL every service shares one Redis
                   # database, and a worker of another service (its own database) would take
                   # this one's jobs and not find their rows.
                   QUEUE_PREFIX=f"{self.workdir.name}-{uuid.uuid4().hex[:6]}-")
        pg_url = os.environ.get("TEST_DATABASE_URL")
        if pg_url:
            self._pg_database = f"cws_e2e_{uuid.uuid4().hex[:10]}"
            pg_admin(pg_url, f"CREATE DATABASE {self._pg_database}")
            env["DATABASE_URL"] = f"{pg_url.rsplit('/', 1)[0]}/{self._pg_database}"
            redis_base = os.environ.get("TEST_REDIS_URL", "redis://127.0.0.1:6379").rstrip("/")
            if redis_base.count("/") > 2:
                redis_base = redis_base.rsplit("/", 1)[0]
            db_number = int(os.environ.get("TEST_REDIS_DB", "13")) + E2E_REDIS_DB_OFFSET
            env["REDIS_URL"] = f"{redis_base}/{db_number}"
            from redis import Redis

            Redis.from_url(env["REDIS_URL"]).flushdb()
        env.update(extra)
        return env

    def _log(self, name: str):
        return open(self.workdir / f"{name}.log", "ab")

    def start(self) -> Service:
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.web = subprocess.Popen(
            [str(BIN / "gunicorn"), "-c", "gunicorn.conf.py", "app:create_app()"],
            cwd=PROJECT_ROOT, env=self.env, stdout=self._log("web"), stderr=subprocess.STDOUT,
            start_new_session=True)
        end = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                if requests.get(f"{self.base}/api/voice/webhook/health", timeout=2).ok:
                    break
            except requests.RequestException:
                pass
            if self.web.poll() is not None or time.monotonic() > end:
                raise RuntimeError(f"gunicorn did not start:\n{self.log_tail('web')}")
            time.sleep(0.2)
        self.start_worker()
        return self

    def start_worker(self) -> subprocess.Popen:
        worker = subprocess.Popen([str(BIN / "flask"), "--app", "app", "worker"],
                                  cwd=PROJECT_ROOT, env=self.env, stdout=self._log("worker"),
                                  stderr=subprocess.STDOUT, start_new_session=True)
        self.workers.append(worker)
        return worker

    def kill_workers(self, sig: int = signal.SIGKILL) -> None:
        """Kill every worker process (and their work-horses) without a chance to clean up."""
        for worker in self.workers:
            if worker.poll() is None:
                os.killpg(worker.pid, sig)
                try:
                    worker.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    # A warm shutdown waits for the job in hand: a failed test may leave one
                    # that never ends.
                    os.killpg(worker.pid, signal.SIGKILL)
                    worker.wait(timeout=10)
        self.workers.clear()

    def cli(self, *args: str) -> str:
        """Run `flask --app app …` against this service's configuration; returns stdout."""
        result = subprocess.run([str(BIN / "flask"), "--app", "app", *args], cwd=PROJECT_ROOT,
                                env=self.env, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"flask {' '.join(args)}: {result.stderr[-800:]}")
        return result.stdout

    def new_admin_token(self, name: str) -> str:
        """The newcomer's one step: an organization and its admin token."""
        return self.cli("quickstart", "--name", name).strip().splitlines()[-1]

    def log_tail(self, name: str, chars: int = 3000) -> str:
        path = self.workdir / f"{name}.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else ""

    def stop(self) -> None:
        self.kill_workers(signal.SIGTERM)
        if self.web and self.web.poll() is None:
            os.killpg(self.web.pid, signal.SIGTERM)
            try:
                self.web.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.web.pid, signal.SIGKILL)
        if self._pg_database:
            pg_admin(os.environ["TEST_DATABASE_URL"],
                      f"DROP DATABASE IF EXISTS {self._pg_database} WITH (FORCE)")


class Client:
    """An HTTP client of the running service with one organization's token."""

    def __init__(self, base: str, token: str | None) -> None:
        self.base = base
        self.http = requests.Session()
        if token:
            self.http.headers["Authorization"] = f"Bearer {token}"

    def call(self, method: str, path: str, json: Any = None, **kwargs: Any) -> requests.Response:
        kwargs.setdefault("timeout", 30)
        return self.http.request(method, self.base + path, json=json, **kwargs)

    def wait_for(self, path: str, predicate, timeout_s: float = 60,
                 interval_s: float = 0.2) -> dict:
        """Poll GET `path` until `predicate(body)` holds; returns the body."""
        end = time.monotonic() + timeout_s
        body: Any = None
        while time.monotonic() < end:
            response = self.call("GET", path)
            if response.status_code == 200:
                body = response.json()
                if predicate(body):
                    return body
            time.sleep(interval_s)
        raise AssertionError(f"timed out waiting on {path}; last body: {body!r}")
