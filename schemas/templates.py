"""Template resources and the body for a clinic's own templates."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from models.templates import TEMPLATE_KINDS
from schemas.common import (
    InputSchema,
    NonBlank,
    RecordSchema,
    StrictSchema,
    UTCDateTime,
    WholeMatch,
)
from services.analysis.prompts import section_prompt

MAX_SECTIONS = 40
SECTION_KEY = r"^[a-z][a-z0-9_]{0,62}$"


class SectionSchema(StrictSchema):
    key = fields.String(required=True, validate=WholeMatch(
        SECTION_KEY, error="Use lowercase letters, digits and underscores, starting with a "
                           "letter."))
    title = NonBlank(200, required=True)
    guidance = fields.String(load_default="", validate=validate.Length(max=4000))


class TemplateCreateSchema(StrictSchema):
    name = NonBlank(200, required=True)
    kind = fields.String(load_default="note", validate=validate.OneOf(TEMPLATE_KINDS))
    format = fields.String(load_default="custom", validate=WholeMatch(
        r"^[a-z][a-z0-9_]{0,39}$", error="Use lowercase letters, digits and underscores."))
    description = fields.String(load_default="", validate=validate.Length(max=2000))
    sections = fields.List(fields.Nested(SectionSchema), required=True,
                           validate=validate.Length(min=1, max=MAX_SECTIONS))

    @ma.validates_schema
    def _unique_keys(self, data, **kwargs):
        keys = [s["key"] for s in data.get("sections", [])]
        if len(keys) != len(set(keys)):
            raise ma.ValidationError("Section keys must be unique.", "sections")


class TemplateSchema(RecordSchema):
    id = fields.String(dump_only=True)
    name = fields.String()
    kind = fields.String(metadata={"enum": list(TEMPLATE_KINDS)})
    format = fields.String()
    description = fields.String()
    sections = fields.List(fields.Dict())
    builtin = fields.Boolean()
    organization_id = fields.String(allow_none=True)
    created_at = UTCDateTime(dump_only=True)


class SectionPromptSchema(ma.Schema):
    key = fields.String()
    title = fields.String()
    prompt = fields.Function(section_prompt, metadata={"type": "string"})


class _SectionPrompts(fields.List):
    """What the analyzer sends to the model for each of the template's `sections`."""

    def get_value(self, obj, attr, accessor=None, default=ma.missing):
        return super().get_value(obj, "sections", accessor, default)


class AnalyzerTemplateSchema(TemplateSchema):
    section_prompts = _SectionPrompts(fields.Nested(SectionPromptSchema))


class TemplateQuerySchema(InputSchema):
    kind = fields.String(validate=validate.OneOf(TEMPLATE_KINDS))
