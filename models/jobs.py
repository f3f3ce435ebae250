"""The durable side of every queued job: RQ carries it, this row makes sure it is not lost.

Jobs are named by dotted path (`"jobs.analysis.analyze_clinical_session"`), as RQ does, so a
service can queue work without importing the job module that calls back into it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache

from blinker import Namespace
from peewee import CharField, IntegerField, TextField

from models.base import BaseModel, JSONField, UTCDateTimeField, db, utcnow

JOB_STATUSES = ("pending", "queued", "started", "succeeded", "failed", "cancelled")
OPEN_JOB_STATUSES = ("pending", "queued", "started")

QUEUE_DEFAULT = "default"
QUEUE_ANALYSIS = "analysis"
QUEUE_WORKFLOWS = "workflows"
QUEUE_PROVISIONING = "provisioning"
QUEUE_WEBHOOKS = "webhooks"
QUEUE_NAMES = (QUEUE_ANALYSIS, QUEUE_WORKFLOWS, QUEUE_PROVISIONING, QUEUE_WEBHOOKS,
               QUEUE_DEFAULT)
DEFAULT_MAX_ATTEMPTS = 3
_UNSAFE_ID_CHARS = re.compile(r"[^A-Za-z0-9_-]")

_signals = Namespace()
# Sent with each newly recorded job; the queue (jobs.queue) pushes it once the caller commits.
job_recorded = _signals.signal("job-recorded")
# Sent with the id of each job cancelled before it started; the queue takes it off RQ's queue
# once the caller commits.
job_cancelled = _signals.signal("job-cancelled")


class JobRecord(BaseModel):
    id = CharField(primary_key=True, max_length=128)  # the deterministic RQ job id
    queue = CharField(max_length=40)
    func = CharField(max_length=200)
    args = JSONField(default=list)
    # Called as on_failure(*args, error) once the last attempt has failed.
    on_failure = CharField(max_length=200, null=True)
    status = CharField(max_length=20, default="pending", index=True)
    attempts = IntegerField(default=0)
    max_attempts = IntegerField(default=3)
    last_error = TextField(null=True)
    created_at = UTCDateTimeField(default=utcnow)
    updated_at = UTCDateTimeField(default=utcnow, index=True)
    finished_at = UTCDateTimeField(null=True)


def job_id(*parts: object) -> str:
    """Deterministic RQ job id from its parts, e.g. job_id("analysis", session_id, attempt)."""
    return "-".join(_UNSAFE_ID_CHARS.sub("_", str(part)) for part in parts)


@cache
def _insert_sql(param: str) -> str:
    """The INSERT every enqueue runs, built once (building it per call costs as much as its
    round trip); the same text on SQLite and PostgreSQL but for the placeholder."""
    fields = JobRecord._meta.sorted_fields
    columns = ", ".join(f'"{field.column_name}"' for field in fields)
    values = ", ".join([param] * len(fields))
    table = JobRecord._meta.table_name
    return (f'INSERT INTO "{table}" ({columns}) VALUES ({values}) '  # noqa: S608 (no input)
            "ON CONFLICT DO NOTHING")


def record_job(func: str, *args: object, id: str, queue: str = QUEUE_DEFAULT,
               max_attempts: int = DEFAULT_MAX_ATTEMPTS, on_failure: str | None = None,
               delay_s: float = 0) -> JobRecord:
    """Record the job `func` (a dotted path) in the caller's transaction.

    `on_failure(*args, error)`, also a dotted path, runs once the last attempt has failed.
    Recording the same id twice is a no-op for the second call (which returns the record it
    was asked to write, not the stored one).

    The row is written as "queued" in one `INSERT … ON CONFLICT DO NOTHING`: the push follows
    the commit, a push that fails writes "pending" back, and a push lost with its process is
    found by the sweeper (an open row whose RQ job Redis does not know). Outside a
    transaction that INSERT commits on its own (one round trip) before the push."""
    record = JobRecord(id=id, queue=queue, func=func, args=list(args), status="queued",
                       max_attempts=max_attempts, on_failure=on_failure)
    params = [field.db_value(record.__data__.get(field.name))
              for field in JobRecord._meta.sorted_fields]
    if db.execute_sql(_insert_sql(db.param), params).rowcount == 1:
        job_recorded.send(record, delay_s=delay_s)
    return record


def cancel_waiting_job(id: str, reason: str) -> bool:
    """In the caller's transaction: the job `id`, if it has not started, will not run (its row
    closed as "cancelled"; RQ's copy is cancelled after the commit). A started job is left to
    end: its domain sees why it should do nothing."""
    now = utcnow()
    closed = (JobRecord.update(status="cancelled", last_error=reason, updated_at=now,
                               finished_at=now)
              .where((JobRecord.id == id) & JobRecord.status.in_(("pending", "queued")))
              .execute())
    if closed:
        job_cancelled.send(id)
    return bool(closed)


@dataclass
class RunningJob:
    """The job a worker runs in its own process, and what the job wrote on its record itself
    (each flag set once that write is committed)."""

    id: str
    started: bool = False
    settled: bool = False


# Set by the worker around a job it runs in-process: the job can then write its record's
# progress in the transactions that commit its own effects, sparing the worker a commit each.
_running_job: ContextVar[RunningJob | None] = ContextVar("running_job", default=None)


@contextmanager
def running_job(id: str) -> Iterator[RunningJob]:
    run = RunningJob(id)
    token = _running_job.set(run)
    try:
        yield run
    finally:
        _running_job.reset(token)


def running_job_started() -> None:
    """In the caller's transaction: the running job (if any) has started one more attempt."""
    run = _running_job.get()
    if run is None:
        return
    (JobRecord.update(status="started", attempts=JobRecord.attempts + 1, updated_at=utcnow())
     .where(JobRecord.id == run.id).execute())
    db.after_commit(lambda: setattr(run, "started", True))


def running_job_succeeded() -> None:
    """In the caller's transaction, the one that commits the job's effect: the running job
    (if any) succeeded. Counts its attempt unless `running_job_started` did."""
    run = _running_job.get()
    if run is None:
        return
    now = utcnow()
    fields = {"status": "succeeded", "updated_at": now, "finished_at": now}
    if not run.started:
        fields["attempts"] = JobRecord.attempts + 1
    JobRecord.update(**fields).where(JobRecord.id == run.id).execute()
    db.after_commit(lambda: setattr(run, "settled", True))
