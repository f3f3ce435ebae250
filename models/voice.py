"""Voice intake: a clinic's intake lines (deployments), the calls they take, what the platform
sent about them, and what the intake produced (screeners, escalation, summary)."""

from peewee import (
    BigIntegerField,
    BooleanField,
    CharField,
    ForeignKeyField,
    IntegerField,
    TextField,
)

from models.base import BaseModel, JSONField, UTCDateTimeField, new_id, utcnow
from models.organizations import Organization
from models.outbound import WebhookEndpoint


class VoiceDeployment(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("vdp"))
    organization = ForeignKeyField(Organization, backref="voice_deployments", on_delete="CASCADE")
    name = CharField(max_length=200)
    # A number rings at one clinic: unique across organizations.
    phone_number = CharField(max_length=32, unique=True)
    webhook_url = CharField(max_length=2048, null=True)
    endpoint = ForeignKeyField(WebhookEndpoint, null=True, on_delete="SET NULL")
    screeners = JSONField(default=list)
    created_at = UTCDateTimeField(default=utcnow)
    updated_at = UTCDateTimeField(default=utcnow)


class VoiceCall(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("vcl"))
    call_id = CharField(max_length=128, unique=True)  # the platform's call id
    organization = ForeignKeyField(Organization, backref="voice_calls", on_delete="CASCADE")
    deployment = ForeignKeyField(VoiceDeployment, null=True, backref="calls",
                                 on_delete="SET NULL")
    # The deployment's webhook endpoint when the call began: a deployment deleted during the
    # call takes its link to the endpoint with it, and the call's later events (a crisis among
    # them) still have to reach the clinic.
    endpoint = ForeignKeyField(WebhookEndpoint, null=True, on_delete="SET NULL")
    status = CharField(max_length=20, default="queued")
    patient_phone = CharField(max_length=32, null=True)
    started_at = UTCDateTimeField(null=True)
    ended_at = UTCDateTimeField(null=True)
    ended_reason = CharField(max_length=200, null=True)
    duration_ms = IntegerField(null=True)
    hung_at = UTCDateTimeField(null=True)
    interruptions = IntegerField(default=0)
    details = JSONField(default=dict)
    risk_band = CharField(max_length=20, null=True)
    escalation_id = CharField(max_length=40, null=True)
    summary_id = CharField(max_length=40, null=True)
    transcript_count = IntegerField(default=0)
    transcript_chars = IntegerField(default=0)
    report = JSONField(null=True)  # artifact / analysis of the end-of-call report
    finalized = BooleanField(default=False)
    # voice_minutes are metered once, when a duration is first known (an end message may
    # come before the one that carries the call's start).
    minutes_metered = BooleanField(default=False)
    created_at = UTCDateTimeField(default=utcnow)
    updated_at = UTCDateTimeField(default=utcnow)


class VoiceEvent(BaseModel):
    """Every server message accepted, payload without credentials (final transcript lines are
    kept as VoiceTranscriptEntry rows instead, partials not at all; a final line past the call's
    transcript limit is kept here)."""

    id = CharField(primary_key=True, default=lambda: new_id("vev"))
    # call id + type + timestamp (or tool call id): a duplicate delivery hits this index.
    dedup_key = CharField(max_length=300, unique=True)
    call_id = CharField(max_length=128, null=True, index=True)
    organization = ForeignKeyField(Organization, null=True, on_delete="CASCADE")
    type = CharField(max_length=80)
    timestamp_ms = BigIntegerField(null=True)
    payload = JSONField()
    received_at = UTCDateTimeField(default=utcnow)


class VoiceTranscriptEntry(BaseModel):
    """A final line; lines are read in spoken order (`at`, then arrival: the auto id)."""

    call = ForeignKeyField(VoiceCall, backref="transcript", on_delete="CASCADE")
    # The message's dedup key: a final line is stored here only (no VoiceEvent row), once.
    dedup_key = CharField(max_length=300, unique=True)
    role = CharField(max_length=20)
    text = TextField()
    at = UTCDateTimeField()

    class Meta:
        indexes = ((("call", "at"), False),)


class VoiceToolCall(BaseModel):
    """A tool call answered once: a repeated toolCallId gets the stored answer again."""

    id = CharField(primary_key=True, max_length=300)  # call id + tool call id
    call = ForeignKeyField(VoiceCall, null=True, on_delete="CASCADE")
    name = CharField(max_length=100)
    result = TextField(null=True)
    error = TextField(null=True)
    created_at = UTCDateTimeField(default=utcnow)


class ScreenerResult(BaseModel):
    call = ForeignKeyField(VoiceCall, backref="screeners", on_delete="CASCADE")
    screener = CharField(max_length=20)
    answers = JSONField(default=dict)  # item number (as text) → score
    score = IntegerField(null=True)
    severity = CharField(max_length=30, null=True)
    completed_at = UTCDateTimeField(null=True)

    class Meta:
        indexes = ((("call", "screener"), True),)


class Escalation(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("esc"))
    call = ForeignKeyField(VoiceCall, unique=True, on_delete="CASCADE")  # once per call
    organization = ForeignKeyField(Organization, on_delete="CASCADE")
    risk_band = CharField(max_length=20)
    source = CharField(max_length=40)
    reason = TextField()
    created_at = UTCDateTimeField(default=utcnow)


class IntakeSummary(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("sum"))
    call = ForeignKeyField(VoiceCall, unique=True, on_delete="CASCADE")
    organization = ForeignKeyField(Organization, on_delete="CASCADE")
    content = JSONField()
    created_at = UTCDateTimeField(default=utcnow)
    updated_at = UTCDateTimeField(default=utcnow)
