"""Workflow node steps per second through the engine, beside raw RQ no-op jobs on the same
Redis with the same worker count (one), in the same run, in alternating rounds (medians):

* enqueue: the project's `jobs.queue.enqueue` (durable row + push after commit) against plain
  `Queue.enqueue`;
* drain: RQ's default forking `Worker` and its `SimpleWorker` on no-op jobs, against the
  app's worker (`jobs.worker.run_worker`, what `flask --app app worker --burst` runs) on
  workflow executions made of `set` nodes, counted in node steps.

    .venv/bin/python bench/workflow_steps.py [--jobs 200] [--enqueue-jobs 1000] [--chain 5]
                                             [--rounds 3]

Enqueues are timed over more jobs than drains: 200 enqueues take about a tenth of a second,
a window in which the machine's other work swung the ratio between 0.4x and 0.6x from run to
run.

Uses a throw-away SQLite database and an embedded Redis unless DATABASE_URL / REDIS_URL are set.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rq import Queue, SimpleWorker, Worker

from app import create_app
from models.base import db

BENCH_PREFIX = "bench-"


def noop() -> None:
    """The raw RQ job: nothing to do, so only the queue's own cost is measured."""


def _noop():
    """`noop` as workers import it (by module path, never from __main__)."""
    from importlib import import_module

    return import_module("bench.workflow_steps").noop


def _rate(count: int, seconds: float) -> float:
    return count / seconds if seconds else float("inf")


def _raw_rq(connection, jobs: int, enqueue_jobs: int) -> dict[str, float]:
    queue = Queue(f"{BENCH_PREFIX}raw", connection=connection)
    queue.empty()
    started = time.perf_counter()
    for _ in range(enqueue_jobs):
        queue.enqueue(_noop())
    rates = {"enqueue Queue.enqueue": _rate(enqueue_jobs, time.perf_counter() - started)}
    queue.empty()
    for name, worker_class in (("drain rq Worker (fork)", Worker),
                               ("drain rq SimpleWorker", SimpleWorker)):
        if not queue.count:
            for _ in range(jobs):
                queue.enqueue(_noop())
        worker = worker_class([queue], connection=connection)
        started = time.perf_counter()
        worker.work(burst=True, logging_level="WARNING")
        rates[name] = _rate(jobs, time.perf_counter() - started)
    return rates


def _chain_workflow(app, chain: int):
    from models.workflows import AgentWorkflow
    from services.organizations import create_organization

    nodes = [{"id": f"n{i}", "type": "set", "config": {"values": {"i": i}},
              "next": f"n{i + 1}" if i + 1 < chain else None} for i in range(chain)]
    with app.app_context(), db.connection_context():
        org = create_organization(f"Bench {time.time_ns()}")
        workflow = AgentWorkflow.create(organization=org.id, name="Chain",
                                        definition={"start": "n0", "nodes": nodes})
    return org, workflow


def _engine(app, org, workflow, jobs: int, enqueue_jobs: int, chain: int, round_: int
            ) -> dict[str, float]:
    from jobs.queue import enqueue, job_id
    from jobs.worker import run_worker
    from services.workflows import engine as workflows

    with app.app_context(), db.connection_context():
        started = time.perf_counter()
        for n in range(enqueue_jobs):
            with db.atomic():  # its own transaction: the row is committed before the push
                enqueue(_noop(), id=job_id("bench", org.id, round_, n))
        rates = {"enqueue jobs.queue.enqueue": _rate(enqueue_jobs,
                                                     time.perf_counter() - started)}
    run_worker(app, burst=True)  # drain those no-op jobs (not timed)
    executions = max(jobs // chain, 1)
    with app.app_context(), db.connection_context():
        for _ in range(executions):
            workflows.start_execution(org.id, workflow, {})
    started = time.perf_counter()
    run_worker(app, burst=True)
    rates["drain app worker, node steps"] = _rate(executions * chain,
                                                  time.perf_counter() - started)
    return rates


def measure(app, jobs: int, chain: int = 5, rounds: int = 3,
            enqueue_jobs: int = 1000) -> dict[str, float]:
    """Median rates of `rounds` rounds of `jobs` jobs, RQ's and the project's measured in
    turn within each round, so that load from elsewhere on the machine weighs on both."""
    org, workflow = _chain_workflow(app, chain)
    samples: dict[str, list[float]] = {}
    for round_ in range(rounds):
        rates = {**_raw_rq(app.extensions["redis"], jobs, enqueue_jobs),
                 **_engine(app, org, workflow, jobs, enqueue_jobs, chain, round_)}
        for name, rate in rates.items():
            samples.setdefault(name, []).append(rate)
    return {name: statistics.median(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=200, help="jobs per drain")
    parser.add_argument("--enqueue-jobs", type=int, default=1000, help="jobs per timed enqueue")
    parser.add_argument("--chain", type=int, default=5, help="set nodes per execution")
    parser.add_argument("--rounds", type=int, default=3, help="medians of this many rounds")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="cws-bench-"))
    app = create_app({
        "INSTANCE_PATH": str(folder),
        "DATABASE_URL": os.environ.get("DATABASE_URL") or f"sqlite:///{folder / 'bench.db'}",
        "REDIS_URL": os.environ.get("REDIS_URL") or "",
        "QUEUE_PREFIX": BENCH_PREFIX, "LOG_LEVEL": "WARNING", "JOB_SWEEP_AFTER_S": 3600,
    })
    rates = measure(app, args.jobs, args.chain, args.rounds, args.enqueue_jobs)
    fork = rates["drain rq Worker (fork)"]
    plain = rates["enqueue Queue.enqueue"]
    print(f"{'measure':36} {'per second':>12} {'vs rq':>8}")
    for name, rate in rates.items():
        base = plain if name.startswith("enqueue") else fork
        print(f"{name:36} {rate:12.1f} {rate / base:7.2f}x")
    print(f"(medians of {args.rounds} rounds of {args.jobs} jobs, {args.enqueue_jobs} "
          f"enqueued; {db.obj.__class__.__name__}; "
          f"one worker each; "
          f"node steps compared with rq's forking Worker)")


if __name__ == "__main__":
    main()
