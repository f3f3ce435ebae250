"""The durable side of every queued job: RQ carries it, this row makes sure it is not lost."""

from peewee import CharField, IntegerField, TextField

from models.base import BaseModel, JSONField, UTCDateTimeField, utcnow

JOB_STATUSES = ("pending", "queued", "started", "succeeded", "failed")
OPEN_JOB_STATUSES = ("pending", "queued", "started")


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
