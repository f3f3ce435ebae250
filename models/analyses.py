"""Stored post-visit analyses."""

from peewee import CharField, ForeignKeyField, IntegerField

from models.base import BaseModel, JSONField, UTCDateTimeField, new_id, utcnow
from models.organizations import Organization
from models.sessions import TherapySession

# `api`: POST /api/therapy/analyze-session; `clinical_session`: queued when a live session stops.
ANALYSIS_SOURCES = ("api", "clinical_session", "workflow")


class SessionAnalysis(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("ana"))
    organization = ForeignKeyField(Organization, backref="analyses", on_delete="CASCADE")
    session = ForeignKeyField(TherapySession, null=True, backref="analyses", on_delete="CASCADE")
    source = CharField(max_length=20, default="api")
    provider = CharField(max_length=20)  # openai | rules
    model = CharField(max_length=100)
    risk_level = CharField(max_length=20)
    result = JSONField()
    prompt_tokens = IntegerField(default=0)
    completion_tokens = IntegerField(default=0)
    created_at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("session", "created_at"), False),)
