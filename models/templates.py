"""Note, assessment and analysis templates: built-ins (no organization) and clinic-owned."""

from peewee import BooleanField, CharField, ForeignKeyField, TextField

from models.base import BaseModel, JSONField, UTCDateTimeField, new_id, utcnow
from models.organizations import Organization

TEMPLATE_KINDS = ("note", "assessment", "analysis")


class Template(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("tpl"))
    organization = ForeignKeyField(Organization, null=True, backref="templates",
                                   on_delete="CASCADE")
    name = CharField(max_length=200)
    kind = CharField(max_length=20, index=True)
    format = CharField(max_length=40)
    description = TextField(default="")
    sections = JSONField(default=list)
    builtin = BooleanField(default=False)
    created_at = UTCDateTimeField(default=utcnow)
    updated_at = UTCDateTimeField(default=utcnow)
