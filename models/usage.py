"""Metered usage: one row per billable event, summed into buckets for usage reports."""

from peewee import BigIntegerField, CharField, CompositeKey, ForeignKeyField, IntegerField

from models.base import BaseModel, JSONField, UTCDateTimeField, new_id, utcnow
from models.organizations import Organization

USAGE_METRICS = (
    "therapy_sessions",
    "session_analyses",
    "llm_tokens",
    "voice_calls",
    "voice_minutes",
    "workflow_executions",
    "webhook_deliveries",
)


class UsageEvent(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("use"))
    organization = ForeignKeyField(Organization, backref="usage_events", on_delete="CASCADE")
    metric = CharField(max_length=40)
    quantity = IntegerField(default=1)
    at = UTCDateTimeField(default=utcnow)
    details = JSONField(default=dict)

    class Meta:
        indexes = ((("organization", "metric", "at"), False),)


class UsageRollup(BaseModel):
    """Usage summed per organization, metric and 15-minute UTC slot, kept in step with
    `usage_event` by `record_usage` in the same transaction. Every timezone's midnight falls
    on a slot boundary, so day and month reports read slots instead of every event."""

    organization = ForeignKeyField(Organization, on_delete="CASCADE")
    metric = CharField(max_length=40)
    slot = UTCDateTimeField()
    quantity = BigIntegerField(default=0)

    class Meta:
        primary_key = CompositeKey("organization", "slot", "metric")
