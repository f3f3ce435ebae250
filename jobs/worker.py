"""The RQ worker of this app: every job runs inside an app context with a database connection
(a forked job's own, or the one workflow steps share), and its outcome is written to the job's
durable record."""

from __future__ import annotations

import logging
import math
import os
import socket

from flask import Flask
from redis import Redis
from rq import Worker, worker_registration
from rq.defaults import DEFAULT_LOGGING_DATE_FORMAT, DEFAULT_LOGGING_FORMAT
from rq.exceptions import NoSuchJobError
from rq.job import Job, JobStatus
from rq.job_lifecycle import call_exception_handlers
from rq.queue import Queue
from rq.scheduler import RQScheduler
from rq.worker import WorkerStatus

from jobs import queue as jobqueue
from models.base import bind_database, db, truncate_wal
from models.jobs import JobRecord, running_job
from services import analysis
from services.analysis.llm import LLMAnalysisError
from services.errors import UpstreamFailure
from services.limits import MAX_ERROR_CHARS
from services.retry_after import MAX_RETRY_AFTER_S
from services.workers import process_is_dead
from services.workflows.nodes import TransientNodeError
from web.logs import format_exception

logger = logging.getLogger(__name__)

# Failures of a peer that the service's own code reports in words that hold no patient data.
PEER_FAILURES: tuple[type[Exception], ...] = (LLMAnalysisError, UpstreamFailure,
                                              TransientNodeError)

MAINTENANCE_INTERVAL_S = 60
# An idle worker answers a stop signal within this many seconds (`dequeue_timeout`).
STOP_WITHIN_S = 2
HEARTBEAT_GRACE_S = 60


# Queues whose jobs run in the worker process itself, on one database connection kept between
# jobs, instead of in a forked work-horse with a connection of its own. A workflow node step is
# short and holds no state between jobs: it runs in a fresh app context, re-reads everything it
# needs in a locked transaction, and its module-level state is only configuration-keyed caches
# (the model client). A failed step closes the connection (nothing half-done carries over), and
# a step that kills the process is re-queued by the next worker (`reap_abandoned`). Other queues
# (analysis, provisioning, webhooks, default) keep the work-horse's isolation.
IN_PROCESS_QUEUES = (jobqueue.QUEUE_WORKFLOWS,)


class WorkerBoundScheduler(RQScheduler):
    """rq's scheduler process, which stops (releasing its locks) once the worker that started
    it is gone. A worker SIGKILLed left its scheduler running under init, renewing the locks of
    every queue, so no other worker's maintenance ever took scheduling over."""

    _worker_pid: int | None = None

    def start(self):
        self._worker_pid = os.getpid()  # in the worker, before the fork
        return super().start()

    def heartbeat(self) -> None:
        if self._worker_pid is not None and os.getppid() != self._worker_pid:
            self.log.warning("Scheduler: its worker (pid %s) is gone; stopping",
                             self._worker_pid)
            self.request_stop()
        super().heartbeat()


class AppWorker(Worker):
    """An RQ worker bound to a Flask app: forks a work-horse per job like rq's Worker, except
    for IN_PROCESS_QUEUES, run in-process like rq's SimpleWorker."""

    def __init__(self, *args, app: Flask, **kwargs):
        kwargs.setdefault("maintenance_interval",
                          app.config.get("WORKER_MAINTENANCE_INTERVAL_S") or MAINTENANCE_INTERVAL_S)
        super().__init__(*args, **kwargs)
        self.app = app
        self.in_process_queues = {jobqueue.queue_name(n) for n in IN_PROCESS_QUEUES}
        # The failure text of the job that just raised, as `format_exception` writes it, and
        # the wait its peer asked for (a `Retry-After`), if any.
        self._failure_text: tuple[str, str] | None = None
        self._retry_after: tuple[str, float] | None = None

    def handle_exception(self, job: Job, *exc_info) -> None:
        # rq's own puts the formatted traceback into its message, where no formatter can
        # withhold the messages that quote values; logged with exc_info, web.logs's does.
        # A peer's failure (the model server down, slow or replying nonsense) is an outcome
        # the job's retries are there for, not a defect: one line, without the traceback.
        if isinstance(exc_info[1], PEER_FAILURES):
            # The service's own words about the peer (no frames, no class path): what the
            # job's record, the execution and the dashboard show.
            text = str(exc_info[1]) or type(exc_info[1]).__name__
            logger.warning("job %s failed (%s): %s", job.id, job.origin, text)
        else:
            text = format_exception(exc_info)
            logger.error("job %s failed (%s)", job.id, job.origin, exc_info=exc_info)
        self._failure_text = (job.id, text)
        retry_after = getattr(exc_info[1], "retry_after_s", None)
        self._retry_after = (job.id, retry_after) if retry_after else None
        call_exception_handlers(self._exc_handlers, job, *exc_info)

    def handle_job_failure(self, job: Job, queue: Queue, started_job_registry=None,
                           exc_string: str = "", execution=None) -> None:
        # rq stores the failure's traceback in Redis (its result, shown by the dashboard) and
        # the job's record keeps its last line: both as the log writes it, for the same reason.
        # rq calls handle_exception with the same exception just before this.
        stashed, self._failure_text = self._failure_text, None
        if stashed is not None and stashed[0] == job.id:
            exc_string = stashed[1]
        asked, self._retry_after = self._retry_after, None
        if asked is not None and asked[0] == job.id and job.retries_left:
            _wait_before_retry(job, asked[1])
        super().handle_job_failure(job, queue, started_job_registry=started_job_registry,
                                   exc_string=exc_string, execution=execution)

    def _start_scheduler(self, burst: bool = False, logging_level: str | None = "INFO",
                         date_format: str = DEFAULT_LOGGING_DATE_FORMAT,
                         log_format: str = DEFAULT_LOGGING_FORMAT) -> None:
        # rq's own, with the scheduler that stops when this worker is gone.
        self.scheduler = WorkerBoundScheduler(
            self.queues, connection=self.connection,
            logging_level=logging_level if logging_level is not None else self.log.level,
            date_format=date_format, log_format=log_format, serializer=self.serializer)
        self.scheduler.acquire_locks()
        if not self.scheduler.acquired_locks:
            return
        if not burst:
            self.scheduler.start()
            return
        try:
            self.scheduler.register_birth()
            self.scheduler.enqueue_scheduled_jobs()
        finally:
            self.scheduler.release_locks()
            self.scheduler.register_death()

    @property
    def dequeue_timeout(self) -> int:
        # How long one wait on the queues lasts; rq heartbeats and runs maintenance (when due)
        # between two. Short, because a stop signal that the kernel hands to another thread
        # (rq's pubsub thread, a native library's) reaches the main thread's Python handler
        # only when its wait returns: Ctrl-C or SIGTERM took up to the whole wait (it was the
        # maintenance interval, 60 s).
        return max(1, min(int(self.maintenance_interval), STOP_WITHIN_S))

    def _in_process(self, job: Job) -> bool:
        return job.origin in self.in_process_queues

    def execute_job(self, job: Job, queue: Queue) -> None:
        if not self._in_process(job):
            super().execute_job(job, queue)
            return
        execution = self.prepare_execution(job)
        self.perform_job(job, queue, execution)
        self.set_state(WorkerStatus.IDLE)

    def get_heartbeat_ttl(self, job: Job, working_time: float = 0.0) -> int:
        if self._in_process(job):
            # No horse monitor beats while the job runs in-process: cover its whole timeout.
            return int(job.timeout or jobqueue.JOB_TIMEOUT_S) + HEARTBEAT_GRACE_S
        return super().get_heartbeat_ttl(job, working_time)

    def perform_job(self, job: Job, queue: Queue, execution) -> bool:
        if self._in_process(job):
            return self._perform_in_process(job, queue, execution)
        with self.app.app_context():
            # The horse inherited the parent's connection through fork(): drop it unclosed
            # (closing would end the parent's session) and open one of its own.
            db.obj._state.reset()
            db.connect()
            try:
                ok = super().perform_job(job, queue, execution)
                self._record_outcome(job, ok)
                return ok
            finally:
                db.close()

    def prepare_job_execution(self, job: Job, remove_from_intermediate_queue: bool = False) -> None:
        super().prepare_job_execution(job, remove_from_intermediate_queue)
        if not self._in_process(job):
            # Only once RQ has marked the job started: a horse killed before that left a job RQ's
            # cleanup skips (not started) and no queue holds, with its row already "started".
            jobqueue.mark(job.id, "started")

    def _perform_in_process(self, job: Job, queue: Queue, execution) -> bool:
        """On the connection kept between jobs. The job may write its record's progress in its
        own transactions (models.jobs.running_job_*); the rest is written here."""
        with self.app.app_context(), running_job(job.id) as run:
            db.connect(reuse_if_open=True)
            ok = False
            try:
                ok = super().perform_job(job, queue, execution)
                if not (ok and run.settled):
                    self._record_outcome(job, ok, count_attempt=not run.started)
                return ok
            finally:
                if not ok:
                    db.close()  # nothing half-done carries over to the next job

    def _record_outcome(self, job: Job, ok: bool, count_attempt: bool = False) -> None:
        if ok:
            jobqueue.mark(job.id, "succeeded", count_attempt=count_attempt)
            return
        error = _error_summary(job)
        if job.get_status() in (JobStatus.SCHEDULED, JobStatus.QUEUED):
            jobqueue.mark(job.id, "queued", error, count_attempt=count_attempt)  # RQ retries it
            return
        if count_attempt:
            jobqueue.mark(job.id, "started")
        record = JobRecord.get_or_none(JobRecord.id == job.id)
        if record is not None:
            jobqueue.fail(record, error)

    def run_maintenance_tasks(self) -> None:
        self.register_again_if_lost()
        super().run_maintenance_tasks()
        spent = reap_abandoned(self.queues, self.connection)
        with self.app.app_context():
            db.connect(reuse_if_open=True)
            try:
                fail_abandoned(spent)
                jobqueue.sweep()
                # A secret cleared since the last round (an admin token read once) leaves the
                # SQLite write-ahead log's file as well.
                truncate_wal(wait=True)
            finally:
                db.close()


    def register_again_if_lost(self) -> bool:
        """Redis restarted empty (or flushed) forgets every worker, and RQ registers a worker
        only at its birth: the dashboard and the queue statistics then showed none while this
        one kept working. Write the record and the registration again."""
        if self.birth_date is None or (
                self.connection.sismember(self.redis_workers_keys, self.key)
                and self.connection.hexists(self.key, "birth")):
            return False  # not started yet, or registered
        with self.connection.pipeline() as pipeline:
            pipeline.hset(self.key, mapping={**self.serialize(), "state": self.get_state()})
            worker_registration.register(self, pipeline)
            pipeline.expire(self.key, self.worker_ttl + 60)
            pipeline.execute()
        logger.warning("worker %s was not registered in Redis (emptied?): registered again",
                       self.name)
        return True


def _wait_before_retry(job: Job, seconds: float) -> None:
    """The job's next retry no sooner than ``seconds`` (capped at a day): the interval RQ is
    about to use (``Job.get_retry_interval``) raised to it."""
    intervals = list(job.retry_intervals or [0])
    index = max(len(intervals) - job.retries_left, 0)
    # +1: RQ schedules in whole seconds, cut down, so the interval alone may run up to a
    # second early.
    intervals[index] = max(intervals[index], math.ceil(min(seconds, MAX_RETRY_AFTER_S)) + 1)
    job.retry_intervals = intervals


def _error_summary(job: Job) -> str:
    result = job.latest_result()
    text = (result.exc_string or "") if result else ""
    # Last line of the traceback: the exception type and message, never the frames' locals.
    last = text.strip().splitlines()[-1] if text.strip() else "job failed"
    return last[:MAX_ERROR_CHARS]


def run_worker(app: Flask, burst: bool = False, queues: list[str] | None = None) -> bool:
    """Run a worker on every queue of the app (or the given ones)."""
    # Plain connections: each work-horse opens its own after fork().
    bind_database(app.config["DATABASE_URL"], pooled=False)
    # Imported and loaded once here (the analysis pipeline, the language models), so that each
    # forked work-horse inherits them rather than importing and loading them for its one job.
    analysis.preload()
    with app.app_context():
        connection = app.extensions["redis"]
        names = queues or list(jobqueue.QUEUE_NAMES)
        worker = AppWorker([jobqueue.get_queue(n, connection) for n in names],
                           connection=connection, app=app)
        spent = reap_abandoned(worker.queues, connection)
        db.connect(reuse_if_open=True)
        try:
            fail_abandoned(spent)
            # Anything Redis lost while no worker was running goes back on the queue first.
            jobqueue.sweep(older_than_s=0 if burst else None)
        finally:
            db.close()
    return worker.work(burst=burst, with_scheduler=True, logging_level=app.config["LOG_LEVEL"])


def _worker_is_gone(name: str | None, connection: Redis, hostname: str) -> bool:
    """True when the worker that started a job no longer exists: its key expired, or it ran on
    this host and its process is dead (SIGKILL leaves the key until its TTL runs out)."""
    if not name:
        return False
    worker = Worker.find_by_key(Worker.redis_worker_namespace_prefix + name,
                                connection=connection)
    if worker is None:
        return True
    return process_is_dead(worker, hostname)


def reap_abandoned(queues: list[Queue], connection: Redis) -> list[str]:
    """Put the started jobs of dead workers back on their queue now, rather than after the dead
    worker's heartbeat expires (90 s or more). A job with no retry left goes to RQ's own
    abandoned-job handling (failed); its id is returned for `fail_abandoned`."""
    hostname = socket.gethostname()
    reaped: list[str] = []
    spent_ids: list[str] = []
    for queue in queues:
        registry = queue.started_job_registry
        spent = []
        for job_id, execution_id in registry.get_job_and_execution_ids(cleanup=False):
            try:
                job = Job.fetch(job_id, connection=connection)
            except NoSuchJobError:
                continue
            if not _worker_is_gone(job.worker_name, connection, hostname):
                continue
            member = f"{job_id}:{execution_id}"
            if job.retries_left:
                # At once, not after the retry interval: the job did not fail, its worker died.
                # Queued before it leaves the started registry: a reaper dying in between
                # leaves a duplicate delivery (which the job's domain absorbs), never a loss.
                job.retries_left -= 1
                queue.enqueue_job(job)
                connection.zrem(registry.key, member)
                reaped.append(job_id)
            else:
                spent.append(member)
                spent_ids.append(job_id)
        if spent:
            connection.zadd(registry.key, dict.fromkeys(spent, 0))
            registry.cleanup()
    if reaped:
        logger.warning("re-queued %s job(s) of dead workers", len(reaped))
    return spent_ids


def fail_abandoned(job_ids: list[str]) -> None:
    """A dead worker's job with no retry left fails now, through its domain's on_failure (a
    webhook attempt marked abandoned and its next attempt scheduled), rather than when the
    sweep next looks at rows untouched for JOB_SWEEP_AFTER_S (a minute and more later)."""
    for job_id in job_ids:
        record = JobRecord.get_or_none(JobRecord.id == job_id)
        if record is not None and record.status in jobqueue.OPEN_JOB_STATUSES:
            jobqueue.fail(record, "worker died while running the job")
