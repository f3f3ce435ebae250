"""The one way work is queued.

`enqueue` writes a `JobRecord` in the caller's transaction and pushes the RQ job only after
that transaction commits, so a worker never sees a job whose data is not yet visible, and a
Redis outage loses nothing: `sweep` re-pushes every open record that Redis no longer knows.
Job ids are deterministic (domain, entity, attempt), so a re-push never duplicates work.
"""

from __future__ import annotations

import json
import logging
import math
import time
import zlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from importlib import import_module
from typing import Any

from flask import Flask, current_app, has_app_context
from redis import Redis
from redis.commands.core import Script
from redis.exceptions import RedisError
from rq import Queue, Retry
from rq.exceptions import InvalidJobOperation, NoSuchJobError
from rq.job import Job, JobStatus, validate_job_id
from rq.serializers import DefaultSerializer
from rq.utils import now as rq_now

from jobs.redis_conn import get_redis
from models.base import db, utcnow
from models.jobs import (
    DEFAULT_MAX_ATTEMPTS,
    OPEN_JOB_STATUSES,
    QUEUE_ANALYSIS,
    QUEUE_DEFAULT,
    QUEUE_NAMES,
    QUEUE_PROVISIONING,
    QUEUE_WEBHOOKS,
    QUEUE_WORKFLOWS,
    JobRecord,
    job_cancelled,
    job_id,
    job_recorded,
    record_job,
)

logger = logging.getLogger(__name__)

RETRY_INTERVALS_S = (5, 30, 120)
JOB_TIMEOUT_S = 600
RESULT_TTL_S = 24 * 3600
FAILURE_TTL_S = 7 * 24 * 3600
_RQ_TIMESTAMP = "%Y-%m-%dT%H:%M:%S.%fZ"  # rq.utils.utcformat
__all__ = [
    "QUEUE_ANALYSIS", "QUEUE_DEFAULT", "QUEUE_NAMES", "QUEUE_PROVISIONING", "QUEUE_WEBHOOKS",
    "QUEUE_WORKFLOWS", "enqueue", "fail", "get_queue", "init_app", "job_id", "mark", "push",
    "resolve", "sweep",
]


def init_app(app: Flask) -> None:
    """Push every job recorded from now on once its transaction commits."""
    job_recorded.connect(_push_after_commit)
    job_cancelled.connect(_cancel_after_commit)


def _push_after_commit(record: JobRecord, delay_s: float = 0) -> None:
    # Dropped by a rollback, also of a savepoint (models.base.Database): runs only for a row
    # that was committed.
    app = current_app._get_current_object()
    db.after_commit(lambda: _push_quietly(app, record, delay_s))


def _cancel_after_commit(record_id: str) -> None:
    app = current_app._get_current_object()
    db.after_commit(lambda: _cancel_quietly(app, record_id))


_WAITING = (JobStatus.QUEUED, JobStatus.SCHEDULED, JobStatus.DEFERRED)


def _cancel_quietly(app: Flask, record_id: str) -> None:
    """Take a cancelled job off its queue (queue statistics count it as canceled, not queued).
    Best effort: a copy left in Redis runs, finds its row's domain closed and does nothing."""
    with app.app_context():
        try:
            job = Job.fetch(record_id, connection=get_redis())
            if job.get_status() in _WAITING:
                job.cancel()
        except (NoSuchJobError, InvalidJobOperation, RedisError):
            logger.info("job %s: not taken off its queue (gone, started or redis down)",
                        record_id)


def queue_name(name: str) -> str:
    prefix = current_app.config.get("QUEUE_PREFIX") or ""
    return f"{prefix}{name}"


def get_queue(name: str, connection: Redis | None = None) -> Queue:
    return Queue(queue_name(name), connection=connection or get_redis())


def _func_path(func: Callable[..., Any]) -> str:
    return f"{func.__module__}.{func.__qualname__}"


def resolve(path: str) -> Callable[..., Any]:
    module, _, name = path.rpartition(".")
    return getattr(import_module(module), name)


def enqueue(func: Callable[..., Any], *args: Any, id: str, queue: str = QUEUE_DEFAULT,
            max_attempts: int = DEFAULT_MAX_ATTEMPTS,
            on_failure: Callable[..., Any] | None = None, delay_s: float = 0) -> JobRecord:
    """Record the job and queue it once the surrounding transaction (if any) commits.

    `on_failure(*args, error)` runs once the last attempt has failed. Enqueueing the same id
    twice is a no-op for the second call. `delay_s` schedules it for later (RQ's scheduler,
    which every worker runs); if Redis loses it, the sweeper pushes it at once. Services,
    which may not import jobs, call `models.jobs.record_job` with the dotted paths instead."""
    return record_job(_func_path(func), *args, id=id, queue=queue, max_attempts=max_attempts,
                      on_failure=_func_path(on_failure) if on_failure else None,
                      delay_s=delay_s)


def _push_quietly(app: Flask, record: JobRecord, delay_s: float = 0) -> None:
    if has_app_context() and current_app._get_current_object() is app:
        _push_or_leave_pending(record, delay_s)  # the usual case: committed inside the app
        return
    with app.app_context():
        _push_or_leave_pending(record, delay_s)


def _push_or_leave_pending(record: JobRecord, delay_s: float) -> None:
    try:
        _push_job(record, delay_s=delay_s)
    except RedisError:
        # Marked "pending" (not pushed); the sweeper pushes it when Redis is back.
        mark(record.id, "pending")
        logger.warning("job %s not pushed (redis unavailable); left for the sweeper",
                       record.id)


def push(record: JobRecord, connection: Redis | None = None, delay_s: float = 0) -> None:
    """Put the RQ job for `record` on its queue (idempotent per job id) and mark it queued."""
    _push_job(record, connection, delay_s)
    (JobRecord.update(status="queued", updated_at=utcnow())
     .where((JobRecord.id == record.id) & (JobRecord.status == "pending")).execute())


# Registers the queue, writes the job's hash and queues its id: what `Queue.enqueue_call`
# sends for a job without dependencies (in MULTI/EXEC), as one command, atomic as MULTI/EXEC
# is, with one reply to read instead of six. The fields that are the same for every job of a
# shape travel as one JSON array (ARGV[5]): packing them one by one was a third of the push.
_PUSH = Script(None, b"""
redis.call('SADD', KEYS[1], KEYS[2])
redis.call('HSET', KEYS[3], 'created_at', ARGV[2], 'enqueued_at', ARGV[2], 'data', ARGV[3],
           'description', ARGV[4], unpack(cjson.decode(ARGV[5])))
return redis.call('RPUSH', KEYS[2], ARGV[1])
""")
_VARYING_FIELDS = ("created_at", "enqueued_at", "data", "description")
_JOB_FIELDS: dict[tuple[str, int, tuple[int, ...]], str] = {}


def _job_fields(connection: Redis, origin: str, retries: int, intervals: tuple[int, ...]) -> str:
    """RQ's own hash of a queued job with these options (`Job.to_dict`) less the fields that
    change from job to job, as a JSON array of names and values; computed once per shape."""
    key = (origin, retries, intervals)
    fields = _JOB_FIELDS.get(key)
    if fields is None:
        job = Job.create("_", id="_", connection=connection, timeout=JOB_TIMEOUT_S,
                         result_ttl=RESULT_TTL_S, failure_ttl=FAILURE_TTL_S,
                         retry=Retry(max=retries, interval=list(intervals)) if retries else None,
                         origin=origin, status=JobStatus.QUEUED)
        encode = connection.get_encoder().encode  # the bytes redis-py would send
        fields = _JOB_FIELDS[key] = json.dumps([
            encode(item).decode() for name, value in job.to_dict().items()
            if name not in _VARYING_FIELDS for item in (name, value)])
    return fields


def _push_job(record: JobRecord, connection: Redis | None = None, delay_s: float = 0) -> None:
    """The RQ job for `record`, saved and queued (or scheduled) in one Redis round trip."""
    retries = max(record.max_attempts - 1, 0)
    intervals = current_app.config.get("JOB_RETRY_INTERVALS_S") or RETRY_INTERVALS_S
    connection = connection or get_redis()
    name = queue_name(record.queue)
    description = f"{record.func}({', '.join(map(str, record.args))})"
    if delay_s > 0:
        queue = Queue(name, connection=connection)
        # RQ's scheduler keeps whole seconds, cut down: the next whole second after the delay,
        # so that a job never runs before it (a receiver's Retry-After is a floor).
        at = datetime.fromtimestamp(math.ceil(time.time() + delay_s), UTC)
        with connection.pipeline() as pipe:
            queue.enqueue_at(at, resolve(record.func), pipeline=pipe,
                             args=tuple(record.args), job_id=record.id,
                             job_timeout=JOB_TIMEOUT_S, result_ttl=RESULT_TTL_S,
                             failure_ttl=FAILURE_TTL_S, description=description,
                             retry=Retry(max=retries, interval=list(intervals[:retries]))
                             if retries else None)
            pipe.execute()
        return
    # The hash `Job.create(...).to_dict()` would give, without building a Job per push (its
    # construction and serialisation cost as much CPU as the round trip);
    # tests/jobs/test_queue.py compares the two.
    validate_job_id(record.id)  # as Job.create would
    stamp = rq_now().strftime(_RQ_TIMESTAMP)
    data = zlib.compress(DefaultSerializer.dumps((record.func, None, tuple(record.args), {})))
    _PUSH(keys=(Queue.redis_queues_keys, Queue.redis_queue_namespace_prefix + name,
                Job.key_for(record.id)),
          args=(record.id, stamp, data, description,
                _job_fields(connection, name, retries, tuple(intervals[:retries]))),
          client=connection)


def sweep(older_than_s: int | None = None) -> list[str]:
    """Re-push open jobs that Redis lost (restart without persistence, push that failed).

    Only rows untouched for `older_than_s` are looked at, so a job that is merely waiting in
    the queue right now is left alone; RQ's own registry cleanup handles dead workers."""
    connection = get_redis()
    threshold = older_than_s if older_than_s is not None else \
        current_app.config["JOB_SWEEP_AFTER_S"]
    cutoff = utcnow() - timedelta(seconds=threshold)
    pushed = []
    # Read to the end before the first write: a row written while this read is still open
    # would upgrade SQLite's read snapshot to a write, which fails at once ("database is
    # locked", no busy wait) if another connection has committed since.
    stale = list(JobRecord.select().where(
        JobRecord.status.in_(OPEN_JOB_STATUSES) & (JobRecord.updated_at <= cutoff)))
    for record in stale:
        try:
            job = Job.fetch(record.id, connection=connection)
        except NoSuchJobError:
            job = None
        if job is not None:
            if job.get_status() == JobStatus.FAILED:
                # Failed outside a work-horse (e.g. abandoned by a dead worker, no retry left).
                fail(record, "worker died while running the job")
            continue
        mark(record.id, "pending")
        push(record, connection)
        pushed.append(record.id)
        logger.info("re-queued lost job %s", record.id)
    return pushed


def mark(record_id: str, status: str, error: str | None = None,
         count_attempt: bool = False) -> None:
    """Record a job's progress on its durable row; "started" (or `count_attempt`) counts an
    attempt."""
    fields: dict[str, Any] = {"status": status, "updated_at": utcnow()}
    if status == "started" or count_attempt:
        fields["attempts"] = JobRecord.attempts + 1
    if status in ("succeeded", "failed"):
        fields["finished_at"] = utcnow()
    if error is not None:
        fields["last_error"] = error
    JobRecord.update(**fields).where(JobRecord.id == record_id).execute()


def fail(record: JobRecord, error: str) -> None:
    """Final failure: record it and let the job's domain make it visible."""
    mark(record.id, "failed", error)
    if record.on_failure:
        resolve(record.on_failure)(*record.args, error)
