"""Health report."""

import marshmallow as ma
from marshmallow import fields


class ComponentSchema(ma.Schema):
    status = fields.String(metadata={"enum": ["ok", "error"]})
    latency_ms = fields.Float()
    detail = fields.String()


class HealthSchema(ma.Schema):
    service = fields.String()
    status = fields.String(metadata={"enum": ["ok", "degraded"]})
    version = fields.String()
    checked_at = fields.String()
    database = fields.Nested(ComponentSchema)
    redis = fields.Nested(ComponentSchema)
