"""Metered usage: one row per billable event, summed into buckets for usage reports."""

from peewee import BigIntegerField, CharField, CompositeKey, ForeignKeyField, IntegerField

from models.base import BaseModel, JSONField, UTCDateTimeField, db, is_postgres, new_id, utcnow
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


_SLOT_OF_EVENT = {
    "postgres": "date_trunc('hour', at) + floor(date_part('minute', at) / 15) "
                "* interval '15 minutes'",
    "sqlite": "substr(at, 1, 14) || printf('%02d', (CAST(substr(at, 15, 2) AS INTEGER) / 15) "
              "* 15) || ':00'",
}


def rebuild_rollups() -> None:
    """Recompute every slot sum from the events (after a bulk load, or on migration)."""
    slot = _SLOT_OF_EVENT["postgres" if is_postgres() else "sqlite"]
    with db.atomic():
        db.execute_sql("DELETE FROM usage_rollup")
        db.execute_sql(
            "INSERT INTO usage_rollup (organization_id, metric, slot, quantity) "  # noqa: S608
            f"SELECT organization_id, metric, {slot}, SUM(quantity) FROM usage_event "
            "GROUP BY 1, 2, 3")
