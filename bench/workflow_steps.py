"""Workflow node steps per second through the engine, beside raw RQ no-op jobs on the same
Redis with the same worker count (one), in the same run, in alternating rounds (medians):

* enqueue: the project's `jobs.queue.enqueue` (durable row + push after commit) against plain
  `Queue.enqueue`, timed back to back in each round (which goes first alternates) and
  compared round by round (the median of the paired ratios). A lone enqueue, as
  `Queue.enqueue` is one: its INSERT commits on its own before the push. An enqueue inside a
  caller's transaction (`db.atomic()` around it, BEGIN with the INSERT, then COMMIT) is
  timed too;
* drain: RQ's default forking `Worker` and its `SimpleWorker` on no-op jobs, against the
  app's worker (`jobs.worker.run_worker`, what `flask --app app worker --burst` runs) on
  workflow executions made of `set` nodes, counted in node steps, and on the analysis jobs of
  live clinical sessions (each a forked work-horse: the session's LIVE_TURNS turns, the http
  benchmark's lines, analysed and the analysis stored on the session), ANALYSIS_JOBS a round.

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
from itertools import cycle, islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rq import Queue, SimpleWorker, Worker

from app import create_app
from jobs.queue import QUEUE_DEFAULT, enqueue, get_queue, job_id
from jobs.worker import run_worker
from models.base import db
from models.jobs import JobRecord

BENCH_PREFIX = "bench-"
# Live clinical sessions stopped per round, each queuing one analysis job, and their turns.
ANALYSIS_JOBS = 40
LIVE_TURNS = 20
ANALYSIS_DRAIN = "drain app worker, analysis jobs"
TXN_ENQUEUE = "enqueue jobs.queue.enqueue, in a txn"
ENQUEUE_RATIO = "paired ratio: lone enqueue"
TXN_ENQUEUE_RATIO = "paired ratio: enqueue in a txn"


def noop() -> None:
    """The raw RQ job: nothing to do, so only the queue's own cost is measured."""


def _noop():
    """`noop` as workers import it (by module path, never from __main__)."""
    from importlib import import_module

    return import_module("bench.workflow_steps").noop


def _rate(count: int, seconds: float) -> float:
    return count / seconds if seconds else float("inf")


def _raw_enqueue(queue: Queue, enqueue_jobs: int) -> float:
    started = time.perf_counter()
    for _ in range(enqueue_jobs):
        queue.enqueue(_noop())
    return _rate(enqueue_jobs, time.perf_counter() - started)


def _project_enqueue(org, enqueue_jobs: int, round_: int, in_transaction: bool) -> float:
    label = "txn" if in_transaction else "lone"
    started = time.perf_counter()
    for n in range(enqueue_jobs):
        jid = job_id("bench", org.id, label, round_, n)
        if in_transaction:
            with db.atomic():  # the row is committed with the transaction, then pushed
                enqueue(_noop(), id=jid)
        else:
            enqueue(_noop(), id=jid)  # the INSERT commits on its own, then the push
    return _rate(enqueue_jobs, time.perf_counter() - started)


def _enqueues(app, org, enqueue_jobs: int, round_: int) -> dict[str, float]:
    """Plain RQ's and the project's enqueues back to back on the same Redis, the order
    alternating from round to round so that neither always runs first."""
    connection = app.extensions["redis"]
    raw = Queue(f"{BENCH_PREFIX}raw", connection=connection)
    raw.empty()
    runs = [
        ("enqueue Queue.enqueue", lambda: _raw_enqueue(raw, enqueue_jobs)),
        ("enqueue jobs.queue.enqueue", lambda: _project_enqueue(org, enqueue_jobs, round_,
                                                                in_transaction=False)),
        (TXN_ENQUEUE, lambda: _project_enqueue(org, enqueue_jobs, round_,
                                               in_transaction=True)),
    ]
    if round_ % 2:
        runs.reverse()
    rates = {}
    with app.app_context(), db.connection_context():
        for name, run in runs:
            rates[name] = run()
        # Taken back (not timed): a forking worker would spend a minute on 2,000 no-ops.
        get_queue(QUEUE_DEFAULT).empty()
        JobRecord.delete().where(JobRecord.id.startswith(job_id("bench", org.id))).execute()
    raw.empty()
    return rates


def _raw_rq(connection, jobs: int) -> dict[str, float]:
    queue = Queue(f"{BENCH_PREFIX}raw", connection=connection)
    queue.empty()
    rates = {}
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


def _engine(app, org, workflow, jobs: int, chain: int) -> dict[str, float]:
    from services.workflows import engine as workflows

    executions = max(jobs // chain, 1)
    with app.app_context(), db.connection_context():
        for _ in range(executions):
            workflows.start_execution(org.id, workflow, {})
    started = time.perf_counter()
    run_worker(app, burst=True)
    return {"drain app worker, node steps": _rate(executions * chain,
                                                  time.perf_counter() - started)}


def _live_turns(count: int) -> list[tuple[str, str]]:
    """The http benchmark's session lines (`bench.figures.LINES`) as a live session's chunks."""
    from bench.figures import LINES

    turns = [line.split(": ", 1) for line in LINES]
    return [(speaker.lower(), text) for speaker, text in islice(cycle(turns), count)]


def _analysis_jobs(app, org, jobs: int) -> dict[str, float]:
    from services import clinical
    from services.sessions import create_session

    turns = _live_turns(LIVE_TURNS)
    with app.app_context(), db.connection_context():
        for index in range(jobs):
            session = create_session(org.id, {"patient_id": f"bench-{index}",
                                              "provider_id": "bench",
                                              "session_date": "2026-11-20T15:00:00Z"})
            live = clinical.start(org.id, session.id)
            for speaker, text in turns:
                clinical.append_chunk(live, speaker, text)
            clinical.stop(live)
    started = time.perf_counter()
    run_worker(app, burst=True)
    return {ANALYSIS_DRAIN: _rate(jobs, time.perf_counter() - started)}


def measure(app, jobs: int, chain: int = 5, rounds: int = 3,
            enqueue_jobs: int = 1000) -> dict[str, float]:
    """Median rates of `rounds` rounds of `jobs` jobs, RQ's and the project's measured in
    turn within each round, so that load from elsewhere on the machine weighs on both; and,
    under ENQUEUE_RATIO / TXN_ENQUEUE_RATIO, the median of each round's enqueue ratio."""
    org, workflow = _chain_workflow(app, chain)
    samples: dict[str, list[float]] = {}
    for round_ in range(rounds):
        rates = {**_enqueues(app, org, enqueue_jobs, round_),
                 **_raw_rq(app.extensions["redis"], jobs),
                 **_engine(app, org, workflow, jobs, chain),
                 **_analysis_jobs(app, org, ANALYSIS_JOBS)}
        plain = rates["enqueue Queue.enqueue"]
        rates[ENQUEUE_RATIO] = rates["enqueue jobs.queue.enqueue"] / plain
        rates[TXN_ENQUEUE_RATIO] = rates[TXN_ENQUEUE] / plain
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
        if name.startswith("paired"):
            continue
        base = plain if name.startswith("enqueue") else fork
        print(f"{name:36} {rate:12.1f} {rate / base:7.2f}x")
    print(f"enqueue, median of the rounds' ratios: lone {rates[ENQUEUE_RATIO]:.3f}x, "
          f"in a transaction {rates[TXN_ENQUEUE_RATIO]:.3f}x")
    print(f"(medians of {args.rounds} rounds of {args.jobs} jobs, {args.enqueue_jobs} "
          f"enqueued; {db.obj.__class__.__name__}; "
          f"one worker each; "
          f"node steps compared with rq's forking Worker)")


if __name__ == "__main__":
    main()
