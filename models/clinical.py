"""Live AI clinical sessions and their transcript chunks."""

from peewee import CharField, ForeignKeyField, IntegerField, TextField

from models.base import BaseModel, UTCDateTimeField, new_id, utcnow
from models.organizations import Organization
from models.sessions import TherapySession


class ClinicalSession(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("cls"))
    organization = ForeignKeyField(Organization, on_delete="CASCADE")
    session = ForeignKeyField(TherapySession, backref="clinical_sessions", on_delete="CASCADE")
    status = CharField(max_length=20, default="active")  # active | stopped
    started_at = UTCDateTimeField(default=utcnow)
    stopped_at = UTCDateTimeField(null=True)
    chunk_count = IntegerField(default=0)
    char_count = IntegerField(default=0)
    analysis_job_id = CharField(max_length=128, null=True)


class TranscriptChunk(BaseModel):
    clinical_session = ForeignKeyField(ClinicalSession, backref="chunks", on_delete="CASCADE")
    seq = IntegerField()
    speaker = CharField(max_length=20)
    text = TextField()
    at = UTCDateTimeField(default=utcnow)

    class Meta:
        indexes = ((("clinical_session", "seq"), True),)
