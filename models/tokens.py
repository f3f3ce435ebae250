"""API bearer tokens: only a hash is stored."""

from peewee import CharField, ForeignKeyField

from models.base import BaseModel, JSONField, UTCDateTimeField, new_id, utcnow
from models.organizations import Organization


class ApiToken(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("tok"))
    # NULL organization = platform (operator) token.
    organization = ForeignKeyField(Organization, null=True, backref="tokens", on_delete="CASCADE")
    name = CharField(max_length=200, default="")
    token_hash = CharField(max_length=64, unique=True)
    display_prefix = CharField(max_length=16)
    scopes = JSONField(default=list)
    created_at = UTCDateTimeField(default=utcnow)
    expires_at = UTCDateTimeField(null=True)
    revoked_at = UTCDateTimeField(null=True)
    last_used_at = UTCDateTimeField(null=True)
