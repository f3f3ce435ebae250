"""The figures of the table, grouped by what they need running. Each group returns rows; a
new capability adds its group here and to GROUPS."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

from bench import load
from bench.table import Row
from tests.e2e.service import PROJECT_ROOT, Client, Service, free_port, pg_admin
from tests.services.crisis_sessions import bench_sessions

# A Redis database of its own on the shared server (TEST_REDIS_DB picks another).
DEFAULT_BENCH_REDIS_DB = "15"
SEEDED_SESSIONS = 1_000
READ_GOAL = 0.15
ANALYSIS_GOAL = 0.05
LINES = (
    "Clinician: How have things been since we last met?",
    "Patient: Work has been stressful and I have only been sleeping about five hours.",
    "Clinician: What did you notice when the stress peaked on Tuesday?",
    "Patient: My mood was low, I skipped lunch and I kept replaying the meeting.",
    "Clinician: Let's try the breathing exercise daily and keep a sleep diary this week.",
    "Patient: Okay. My PHQ-9 at the clinic was 12 and I still take sertraline 50 mg.",
)
BENCH_ENV = {
    # Limits stay on (their Redis work is part of the cost) but never trip under load.
    "RATELIMIT_DEFAULT": "10000000 per minute", "RATELIMIT_PER_IP": "10000000 per minute",
    "LOG_LEVEL": "WARNING",
}


# The ordinary 5,000-word session written apart from the service that the analysis is timed on.
WRITTEN_APART = "cbt_depression"


def transcript(words: int) -> str:
    out, count, i = [], 0, 0
    while count < words:
        line = LINES[i % len(LINES)]
        out.append(line)
        count += len(line.split())
        i += 1
    return "\n".join(out)


class Hello:
    """A Flask hello-world under the same gunicorn config."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        env = {**os.environ, "PORT": str(self.port), "HOST": "127.0.0.1"}
        self.process = subprocess.Popen(
            [str(Path(sys.executable).parent / "gunicorn"), "-c", "gunicorn.conf.py",
             "bench.hello:create_app()"], cwd=PROJECT_ROOT, env=env,
            stdout=open(workdir / "hello.log", "ab"), stderr=subprocess.STDOUT)
        for _ in range(100):
            try:
                if requests.get(self.url, timeout=1).ok:
                    return
            except requests.RequestException:
                time.sleep(0.1)
        raise RuntimeError("hello-world did not start")

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def _children(pid: int) -> list[int]:
    """gunicorn's worker processes (the children of its master)."""
    listed = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True,
                            text=True).stdout.split()
    return [int(child) for child in listed] or [pid]


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _paired(name: str, hello: Hello, run: Callable[[], load.LoadResult], goal: float,
            duration_s: int, connections: int) -> Row:
    """The hello-world run just before the figure's own, so both see the same machine."""
    base = load.run(hello.url, duration_s=duration_s, connections=connections)
    own = run()
    ratio_goal = f">= {goal}x hello"
    return Row(name, own.rps, "hello-world req/s", base.rps, "req/s", goal=ratio_goal,
               met=(own.rps / base.rps) >= goal and own.failures == 0,
               note=f"p50 {own.p50_ms:.1f} / p99 {own.p99_ms:.1f} ms; "
                    f"{own.failures} failed of {own.requests}")


def http_figures(workdir: Path, duration_s: int, connections: int) -> list[Row]:
    service = Service(workdir / "service", extra_env=BENCH_ENV).start()
    hello = Hello(workdir)
    try:
        token = service.new_admin_token("Bench Clinic")
        client = Client(service.base, token)
        auth = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        body = {"patient_id": "pat-bench", "provider_id": "prov-1",
                "session_date": "2026-11-20T15:00:00Z"}
        with ThreadPoolExecutor(8) as pool:
            ids = list(pool.map(
                lambda _: Client(service.base, token).call(
                    "POST", "/api/therapy-sessions", body).json()["id"],
                range(SEEDED_SESSIONS)))
        assert client.call("GET", f"/api/therapy-sessions/{ids[0]}").ok
        if service.kind == "postgresql":
            # What autovacuum does within a minute of a bulk load (statistics, visibility map):
            # measure the steady state, not a table the planner has never looked at.
            pg_admin(service.env["DATABASE_URL"], "VACUUM ANALYZE")
        base = service.base
        runs: list[tuple[str, Callable[[], load.LoadResult], float]] = [
            ("GET /api/therapy-sessions?page_size=20 (1,000 rows)", lambda: load.run(
                f"{base}/api/therapy-sessions?page_size=20", headers=auth,
                duration_s=duration_s, connections=connections), READ_GOAL),
            ("GET /api/therapy-sessions/{id}", lambda: load.run(
                f"{base}/api/therapy-sessions/{ids[0]}", headers=auth,
                duration_s=duration_s, connections=connections), READ_GOAL),
            ("POST /api/therapy-sessions", lambda: load.run(
                f"{base}/api/therapy-sessions", method="POST", body=json.dumps(body),
                headers=auth, duration_s=duration_s, connections=connections), READ_GOAL),
        ]
        texts = [(f"{words:,} words", transcript(words)) for words in (1_000, 5_000)]
        # Six lines said over and over read faster than a session does (each distinct turn is
        # read once): the same figure on an ordinary session written apart, every turn new.
        written_apart = next(s["transcript"] for s in bench_sessions()
                             if s["id"] == WRITTEN_APART)
        texts.append((f"{len(written_apart.split()):,} words written apart", written_apart))
        for label, text in texts:
            payload = json.dumps({"session_transcript": text})
            runs.append((f"POST /api/therapy/analyze-session, {label}, rules",
                         lambda payload=payload: load.run(
                             f"{base}/api/therapy/analyze-session", method="POST",
                             body=payload, headers=auth, duration_s=duration_s,
                             connections=connections), ANALYSIS_GOAL))
        rows = [_paired(name, hello, run, goal, duration_s, connections)
                for name, run, goal in runs]
        web_rss = max(_rss_mb(pid) for pid in _children(service.web.pid))
        hello_rss = max(_rss_mb(pid) for pid in _children(hello.process.pid))
        worker_rss = _rss_mb(service.workers[0].pid)
        rows.append(Row("web process RSS after the load", web_rss, "hello-world web RSS MB",
                        hello_rss, "MB"))
        rows.append(Row("worker process RSS after the load", worker_rss, "-", None, "MB"))
        return rows
    finally:
        hello.stop()
        service.stop()


def _safety(workdir: Path, duration_s: int, connections: int) -> list[Row]:
    from bench.safety import safety_figures  # imports figures' transcript(): import it late

    return safety_figures(workdir, duration_s, connections)


def _fresh_storage(workdir: Path) -> tuple[dict, Callable[[], None]]:
    """An app configuration on a database and Redis of its own (PostgreSQL + Redis from the
    environment, or SQLite + the embedded Redis), and how to drop them afterwards."""
    workdir.mkdir(parents=True, exist_ok=True)
    config = {"INSTANCE_PATH": str(workdir / "instance"), "LOG_LEVEL": "WARNING",
              "RATELIMIT_ENABLED": False, "QUEUE_PREFIX": f"bench-{workdir.name}-"}
    pg_url = os.environ.get("TEST_DATABASE_URL")
    if not pg_url:
        return config, lambda: None
    from tests.e2e.service import pg_admin

    name = f"cws_bench_{os.getpid()}_{workdir.name}".replace("-", "_")
    pg_admin(pg_url, f"CREATE DATABASE {name}")
    config["DATABASE_URL"] = f"{pg_url.rsplit('/', 1)[0]}/{name}"
    redis_db = os.environ.get("TEST_REDIS_DB", DEFAULT_BENCH_REDIS_DB)
    config["REDIS_URL"] = f"{os.environ.get('TEST_REDIS_URL', 'redis://127.0.0.1:6379')}/{redis_db}"
    return config, lambda: pg_admin(pg_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def workflow_figures(workdir: Path, duration_s: int, connections: int) -> list[Row]:
    from app import create_app
    from bench import workflow_steps

    config, drop = _fresh_storage(workdir)
    try:
        app = create_app({**config, "JOB_SWEEP_AFTER_S": 3600})
        rates = workflow_steps.measure(app, jobs=200, chain=5, rounds=3)
    finally:
        drop()
    steps, fork = rates["drain app worker, node steps"], rates["drain rq Worker (fork)"]
    enqueue, plain = rates["enqueue jobs.queue.enqueue"], rates["enqueue Queue.enqueue"]
    paired = rates[workflow_steps.ENQUEUE_RATIO]
    txn_paired = rates[workflow_steps.TXN_ENQUEUE_RATIO]
    return [
        Row("workflow node steps, 1 worker", steps, "RQ forking Worker no-op jobs/s", fork,
            "steps/s", goal=">= 2x", met=steps / fork >= 2),
        Row("workflow node steps, 1 worker", steps, "RQ SimpleWorker no-op jobs/s",
            rates["drain rq SimpleWorker"], "steps/s"),
        Row("live-session analysis jobs (20 turns), 1 worker",
            rates[workflow_steps.ANALYSIS_DRAIN], "RQ forking Worker no-op jobs/s", fork,
            "jobs/s"),
        Row("durable enqueue (row + push)", enqueue, "Queue.enqueue jobs/s", plain, "jobs/s",
            goal=">= 0.5x", met=paired >= 0.5, note=f"paired rounds {paired:.3f}x"),
        Row("durable enqueue in the caller's transaction", rates[workflow_steps.TXN_ENQUEUE],
            "Queue.enqueue jobs/s", plain, "jobs/s", note=f"paired rounds {txn_paired:.3f}x"),
    ]


def voice_figures(workdir: Path, duration_s: int, connections: int) -> list[Row]:
    from bench import voice_ingest

    result = voice_ingest.measure(events=1000, concurrency=connections * 2, rate=200.0,
                                  seconds=duration_s, assistant_requests=200)
    (_, bare_rate, _, bare_p99), (_, rate, _, p99) = result["rows"]
    assistant_p99 = voice_ingest.pct(result["assistant"], 0.99)
    return [
        Row("signed transcript events", rate, "bare HMAC endpoint events/s", bare_rate,
            "events/s", goal=">= 0.5x", met=rate / bare_rate >= 0.5),
        Row("signed transcript events at 200/s, p99", p99, "bare HMAC endpoint p99 ms",
            bare_p99, "ms", goal="< 50 ms", met=p99 < 50),
        Row("assistant-request p99", assistant_p99, "-", None, "ms", goal="< 50 ms",
            met=assistant_p99 < 50),
    ]


def organization_figures(workdir: Path, duration_s: int, connections: int) -> list[Row]:
    import statistics

    from app import create_app
    from bench import provisioning_usage as bench_orgs

    config, drop = _fresh_storage(workdir)
    try:
        config["PLATFORM_ADMIN_TOKEN"] = bench_orgs.PLATFORM_TOKEN
        result = bench_orgs.measure(create_app(config), config, events=1_000_000, runs=10,
                                    provisionings=5)
    finally:
        drop()
    provision_ms = statistics.median(result["provisioning"]) * 1000
    report_ms = statistics.median(result["report"]) * 1000
    plain_ms = statistics.median(result["plain"]) * 1000
    return [
        Row("provisioning end to end, 1 worker (p50 of 5)", provision_ms, "-", None, "ms",
            goal="< 2000 ms", met=provision_ms < 2000),
        Row("usage, 1M events, 30 days by day (p50)", report_ms,
            "hand-written GROUP BY ms", plain_ms, "ms", goal="< 150 ms",
            met=report_ms < 150 and result["same_total"]),
    ]


GROUPS: dict[str, Callable[[Path, int, int], list[Row]]] = {
    "http": http_figures,
    "safety": _safety,
    "workflows": workflow_figures,
    "voice": voice_figures,
    "organizations": organization_figures,
}


def run_all(workdir: Path, *, duration_s: int, connections: int,
            only: list[str] | None = None) -> list[Row]:
    if not load.wrk_available():
        raise SystemExit("bench: wrk is not installed (Debian: apt-get install wrk)")
    rows: list[Row] = []
    for name, group in GROUPS.items():
        if only and name not in only:
            continue
        started = time.monotonic()
        rows.extend(group(workdir / name, duration_s, connections))
        print(f"bench: {name} measured in {time.monotonic() - started:.0f} s", file=sys.stderr,
              flush=True)
    return rows
