"""Outbound webhooks: an organization's endpoints, the events written for them (an outbox in
the same transaction as the work that caused them), one delivery per event and every attempt."""

from peewee import CharField, ForeignKeyField, IntegerField, TextField

from models.base import BaseModel, JSONField, UTCDateTimeField, new_id, utcnow
from models.organizations import Organization

DELIVERY_STATUSES = ("pending", "succeeded", "failed")


class WebhookEndpoint(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("whe"))
    organization = ForeignKeyField(Organization, backref="webhook_endpoints", on_delete="CASCADE")
    url = CharField(max_length=2048)
    secret = CharField(max_length=100)
    # Keys rotated out keep signing beside the current one until they expire:
    # [[secret, expiry as ISO 8601 UTC], …], newest first.
    previous_secrets = JSONField(default=list)
    disabled_at = UTCDateTimeField(null=True)
    disabled_reason = CharField(max_length=200, null=True)
    created_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("organization", "url"), True),)


class OutboundEvent(BaseModel):
    id = CharField(primary_key=True, max_length=128)  # the event_id, stable across retries
    organization = ForeignKeyField(Organization, backref="outbound_events", on_delete="CASCADE")
    event = CharField(max_length=80)
    # The exact bytes sent on every attempt: serialised once, so every signature covers them.
    body = TextField()
    created_at = UTCDateTimeField(default=utcnow)


class WebhookDelivery(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("dlv"))
    event = ForeignKeyField(OutboundEvent, backref="deliveries", on_delete="CASCADE")
    endpoint = ForeignKeyField(WebhookEndpoint, backref="deliveries", on_delete="CASCADE")
    # Deliveries sharing an ordering key (one call) are sent one after another, oldest first.
    ordering_key = CharField(max_length=200, index=True)
    status = CharField(max_length=20, default="pending", index=True)
    attempts = IntegerField(default=0)
    next_attempt_at = UTCDateTimeField(default=utcnow)
    last_status_code = IntegerField(null=True)
    last_error = TextField(null=True)
    created_at = UTCDateTimeField(default=utcnow, index=True)
    delivered_at = UTCDateTimeField(null=True)


class DeliveryAttempt(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("att"))
    delivery = ForeignKeyField(WebhookDelivery, backref="attempt_log", on_delete="CASCADE")
    number = IntegerField()
    at = UTCDateTimeField(default=utcnow)
    status_code = IntegerField(null=True)
    error = TextField(null=True)
    duration_ms = IntegerField()
    next_attempt_at = UTCDateTimeField(null=True)
