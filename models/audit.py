"""Append-only audit log of access to patient data (UPDATE/DELETE are refused by triggers)."""

from peewee import CharField

from models.base import BaseModel, UTCDateTimeField, new_id, utcnow


class AuditEvent(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("aud"))
    at = UTCDateTimeField(default=utcnow, index=True)
    organization_id = CharField(max_length=40, null=True, index=True)
    actor = CharField(max_length=64)  # token id, or "platform" / "system"
    action = CharField(max_length=20)  # read | list | create | update | delete
    resource_type = CharField(max_length=40)
    resource_id = CharField(max_length=64, null=True, index=True)
    ip = CharField(max_length=64, null=True)
    request_id = CharField(max_length=64, null=True)
