"""Organizations (tenants). Provisioning fills in the rest of their lifecycle."""

from peewee import CharField

from models.base import BaseModel, JSONField, UTCDateTimeField, new_id, utcnow

ORG_STATUSES = ("provisioning", "active", "suspended", "failed")


class Organization(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("org"))
    name = CharField(max_length=200)
    slug = CharField(max_length=63, unique=True)
    status = CharField(max_length=20, default="active")
    plan = CharField(max_length=40, default="standard")
    timezone = CharField(max_length=64, default="UTC")
    settings = JSONField(default=dict)
    quotas = JSONField(default=dict)
    created_at = UTCDateTimeField(default=utcnow)
    updated_at = UTCDateTimeField(default=utcnow)
