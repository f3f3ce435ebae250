"""Organization resource, provisioning request and status, and the usage report."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from models.organizations import ORG_STATUSES, PROVISIONING_STATUSES, STEP_STATUSES
from schemas.common import NonBlank, StrictSchema, UTCDateTime, WholeMatch, nested_errors
from schemas.voice import phone_field
from services.organizations.quotas import DEFAULT_PLAN, PLANS
from services.organizations.steps import request_errors
from services.organizations.usage import DEFAULT_GRANULARITY, GRANULARITIES

SLUG_PATTERN = r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$"


class VoiceRequestSchema(StrictSchema):
    phone_number = phone_field(required=True)
    webhook_url = fields.String(allow_none=True, validate=validate.Length(max=2000))


class EhrRequestSchema(StrictSchema):
    fhir_base_url = fields.String(required=True, validate=validate.Length(max=2000))


class ProvisionRequestSchema(StrictSchema):
    name = NonBlank(200, required=True)
    admin_email = fields.Email(required=True, validate=validate.Length(max=254))
    slug = fields.String(validate=WholeMatch(
        SLUG_PATTERN, error="Lowercase letters, digits and dashes (1-63), no dash at the ends."))
    plan = fields.String(load_default=DEFAULT_PLAN, validate=validate.OneOf(PLANS))
    timezone = fields.String(load_default="UTC", validate=validate.Length(max=64))
    voice = fields.Nested(VoiceRequestSchema)
    ehr = fields.Nested(EhrRequestSchema)

    @ma.validates_schema
    def _semantics(self, data: dict, **kwargs) -> None:
        errors = request_errors(data)
        if errors:
            raise ma.ValidationError(nested_errors(errors))


class ProvisionAcceptedSchema(ma.Schema):
    job_id = fields.String()
    status = fields.String(validate=validate.OneOf(["queued"]))
    status_url = fields.String()


class ProvisionStepSchema(ma.Schema):
    index = fields.Integer()
    name = fields.String()
    status = fields.String(validate=validate.OneOf(STEP_STATUSES))
    started_at = UTCDateTime(allow_none=True)
    finished_at = UTCDateTime(allow_none=True)
    attempts = fields.Integer()
    error = fields.String(allow_none=True, metadata={
        "description": "Why the step failed (or its last attempt did); null for a skipped step."})
    detail = fields.String(allow_none=True, metadata={
        "description": "Why a skipped step was skipped (e.g. no webhook_url requested)."})


class ProvisionResultSchema(ma.Schema):
    admin_token = fields.String(metadata={"description": "In full on the first read only."})
    admin_email = fields.String()
    organization_id = fields.String()


class ProvisionStatusSchema(ma.Schema):
    job_id = fields.String()
    status = fields.String(validate=validate.OneOf(PROVISIONING_STATUSES))
    current_step = fields.String(allow_none=True)
    steps_total = fields.Integer()
    steps = fields.List(fields.Nested(ProvisionStepSchema))
    organization_id = fields.String(allow_none=True)
    result = fields.Nested(ProvisionResultSchema, allow_none=True)
    error = fields.String(allow_none=True)
    created_at = UTCDateTime()
    finished_at = UTCDateTime(allow_none=True)


class QuotaSchema(ma.Schema):
    period = fields.String()
    period_start = UTCDateTime()
    period_end = UTCDateTime()
    limits = fields.Dict(keys=fields.String(), values=fields.Integer())
    used = fields.Dict(keys=fields.String(), values=fields.Integer())


class OrganizationSchema(ma.Schema):
    id = fields.String()
    name = fields.String()
    slug = fields.String()
    status = fields.String(validate=validate.OneOf(ORG_STATUSES))
    plan = fields.String()
    timezone = fields.String()
    created_at = UTCDateTime()
    settings = fields.Dict()
    quotas = fields.Nested(QuotaSchema)


class UsageQuerySchema(StrictSchema):
    start = UTCDateTime()
    end = UTCDateTime()
    granularity = fields.String(load_default=DEFAULT_GRANULARITY,
                                validate=validate.OneOf(GRANULARITIES))


def _metric_fields() -> dict[str, fields.Field]:
    from models.usage import USAGE_METRICS

    return {metric: fields.Integer() for metric in USAGE_METRICS}


UsageCountsSchema = ma.Schema.from_dict(_metric_fields(), name="UsageCounts")
UsageBucketSchema = ma.Schema.from_dict(
    {"start": UTCDateTime(), "end": UTCDateTime(), **_metric_fields()}, name="UsageBucket")


class UsageSchema(ma.Schema):
    organization_id = fields.String()
    start = UTCDateTime()
    end = UTCDateTime()
    granularity = fields.String()
    totals = fields.Nested(UsageCountsSchema)
    buckets = fields.List(fields.Nested(UsageBucketSchema))
