"""The durable side of every queued job: RQ carries it, this row makes sure it is not lost.

Jobs are named by dotted path (`"jobs.analysis.analyze_clinical_session"`), as RQ does, so a
service can queue work without importing the job module that calls back into it.
"""

from __future__ import annotations

import re

from blinker import Namespace
from peewee import CharField, IntegerField, TextField

from models.base import BaseModel, JSONField, UTCDateTimeField, utcnow

JOB_STATUSES = ("pending", "queued", "started", "succeeded", "failed")
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

# Sent with each newly recorded job; the queue (jobs.queue) pushes it once the caller commits.
job_recorded = Namespace().signal("job-recorded")


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


def record_job(func: str, *args: object, id: str, queue: str = QUEUE_DEFAULT,
               max_attempts: int = DEFAULT_MAX_ATTEMPTS, on_failure: str | None = None,
               delay_s: float = 0) -> JobRecord:
    """Record the job `func` (a dotted path) in the caller's transaction.

    `on_failure(*args, error)`, also a dotted path, runs once the last attempt has failed.
    Recording the same id twice is a no-op for the second call."""
    record, created = JobRecord.get_or_create(
        id=id,
        defaults={"queue": queue, "func": func, "args": list(args),
                  "max_attempts": max_attempts, "on_failure": on_failure},
    )
    if created:
        job_recorded.send(record, delay_s=delay_s)
    return record
