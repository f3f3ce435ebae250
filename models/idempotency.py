"""Stored first answers to POSTs that carried an Idempotency-Key."""

from peewee import CharField, IntegerField, TextField

from models.base import BaseModel, UTCDateTimeField, utcnow


class IdempotencyRecord(BaseModel):
    scope = CharField(max_length=64)  # the organization (or platform token) the key belongs to
    key = CharField(max_length=255)
    request_hash = CharField(max_length=64)
    method = CharField(max_length=10)
    path = CharField(max_length=500)
    status_code = IntegerField()
    response_body = TextField()
    location = CharField(max_length=500, null=True)
    created_at = UTCDateTimeField(default=utcnow, index=True)

    class Meta:
        indexes = ((("scope", "key"), True),)
