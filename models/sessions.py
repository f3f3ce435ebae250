"""Therapy sessions."""

from peewee import CharField, ForeignKeyField, IntegerField, TextField

from models.base import BaseModel, JSONField, UTCDateTimeField, new_id, utcnow
from models.organizations import Organization
from models.templates import Template

SESSION_STATUSES = ("scheduled", "in_progress", "completed", "cancelled", "no_show")
SESSION_TYPES = ("individual", "co_therapy")
ANALYSIS_STATUSES = ("none", "queued", "running", "retrying", "succeeded", "failed", "skipped")


class TherapySession(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("ses"))
    organization = ForeignKeyField(Organization, backref="sessions", on_delete="CASCADE")
    patient_id = CharField(max_length=128)
    provider_id = CharField(max_length=128)
    co_provider_ids = JSONField(default=list)
    session_type = CharField(max_length=20, default="individual")
    template = ForeignKeyField(Template, null=True, on_delete="SET NULL")
    session_date = UTCDateTimeField()
    duration_minutes = IntegerField(default=50)
    chief_complaints = JSONField(default=list)
    session_goals = JSONField(default=list)
    status = CharField(max_length=20, default="scheduled")
    # State of the post-visit analysis queued when a live clinical session stops.
    analysis_status = CharField(max_length=20, default="none")
    analysis_error = TextField(null=True)
    latest_analysis_id = CharField(max_length=40, null=True)
    # The live clinical session running now, so a client that lost its id can find it.
    active_clinical_session_id = CharField(max_length=40, null=True)
    created_at = UTCDateTimeField(default=utcnow)
    updated_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = (
            (("organization", "patient_id"), False),
            (("organization", "provider_id"), False),
        )
