"""A worker killed in the middle of a job loses nothing: RQ's registry cleanup (run by every
worker's maintenance) finds the abandoned job and retries it."""

import os
import signal
import time

from jobs.queue import enqueue, get_queue, job_id
from models.jobs import JobRecord
from models.usage import UsageEvent
from tests.jobs.sample_jobs import slow_first_attempt
from tests.jobs.worker_process import app_worker, start_worker, wait_for

# Later than any heartbeat of the killed worker: the cleanup a worker runs after that time.
AFTER_HEARTBEATS_S = 3600


def test_job_of_a_killed_worker_is_retried_and_completes_once(make_app, app_config, org):
    app = make_app(JOB_RETRY_INTERVALS_S=[0, 0])
    jid = job_id("slow", org.id, 1)
    with app.app_context():
        enqueue(slow_first_attempt, org.id, "done", id=jid, max_attempts=3)
    worker = start_worker(app_config)
    try:
        wait_for(lambda: JobRecord.get_by_id(jid).status == "started")
    finally:
        os.killpg(worker.pid, signal.SIGKILL)  # the worker and its work-horse, mid-job
        worker.wait()

    with app.app_context():
        get_queue("default").started_job_registry.cleanup(
            timestamp=time.time() + AFTER_HEARTBEATS_S)
    from jobs.worker import run_worker

    run_worker(app, burst=True)

    record = JobRecord.get_by_id(jid)
    assert (record.status, record.attempts) == ("succeeded", 2)
    done = UsageEvent.select().where(UsageEvent.organization == org.id)
    assert [e.details["label"] for e in done] == ["done"]


def test_a_killed_workers_job_with_no_retry_left_fails_at_the_next_maintenance(
        make_app, app_config, org):
    # Its on_failure (a webhook attempt marked abandoned, the next one scheduled) waited for
    # the sweep of rows untouched for JOB_SWEEP_AFTER_S: a minute and more after the death.
    from tests.jobs.sample_jobs import note_failure

    app = make_app(JOB_SWEEP_AFTER_S=AFTER_HEARTBEATS_S)
    jid = job_id("slow", org.id, 2)
    with app.app_context():
        enqueue(slow_first_attempt, org.id, "once", id=jid, max_attempts=1,
                on_failure=note_failure)
    worker = start_worker(app_config)
    try:
        wait_for(lambda: JobRecord.get_by_id(jid).status == "started")
    finally:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()

    survivor = app_worker(app)
    survivor.register_birth()
    try:
        survivor.run_maintenance_tasks()
    finally:
        survivor.register_death()

    record = JobRecord.get_by_id(jid)
    assert (record.status, record.last_error) == ("failed", "worker died while running the job")
    noted = UsageEvent.select().where(UsageEvent.metric == "webhook_deliveries")
    assert [e.details["label"] for e in noted] == ["once"]


def test_the_scheduler_of_a_killed_worker_stops_and_frees_its_locks(make_app, app_config):
    """It kept running under init, renewing every queue's scheduler lock: no other worker
    could take scheduling over."""
    import psutil
    from rq.scheduler import RQScheduler

    from jobs.queue import QUEUE_NAMES, queue_name

    app = make_app()
    connection = app.extensions["redis"]
    with app.app_context():
        locks = [RQScheduler.get_locking_key(queue_name(name)) for name in QUEUE_NAMES]
    # A scheduler killed by an earlier test leaves its locks for their minute: this worker
    # would then start none, and the locks seen below would not be its own.
    connection.delete(*locks)
    worker = start_worker(app_config)
    try:
        # The worker takes the locks before it forks the scheduler: wait for both.
        wait_for(lambda: all(connection.get(lock) for lock in locks)
                 and psutil.Process(worker.pid).children())
        scheduler = psutil.Process(worker.pid).children()[0]
    finally:
        os.kill(worker.pid, signal.SIGKILL)  # the worker alone, not its scheduler
        worker.wait()
    try:
        scheduler.wait(timeout=30)  # it looks for its worker once a second; CI is loaded
    except psutil.TimeoutExpired:
        scheduler.kill()
        raise AssertionError("the scheduler outlived its worker") from None
    assert [connection.get(lock) for lock in locks] == [None] * len(locks)
