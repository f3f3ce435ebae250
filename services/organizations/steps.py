"""The sixteen provisioning steps, in order, and how each is undone.

Each step is idempotent: it looks for what an earlier, interrupted run of itself made before
making anything. Steps that only write to the database run in one transaction together with
their "done" mark, so a crash either keeps both or neither. Steps that call a peer (processor,
FHIR server) call it first, with an idempotency key where the peer takes one, then write.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import requests
import stripe
from redis import Redis
from redis.exceptions import RedisError

from models.base import utcnow
from models.organizations import (
    Organization,
    OrganizationMember,
    ProvisioningJob,
    SlugReservation,
)
from models.templates import Template
from models.tokens import ApiToken
from services import audit
from services.billing import processor
from services.errors import Unprocessable
from services.organizations import accounts
from services.organizations.quotas import DEFAULT_PLAN, PLANS, plan_quotas
from services.outbound import endpoints
from services.outbound.addresses import AddressRefused, check_destination
from services.outbound.endpoints import check_webhook_url
from services.tokens import create_token, revoke_token
from services.voice import deployments
from services.voice.messages import phone_number_error
from services.workflows import ready

# Seconds the onboarding check of an EHR's FHIR server waits for its CapabilityStatement
# (three tries); a slow but working server should pass.
FHIR_TIMEOUT_S = 15
FHIR_VERSION_PREFIX = "4.0."
ADMIN_SCOPES = ["admin"]
DEFAULT_SETTINGS: dict[str, Any] = {
    "sessions": {"default_duration_minutes": 50},
    "notes": {"default_template": "tpl_builtin_soap"},
    "analysis": {"redact_identifiers": True},
    "retention": {"audit_log_days": 2190},
}
# The organization's own starting templates (the built-ins stay shared by every clinic).
STARTER_TEMPLATES: tuple[dict[str, Any], ...] = (
    {"name": "Progress note", "kind": "note", "format": "progress",
     "description": "The clinic's short progress note.",
     "sections": [{"key": "status", "title": "Current status",
                   "guidance": "Symptoms and functioning since the last visit."},
                  {"key": "interventions", "title": "Interventions",
                   "guidance": "What was done in session."},
                  {"key": "plan", "title": "Plan", "guidance": "Next steps and homework."}]},
    {"name": "Intake summary", "kind": "assessment", "format": "intake",
     "description": "The clinic's intake summary for new patients.",
     "sections": [{"key": "reason", "title": "Reason for referral",
                   "guidance": "Presenting concerns in the patient's words."},
                  {"key": "screeners", "title": "Screeners",
                   "guidance": "PHQ-9 / GAD-7 totals and severity."},
                  {"key": "risk", "title": "Risk", "guidance": "Risk level and reasons."}]},
)
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class StepSkipped(Exception):
    """The step does not apply (nothing was requested for it, or nothing is configured)."""


class TransientStepError(Exception):
    """Worth retrying: a peer timed out or answered 5xx, a connection was refused."""


class PermanentStepError(Exception):
    """Retrying cannot help: the job fails and what it made is undone."""


@dataclass
class StepContext:
    job: ProvisioningJob
    config: Mapping[str, Any]
    outputs: dict[str, dict] = field(default_factory=dict)

    @property
    def request(self) -> dict[str, Any]:
        return self.job.request

    @property
    def organization(self) -> Organization:
        organization_id = self.outputs.get("create_organization", {}).get("organization_id")
        if organization_id is None:
            raise PermanentStepError("the organization was not created")
        return Organization.get_by_id(organization_id)


def _url_error(url: object) -> str | None:
    """The outbound URL check a deployment or an EHR sync applies later (syntax and SSRF
    guard), so provisioning never accepts a URL a later step would refuse."""
    if not isinstance(url, str):
        return "Must be an http(s) URL."
    try:
        check_webhook_url(url, what="URL")
    except Unprocessable as error:
        return error.message
    return None


def request_errors(data: Mapping[str, Any]) -> dict[str, list[str]]:
    """What is wrong with a provisioning request (empty when valid); shared by the API's
    schema and the `validate_request` step."""
    errors: dict[str, list[str]] = {}
    if not str(data.get("name") or "").strip():
        errors["name"] = ["Must not be empty."]
    if not _EMAIL.fullmatch(str(data.get("admin_email") or "")):
        errors["admin_email"] = ["Not a valid email address."]
    if data.get("plan", DEFAULT_PLAN) not in PLANS:
        errors["plan"] = [f"Must be one of: {', '.join(PLANS)}."]
    try:
        ZoneInfo(str(data.get("timezone") or "UTC"))
    except (ZoneInfoNotFoundError, ValueError):
        errors["timezone"] = ["Unknown IANA timezone."]
    voice = data.get("voice")
    if voice is not None:
        if phone_number_error(voice.get("phone_number")):
            errors["voice.phone_number"] = [phone_number_error(voice.get("phone_number"))]
        if voice.get("webhook_url") is not None and _url_error(voice["webhook_url"]):
            errors["voice.webhook_url"] = [_url_error(voice["webhook_url"])]
    ehr = data.get("ehr")
    if ehr is not None and _url_error(ehr.get("fhir_base_url")):
        errors["ehr.fhir_base_url"] = [_url_error(ehr.get("fhir_base_url"))]
    return errors


# ---- the steps -------------------------------------------------------------------------


def validate_request(ctx: StepContext) -> dict:
    errors = request_errors(ctx.request)
    if errors:
        raise PermanentStepError("invalid request: " + "; ".join(
            f"{name}: {' '.join(why)}" for name, why in errors.items()))
    return {}


def reserve_slug(ctx: StepContext) -> dict:
    slug = ctx.request["slug"]
    reservation, _ = SlugReservation.get_or_create(slug=slug, defaults={"job": ctx.job.id})
    if reservation.job_id != ctx.job.id:
        raise PermanentStepError(f"slug {slug!r} is held by another provisioning job")
    existing = Organization.get_or_none(Organization.slug == slug)
    if existing is not None and existing.id != ctx.job.organization_id:
        raise PermanentStepError(f"slug {slug!r} is taken")
    return {"slug": slug}


def create_organization(ctx: StepContext) -> dict:
    data = ctx.request
    if ctx.job.organization_id:  # made by an earlier run whose done mark was lost
        return {"organization_id": ctx.job.organization_id}
    try:
        organization = accounts.create_organization(
            data["name"].strip(), data["slug"], status="provisioning",
            plan=data.get("plan") or DEFAULT_PLAN, timezone=data.get("timezone") or "UTC")
    except accounts.SlugTaken as error:
        raise PermanentStepError(str(error)) from error
    ProvisioningJob.update(organization=organization.id, updated_at=utcnow()).where(
        ProvisioningJob.id == ctx.job.id).execute()
    ctx.job.organization = organization.id
    return {"organization_id": organization.id}


def create_admin_account(ctx: StepContext) -> dict:
    member, _ = OrganizationMember.get_or_create(
        organization=ctx.organization.id, email=ctx.request["admin_email"].lower(),
        defaults={"role": "admin"})
    return {"member_id": member.id}


def issue_api_token(ctx: StepContext) -> dict:
    row, token = create_token(ctx.organization.id, ADMIN_SCOPES,
                              name=f"admin ({ctx.request['admin_email'].lower()})")
    # Same transaction as the done mark: a re-run after a crash finds no half-issued token.
    ProvisioningJob.update(admin_token=token, updated_at=utcnow()).where(
        ProvisioningJob.id == ctx.job.id).execute()
    return {"token_id": row.id, "token_prefix": row.display_prefix}


def apply_default_settings(ctx: StepContext) -> dict:
    organization = ctx.organization
    settings = dict(organization.settings or {})
    for key, value in DEFAULT_SETTINGS.items():
        settings.setdefault(key, value)
    organization.settings = settings
    organization.save(only=[Organization.settings])
    return {"keys": sorted(DEFAULT_SETTINGS)}


def seed_note_templates(ctx: StepContext) -> dict:
    organization_id = ctx.organization.id
    ids = []
    for spec in STARTER_TEMPLATES:
        template, _ = Template.get_or_create(
            organization=organization_id, name=spec["name"],
            defaults={k: spec[k] for k in ("kind", "format", "description", "sections")})
        ids.append(template.id)
    return {"template_ids": ids}


def seed_agent_workflows(ctx: StepContext) -> dict:
    seeded = ready.seed_ready_workflows(ctx.organization.id)
    return {"workflow_ids": [getattr(w, "id", str(w)) for w in seeded]}


def create_voice_deployment(ctx: StepContext) -> dict:
    voice = ctx.request.get("voice")
    if not voice:
        raise StepSkipped("no voice deployment requested")
    deployment = deployments.ensure_deployment(
        ctx.organization.id, name=f"{ctx.request['name'].strip()} intake",
        phone_number=voice["phone_number"], webhook_url=voice.get("webhook_url"))
    return {"deployment_id": deployment.id}


def configure_outbound_webhooks(ctx: StepContext) -> dict:
    url = (ctx.request.get("voice") or {}).get("webhook_url")
    if not url:
        raise StepSkipped("no webhook_url requested")
    endpoint = endpoints.ensure_endpoint(ctx.organization.id, url)
    return {"endpoint_id": endpoint.id}


def create_billing_customer(ctx: StepContext) -> dict:
    if not processor.configured(ctx.config):
        raise StepSkipped("no payment processor configured")
    try:
        customer = processor.ensure_customer(ctx.organization, ctx.config,
                                             email=ctx.request["admin_email"].lower())
    except stripe.StripeError as error:
        # The service's words (`processor.upstream_error`): the library's text of a network
        # error names the host and port it tried.
        words = processor.upstream_error(error).message
        if isinstance(error, stripe.APIConnectionError | stripe.RateLimitError) or \
                (getattr(error, "http_status", None) or 0) >= 500:
            raise TransientStepError(words) from error
        raise PermanentStepError(words) from error
    return {"customer_id": customer}


def set_usage_quotas(ctx: StepContext) -> dict:
    organization = ctx.organization
    organization.quotas = plan_quotas(organization.plan)
    organization.save(only=[Organization.quotas])
    return {"plan": organization.plan}


def _capability_statement(base_url: str, allow_private: bool) -> dict:
    url = base_url.rstrip("/") + "/metadata"
    try:
        check_destination(url, allow_private)
    except (AddressRefused, Unprocessable) as error:
        raise PermanentStepError(f"FHIR server address refused: {error}") from error
    try:
        response = requests.get(url, headers={"Accept": "application/fhir+json"},
                                timeout=FHIR_TIMEOUT_S, allow_redirects=False)
    except requests.RequestException as error:
        raise TransientStepError(f"FHIR server unreachable: {type(error).__name__}") from error
    if response.status_code >= 500 or response.status_code == 429:
        raise TransientStepError(f"FHIR server answered {response.status_code}")
    if response.status_code != 200:
        raise PermanentStepError(f"FHIR /metadata answered {response.status_code}")
    try:
        body = response.json()
    except ValueError as error:
        raise PermanentStepError("FHIR /metadata is not JSON") from error
    if not isinstance(body, dict) or body.get("resourceType") != "CapabilityStatement":
        raise PermanentStepError("FHIR /metadata is not a CapabilityStatement")
    version = str(body.get("fhirVersion") or "")
    if not version.startswith(FHIR_VERSION_PREFIX):
        raise PermanentStepError(f"FHIR server speaks {version or 'an unknown version'}, "
                                 "not R4 (4.0.x)")
    return body


def configure_ehr_integration(ctx: StepContext) -> dict:
    ehr = ctx.request.get("ehr")
    if not ehr:
        raise StepSkipped("no EHR requested")
    statement = _capability_statement(ehr["fhir_base_url"],
                                      bool(ctx.config.get("ALLOW_PRIVATE_WEBHOOK_URLS")))
    software = (statement.get("software") or {}).get("name")
    organization = ctx.organization
    settings = dict(organization.settings or {})
    settings["ehr"] = {"fhir_base_url": ehr["fhir_base_url"].rstrip("/"),
                       "fhir_version": statement["fhirVersion"], "software": software}
    organization.settings = settings
    organization.save(only=[Organization.settings])
    return {"fhir_version": statement["fhirVersion"]}


def enable_audit_logging(ctx: StepContext) -> dict:
    organization = ctx.organization
    settings = dict(organization.settings or {})
    settings["audit"] = {"enabled": True, "since": utcnow().isoformat().replace("+00:00", "Z")}
    organization.settings = settings
    organization.save(only=[Organization.settings])
    audit.record(audit.AuditContext(actor="platform", organization_id=organization.id, ip=None,
                                    request_id=ctx.job.id),
                 "provision", "organization", [organization.id])
    return {}


def run_health_checks(ctx: StepContext) -> dict:
    organization = ctx.organization
    problems = []
    token = ApiToken.get_or_none(ApiToken.id == ctx.outputs["issue_api_token"]["token_id"])
    if token is None or token.revoked_at is not None or token.organization_id != organization.id:
        problems.append("admin token is not active")
    if not OrganizationMember.select().where(
            OrganizationMember.organization == organization.id).exists():
        problems.append("no admin account")
    if "limits" not in (organization.quotas or {}):
        problems.append("no quotas")
    if ctx.request.get("ehr") and "ehr" not in (organization.settings or {}):
        problems.append("EHR integration missing")
    if problems:
        raise PermanentStepError("health checks failed: " + ", ".join(problems))
    try:
        # The queue the organization's work will run on (the job's own Redis, by URL).
        Redis.from_url(ctx.config["REDIS_URL_EFFECTIVE"]).ping()
    except RedisError as error:
        raise TransientStepError(f"queue unavailable: {type(error).__name__}") from error
    return {"checked": ["admin_token", "admin_account", "quotas", "ehr", "queue"]}


def activate_organization(ctx: StepContext) -> dict:
    (Organization.update(status="active", updated_at=utcnow())
     .where(Organization.id == ctx.organization.id).execute())
    return {}


# ---- compensation ----------------------------------------------------------------------


def _release_reservation(ctx: StepContext, output: dict) -> None:
    SlugReservation.delete().where((SlugReservation.slug == output.get("slug"))
                                   & (SlugReservation.job == ctx.job.id)).execute()


def _fail_organization(ctx: StepContext, output: dict) -> None:
    """The organization stays, `failed`, under a slug of its own so that the requested one
    is free again."""
    organization_id = output["organization_id"]
    (Organization.update(status="failed", slug="failed-" + organization_id.replace("_", "-"),
                         updated_at=utcnow())
     .where(Organization.id == organization_id).execute())


def _revoke_admin_token(ctx: StepContext, output: dict) -> None:
    revoke_token(output["token_id"])
    ProvisioningJob.update(admin_token=None).where(ProvisioningJob.id == ctx.job.id).execute()


def _delete_voice_deployment(ctx: StepContext, output: dict) -> None:
    deployments.delete_deployment(
        output["deployment_id"])


def _remove_outbound_endpoint(ctx: StepContext, output: dict) -> None:
    endpoints.remove_endpoint(
        output["endpoint_id"])


@dataclass(frozen=True)
class Step:
    name: str
    run: Callable[[StepContext], dict]
    undo: Callable[[StepContext, dict], None] | None = None
    # Calls a peer: runs outside the done mark's transaction (no lock held over the network).
    calls_peer: bool = False


STEPS: tuple[Step, ...] = (
    Step("validate_request", validate_request),
    Step("reserve_slug", reserve_slug, _release_reservation),
    Step("create_organization", create_organization, _fail_organization),
    Step("create_admin_account", create_admin_account),
    Step("issue_api_token", issue_api_token, _revoke_admin_token),
    Step("apply_default_settings", apply_default_settings),
    Step("seed_note_templates", seed_note_templates),
    Step("seed_agent_workflows", seed_agent_workflows),
    Step("create_voice_deployment", create_voice_deployment, _delete_voice_deployment),
    Step("configure_outbound_webhooks", configure_outbound_webhooks,
         _remove_outbound_endpoint),
    Step("create_billing_customer", create_billing_customer, calls_peer=True),
    Step("set_usage_quotas", set_usage_quotas),
    Step("configure_ehr_integration", configure_ehr_integration, calls_peer=True),
    Step("enable_audit_logging", enable_audit_logging),
    Step("run_health_checks", run_health_checks),
    Step("activate_organization", activate_organization),
)
STEP_NAMES = tuple(step.name for step in STEPS)
