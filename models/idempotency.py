"""Stored first answers to POSTs that carried an Idempotency-Key."""

import hashlib

from peewee import CharField, IntegerField, TextField

from models.base import BaseModel, UTCDateTimeField, utcnow


class IdempotencyRecord(BaseModel):
    scope = CharField(max_length=64)  # the organization (or platform token) the key belongs to
    key = CharField(max_length=255)  # stored_key() of the header: never the key itself
    request_hash = CharField(max_length=64)
    method = CharField(max_length=10)
    path = CharField(max_length=500)
    status_code = IntegerField()
    response_body = TextField()
    location = CharField(max_length=500, null=True)
    created_at = UTCDateTimeField(default=utcnow, index=True)

    class Meta:
        indexes = ((("scope", "key"), True),)


def stored_key(key: str) -> str:
    """What is stored of a key: its hash. A client may put anything in it (a card number, a
    patient's name), and a lookup needs only equality."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
