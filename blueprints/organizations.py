"""Organizations: provisioning (202 + a status resource), retrieval and usage reports."""

from flask import url_for
from flask.views import MethodView

from schemas.organizations import (
    OrganizationSchema,
    ProvisionAcceptedSchema,
    ProvisionRequestSchema,
    ProvisionStatusSchema,
    UsageQuerySchema,
    UsageSchema,
)
from services.errors import NotFound
from services.organizations import provisioning, usage
from services.organizations.accounts import get_organization
from services.organizations.quotas import quota_status
from web.auth import current_identity, require
from web.blueprint import Blueprint
from web.idempotency import idempotent

blp = Blueprint("organizations", __name__, url_prefix="/api/organizations",
                description="Organizations: provisioning, retrieval and usage.")

# Seconds a client should wait before polling a provisioning job that is still running.
POLL_AFTER_S = 1


def _visible_organization(organization_id: str):
    """The caller's own organization, or any for the platform; others are 404."""
    identity = current_identity()
    organization = get_organization(organization_id)
    if organization is None or (not identity.is_platform
                                and identity.organization_id != organization.id):
        raise NotFound("Organization not found.")
    return organization


@blp.route("/provision")
class Provision(MethodView):
    @require("platform", org=False)
    @idempotent
    @blp.arguments(ProvisionRequestSchema)
    @blp.response(202, ProvisionAcceptedSchema, headers={"Location": {
        "description": "The job's status resource (`status_url`).",
        "schema": {"type": "string"}}})
    @blp.alt_response(409, response="DEFAULT_ERROR", description=(
        "The slug (given, or made from the name) is taken, or a request with this "
        "Idempotency-Key is still running or had another body"))
    def post(self, data):
        """Provision an organization (platform token): a job of sixteen recorded steps"""
        job = provisioning.request_provisioning(data)
        status_url = url_for("organizations.ProvisionStatus", job_id=job.id)
        return ({"job_id": job.id, "status": "queued", "status_url": status_url},
                {"Location": status_url})


@blp.route("/provision/<job_id>")
class ProvisionStatus(MethodView):
    @require("platform", org=False)
    @blp.response(200, ProvisionStatusSchema)
    def get(self, job_id):
        """A provisioning job's progress; the admin token appears in full once"""
        job = provisioning.get_job(job_id)
        body = provisioning.status_body(job)
        if body["status"] in ("queued", "running"):
            return body, {"Retry-After": str(POLL_AFTER_S)}
        return body


@blp.route("/<id_except(provision):organization_id>")
class OrganizationItem(MethodView):
    @require("organizations:read", org=False)
    @blp.response(200, OrganizationSchema)
    def get(self, organization_id):
        """An organization, with its settings and quotas"""
        organization = _visible_organization(organization_id)
        return {**organization.__data__, "quotas": quota_status(organization)}


@blp.route("/<organization_id>/usage")
class OrganizationUsage(MethodView):
    @require("usage:read", org=False)
    @blp.arguments(UsageQuerySchema, location="query")
    @blp.response(200, UsageSchema)
    def get(self, query, organization_id):
        """Usage per bucket over a window (default: the last 30 days by day)"""
        organization = _visible_organization(organization_id)
        return usage.usage_report(organization, query.get("start"), query.get("end"),
                                  query["granularity"])
