"""Provisioning end to end with one worker, and the usage report over 1,000,000 events.

1. POST /api/organizations/provision → a `flask worker` process runs the sixteen steps →
   the status resource says `succeeded` (goal: under 2 s).
2. The usage report for 30 days by day over 1,000,000 usage events of one organization (plus
   other organizations' events around it), beside the same sums as a plain hand-written
   `GROUP BY` over the events (UTC days) — goal p50 under 150 ms. The report reads the
   15-minute slot sums that `record_usage` keeps; the load rebuilds them once.

    .venv/bin/python bench/provisioning_usage.py [--events 1000000] [--runs 20]
    DATABASE_URL=postgresql://…/db .venv/bin/python bench/provisioning_usage.py

Uses a throw-away SQLite database and an embedded Redis unless DATABASE_URL / REDIS_URL are
set (on PostgreSQL it empties the usage table of that database).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app import create_app  # noqa: E402
from models.base import db, is_postgres  # noqa: E402
from models.organizations import Organization  # noqa: E402
from models.usage import (  # noqa: E402
    USAGE_METRICS,
    rebuild_rollups,
)
from services.organizations import create_organization  # noqa: E402
from services.organizations.usage import usage_report  # noqa: E402

PLATFORM_TOKEN = "cws_bench-platform-token-0123456789"
WINDOW_DAYS = 30
INSERT_BATCH = 20_000
OTHER_ORGS_SHARE = 0.2


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def bench_provisioning(app, config: dict, runs: int) -> list[float]:
    env = {**os.environ, "DATABASE_URL": app.config["DATABASE_URL"],
           "REDIS_URL": app.config["REDIS_URL_EFFECTIVE"],
           "INSTANCE_PATH": config["INSTANCE_PATH"], "LOG_LEVEL": "WARNING",
           "QUEUE_PREFIX": app.config.get("QUEUE_PREFIX") or ""}
    worker = subprocess.Popen([sys.executable, "-m", "flask", "--app", "app", "worker"],
                              cwd=ROOT, env=env, start_new_session=True,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = app.test_client()
    headers = {"Authorization": f"Bearer {PLATFORM_TOKEN}"}
    times = []
    try:
        time.sleep(2)  # the worker's start-up is not part of a provisioning
        for i in range(runs):
            started = time.perf_counter()
            response = client.post("/api/organizations/provision", headers=headers, json={
                "name": f"Bench Clinic {i} {time.time_ns()}", "admin_email": "a@b.example"})
            url = response.json["status_url"]
            while True:
                status = client.get(url, headers=headers).json["status"]
                if status in ("succeeded", "failed"):
                    break
                time.sleep(0.01)
            times.append(time.perf_counter() - started)
            assert status == "succeeded", status
    finally:
        os.killpg(worker.pid, 15)
        worker.wait()
    return times


def _insert_events(org_id: str, others: list[str], count: int, start: datetime) -> None:
    rng = random.Random(7)
    span = WINDOW_DAYS * 86400
    db.execute_sql("DELETE FROM usage_event")
    placeholder = "%s" if is_postgres() else "?"
    sql = (f"INSERT INTO usage_event (id, organization_id, metric, quantity, at, details) "
           f"VALUES ({', '.join([placeholder] * 6)})")
    total = int(count * (1 + OTHER_ORGS_SHARE))
    for offset in range(0, total, INSERT_BATCH):
        rows = []
        for n in range(offset, min(offset + INSERT_BATCH, total)):
            owner = org_id if n < count else rng.choice(others)
            at = (start + timedelta(seconds=rng.randrange(span))).replace(tzinfo=None)
            metric = rng.choice(USAGE_METRICS)
            quantity = rng.randrange(1, 900) if metric == "llm_tokens" else 1
            rows.append((f"use_{n:012d}", owner, metric, quantity,
                         at if is_postgres() else at.isoformat(sep=" "), "{}"))
        with db.atomic():
            cursor = db.cursor()
            if is_postgres():
                from psycopg2.extras import execute_values

                execute_values(cursor, sql.split("VALUES")[0] + "VALUES %s", rows,
                               page_size=INSERT_BATCH)
            else:
                cursor.executemany(sql, rows)
    # Loaded behind record_usage's back: the slot sums are recomputed from the events.
    rebuild_rollups()
    if is_postgres():
        db.execute_sql("ANALYZE usage_event")
    else:
        db.execute_sql("ANALYZE")


def _hand_written(org_id: str, start: datetime, end: datetime) -> list:
    if is_postgres():
        sql = ("SELECT date_trunc('day', at) AS day, metric, SUM(quantity) FROM usage_event "
               "WHERE organization_id = %s AND at >= %s AND at < %s GROUP BY 1, 2")
        params = (org_id, start.replace(tzinfo=None), end.replace(tzinfo=None))
    else:
        sql = ("SELECT substr(at, 1, 10) AS day, metric, SUM(quantity) FROM usage_event "
               "WHERE organization_id = ? AND at >= ? AND at < ? GROUP BY 1, 2")
        params = (org_id, start.replace(tzinfo=None).isoformat(sep=" "),
                  end.replace(tzinfo=None).isoformat(sep=" "))
    return db.execute_sql(sql, params).fetchall()


def _timed(func, runs: int) -> list[float]:
    func()  # warm the page cache
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        func()
        times.append(time.perf_counter() - started)
    return times


def measure(app, config: dict, events: int, runs: int, provisionings: int) -> dict:
    """Provisioning times, then the usage report and the hand-written GROUP BY over `events`."""
    with app.app_context():
        provisioning = bench_provisioning(app, config, provisionings)
    with app.app_context(), db.connection_context():
        org = create_organization(f"Usage Bench {time.time_ns()}")
        Organization.update(timezone="America/New_York").where(
            Organization.id == org.id).execute()
        org = Organization.get_by_id(org.id)
        others = [create_organization(f"Other {i} {time.time_ns()}").id for i in range(3)]
        end = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
        start = end - timedelta(days=WINDOW_DAYS)
        loading = time.perf_counter()
        _insert_events(org.id, others, events, start)
        loaded = time.perf_counter() - loading
        report = _timed(lambda: usage_report(org, start, end, "day"), runs)
        plain = _timed(lambda: _hand_written(org.id, start, end), runs)
        answer = usage_report(org, start, end, "day")
        check = sum(row[2] for row in _hand_written(org.id, start, end))
    return {"provisioning": provisioning, "report": report, "plain": plain, "loaded": loaded,
            "same_total": sum(answer["totals"].values()) == check, "total": check}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--provisionings", type=int, default=5)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="cws-bench-"))
    config = {"INSTANCE_PATH": str(folder / "instance"), "PLATFORM_ADMIN_TOKEN": PLATFORM_TOKEN,
              "RATELIMIT_ENABLED": False, "LOG_LEVEL": "WARNING"}
    if os.environ.get("DATABASE_URL"):
        config["DATABASE_URL"] = os.environ["DATABASE_URL"]
    app = create_app(config)
    engine = "postgresql" if app.config["DATABASE_URL"].startswith("postgres") else "sqlite"
    result = measure(app, config, args.events, args.runs, args.provisionings)

    print(f"engine: {engine}; {args.events:,} events of one organization over {WINDOW_DAYS} "
          f"days (+{OTHER_ORGS_SHARE:.0%} of other organizations'), loaded in "
          f"{result['loaded']:.1f} s")
    print(f"{'measure':<58}{'p50':>11}{'p95':>11}")
    rows = [
        ("provisioning, POST to succeeded (1 worker)", result["provisioning"]),
        ("usage report, 30 days by day, org timezone (service)", result["report"]),
        ("hand-written GROUP BY, UTC days (SQL only)", result["plain"]),
    ]
    for label, times in rows:
        ordered = sorted(times)
        p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
        print(f"{label:<58}{_ms(statistics.median(times)):>11}{_ms(p95):>11}")
    print(f"same total from both: {result['same_total']} ({result['total']:,})")


if __name__ == "__main__":
    main()
