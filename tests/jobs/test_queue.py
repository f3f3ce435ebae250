"""The durable queue: jobs are pushed after commit, run by real RQ workers, survive a Redis
that forgot them, and a final failure reaches the job's domain."""

import threading

import pytest
from rq.job import Job

import jobs.queue
from jobs.queue import enqueue, job_id, sweep
from models.base import db, open_database
from models.jobs import JobRecord
from models.usage import UsageEvent
from tests.jobs.sample_jobs import always_fails, meter_one, note_failure


def _labels(org, metric="workflow_executions"):
    return sorted(e.details["label"] for e in UsageEvent.select().where(
        (UsageEvent.organization == org.id) & (UsageEvent.metric == metric)))


def _in_redis(app, jid):
    return Job.exists(jid, connection=app.extensions["redis"])


def test_job_is_pushed_only_after_the_transaction_commits(app, org):
    jid = job_id("meter", org.id, 1)
    with app.app_context():
        with db.atomic():
            enqueue(meter_one, org.id, "a", id=jid)
            assert not _in_redis(app, jid)
        assert _in_redis(app, jid)
        assert JobRecord.get_by_id(jid).status == "queued"


def test_rolled_back_enqueue_leaves_nothing(app, org):
    jid = job_id("meter", org.id, 2)
    with app.app_context():
        with db.atomic() as txn:
            enqueue(meter_one, org.id, "b", id=jid)
            txn.rollback()
        assert JobRecord.get_or_none(JobRecord.id == jid) is None
        assert not _in_redis(app, jid)


def test_worker_runs_job_and_records_success(app, org, run_worker):
    jid = job_id("meter", org.id, 3)
    with app.app_context():
        enqueue(meter_one, org.id, "ran", id=jid)
    run_worker()
    record = JobRecord.get_by_id(jid)
    assert (record.status, record.attempts) == ("succeeded", 1)
    assert _labels(org) == ["ran"]


def test_same_job_id_runs_once(app, org, run_worker):
    jid = job_id("meter", org.id, 4)
    with app.app_context():
        enqueue(meter_one, org.id, "once", id=jid)
        enqueue(meter_one, org.id, "once", id=jid)
    run_worker()
    assert _labels(org) == ["once"]


def test_job_lost_by_redis_is_requeued_by_the_sweeper(app, org, run_worker):
    jid = job_id("meter", org.id, 5)
    with app.app_context():
        enqueue(meter_one, org.id, "survived", id=jid)
    app.extensions["redis"].flushdb()  # Redis restarted without persistence
    run_worker()
    assert _labels(org) == ["survived"]
    assert JobRecord.get_by_id(jid).status == "succeeded"


def test_enqueue_while_redis_is_down_is_kept_and_run_later(make_app, org, run_worker):
    down = make_app(REDIS_URL="redis://127.0.0.1:1/0")
    jid = job_id("meter", org.id, 6)
    with down.app_context():
        enqueue(meter_one, org.id, "later", id=jid)
    assert JobRecord.get_by_id(jid).status == "pending"
    run_worker()
    assert _labels(org) == ["later"]


def test_sweeper_leaves_recent_and_present_jobs_alone(app, org):
    jid = job_id("meter", org.id, 7)
    with app.app_context():
        enqueue(meter_one, org.id, "queued", id=jid)
        assert sweep(older_than_s=0) == []
        app.extensions["redis"].flushdb()
        assert sweep(older_than_s=3600) == []  # not stale yet
        assert sweep(older_than_s=0) == [jid]


def test_sweeper_requeues_while_another_connection_writes(app, org):
    """The worker sweeps at start while the web process writes: every lost job is re-queued
    and the sweep never fails with "database is locked" (a worker that died there ran
    nothing)."""
    ids = [job_id("meter", org.id, 100 + n) for n in range(60)]
    with app.app_context():
        for jid in ids:
            enqueue(meter_one, org.id, "swept", id=jid)
    app.extensions["redis"].flushdb()
    other = open_database(app.config["DATABASE_URL"])
    table = type(org)._meta.table_name
    done, writes = threading.Event(), []

    def write_until_done() -> None:
        while not done.is_set():
            with other.atomic():
                other.execute_sql(f"UPDATE {table} SET name = name WHERE id = {other.param}",
                                  (org.id,))
            writes.append(1)
        other.close()

    writer = threading.Thread(target=write_until_done)
    writer.start()
    try:
        with app.app_context():
            swept = sweep(older_than_s=0)
    finally:
        done.set()
        writer.join()
    assert sorted(swept) == sorted(ids)
    assert writes  # the other connection did write meanwhile
    assert {r.status for r in JobRecord.select().where(JobRecord.id.in_(ids))} == {"queued"}


def test_failing_job_is_retried_then_reported_to_its_domain(make_app, org, run_worker):
    app = make_app(JOB_RETRY_INTERVALS_S=[0, 0])
    jid = job_id("fail", org.id, 1)
    with app.app_context():
        enqueue(always_fails, org.id, "x", id=jid, max_attempts=3, on_failure=note_failure)
    from jobs.worker import run_worker as drain

    drain(app, burst=True)
    record = JobRecord.get_by_id(jid)
    assert record.status == "failed"
    assert record.attempts == 3
    assert record.last_error.startswith("RuntimeError: (message withheld")
    assert _labels(org) == ["attempt:x"] * 3
    failures = UsageEvent.select().where(UsageEvent.metric == "webhook_deliveries")
    assert [e.details["error"] for e in failures] == [record.last_error]


def test_enqueue_in_a_rolled_back_savepoint_is_not_pushed(app, org):
    jid = job_id("meter", org.id, 8)
    with app.app_context():
        with db.atomic():
            with db.atomic() as savepoint:
                enqueue(meter_one, org.id, "undone", id=jid)
                savepoint.rollback()
        assert JobRecord.get_or_none(JobRecord.id == jid) is None
        assert not _in_redis(app, jid)


def test_enqueue_in_a_released_savepoint_is_pushed_after_commit(app, org):
    jid = job_id("meter", org.id, 9)
    with app.app_context():
        with db.atomic():
            with db.atomic():
                enqueue(meter_one, org.id, "kept", id=jid)
            with db.atomic() as other:
                other.rollback()  # a sibling's rollback leaves the earlier push in place
            assert not _in_redis(app, jid)
        assert _in_redis(app, jid)


def test_push_lost_after_commit_is_recovered_by_the_sweeper(app, org, run_worker):
    jid = job_id("meter", org.id, 10)
    with app.app_context():
        with db.atomic():
            enqueue(meter_one, org.id, "recovered", id=jid)
            db._clear_commit_callbacks()  # the process dies between commit and push
        assert JobRecord.get_by_id(jid).status == "queued"
        assert not _in_redis(app, jid)
        assert sweep(older_than_s=0) == [jid]
    run_worker()
    assert _labels(org) == ["recovered"]
    assert JobRecord.get_by_id(jid).status == "succeeded"


def test_push_writes_what_rq_enqueue_call_writes(app, org):
    """The push builds RQ's job hash itself: the same fields, queue entry and queue
    registration as `Queue.enqueue_call` with the same options (timestamps aside)."""
    from rq import Retry

    from jobs.queue import (
        FAILURE_TTL_S,
        JOB_TIMEOUT_S,
        RESULT_TTL_S,
        RETRY_INTERVALS_S,
        get_queue,
    )

    redis = app.extensions["redis"]
    ours, theirs = job_id("meter", org.id, 11), job_id("meter", org.id, 12)
    with app.app_context():
        enqueue(meter_one, org.id, "same", id=ours)
        get_queue("default").enqueue_call(
            meter_one, args=(org.id, "same"), job_id=theirs, timeout=JOB_TIMEOUT_S,
            result_ttl=RESULT_TTL_S, failure_ttl=FAILURE_TTL_S,
            retry=Retry(max=2, interval=list(RETRY_INTERVALS_S[:2])),
            description=f"tests.jobs.sample_jobs.meter_one({org.id}, same)")
        queue = get_queue("default")

    def stored(jid):
        fields = redis.hgetall(f"rq:job:{jid}")
        assert fields.pop(b"created_at") and fields.pop(b"enqueued_at")
        return fields

    assert stored(ours) == stored(theirs)
    assert redis.lrange(queue.key, 0, -1) == [ours.encode(), theirs.encode()]
    assert redis.sismember(queue.redis_queues_keys, queue.key)
    assert redis.ttl(f"rq:job:{ours}") == redis.ttl(f"rq:job:{theirs}") == -1


@pytest.mark.parametrize("in_transaction", [False, True])
def test_row_is_committed_before_the_push(app, org, monkeypatch, in_transaction):
    """Alone (its INSERT commits on its own) or in a transaction, the row is visible to
    another connection by the time the job reaches Redis."""
    other = open_database(app.config["DATABASE_URL"])
    seen = []

    def push_job(record, *args, **kwargs):
        seen.append(other.execute_sql(f"SELECT status FROM job_record WHERE id = {other.param}",
                                      (record.id,)).fetchone())
        return push_job_for_real(record, *args, **kwargs)

    push_job_for_real = jobs.queue._push_job
    monkeypatch.setattr(jobs.queue, "_push_job", push_job)
    jid = job_id("meter", org.id, 13, in_transaction)
    with app.app_context():
        if in_transaction:
            with db.atomic():
                enqueue(meter_one, org.id, "seen", id=jid)
        else:
            enqueue(meter_one, org.id, "seen", id=jid)
    other.close()
    assert seen == [("queued",)]
    assert _in_redis(app, jid)


@pytest.mark.parametrize("delay_s", [0.2, 1.5, 5.9])
def test_a_delayed_job_is_never_due_before_its_delay(app, org, delay_s):
    """RQ keeps a scheduled job's time in whole seconds, cut down: a retry 5.9 s out was due
    after 5 (a receiver's `Retry-After` undercut by up to a second)."""
    import time

    from rq.registry import ScheduledJobRegistry

    from jobs.queue import queue_name

    jid = job_id("meter-later", org.id, delay_s)
    with app.app_context():
        asked_at = time.time()
        enqueue(meter_one, org.id, "later", id=jid, delay_s=delay_s)
        registry = ScheduledJobRegistry(queue_name("default"), connection=app.extensions["redis"])
        due = registry.connection.zscore(registry.key, jid)
    assert asked_at + delay_s <= due <= asked_at + delay_s + 1.5
