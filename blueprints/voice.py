"""Voice intake: the platform's signed server messages, call state and transcripts, intake
summaries, and the clinic's deployments with their webhook deliveries."""

from __future__ import annotations

from flask import current_app, g, request
from flask.views import MethodView
from flask_smorest import abort

from models.outbound import WebhookDelivery
from schemas.voice import (
    CallStateSchema,
    CallTranscriptSchema,
    DeliverySchema,
    DeploymentCreateSchema,
    DeploymentSchema,
    DeploymentUpdateSchema,
    DeploymentWithSecretSchema,
    IntakeSummarySchema,
)
from services.errors import NotFound
from services.outbound import delivery as outbound
from services.voice import calls, deployments, messages, summary
from services.voice.messages import MalformedMessage
from services.voice.verification import SignatureInvalid, verify
from web import json_input
from web.api import PUBLIC, ListPage
from web.apidoc import SIGNED_ANSWERS
from web.auth import audit_access, current_org_id, require
from web.blueprint import Blueprint
from web.idempotency import idempotent
from web.limits import count_refused_signature

blp = Blueprint("voice", __name__, url_prefix="/api/voice",
                description="Voice intake lines, the platform's server messages, call state.")

DEFAULT_SIGNATURE_HEADER = "service-voice-signature"
DEFAULT_TIMESTAMP_HEADER = "service-voice-timestamp"


def _base_url() -> str:
    return current_app.config.get("PUBLIC_BASE_URL") or request.url_root


def _verified_payload():
    """The message, only once its signature over the raw bytes has been checked."""
    secret = current_app.config.get("VOICE_WEBHOOK_SECRET")
    if not secret:
        abort(503, message="Voice webhooks are not configured (VOICE_WEBHOOK_SECRET).")
    raw = request.get_data(cache=True)
    signature_header = current_app.config.get("VOICE_SIGNATURE_HEADER") \
        or DEFAULT_SIGNATURE_HEADER
    timestamp_header = current_app.config.get("VOICE_TIMESTAMP_HEADER") \
        or DEFAULT_TIMESTAMP_HEADER
    try:
        verify(secret, raw, request.headers.get(signature_header),
               request.headers.get(timestamp_header))
    except SignatureInvalid as exc:
        count_refused_signature(current_app)
        abort(401, message=f"Invalid voice webhook signature: {exc}.")
    try:
        payload = json_input.loads(raw, replace_lone_surrogates=True)
    except ValueError:
        abort(400, message="The body is not valid JSON.")
    # JSON carries a NUL only escaped: a peer's events are kept, without it.
    return raw, messages.without_nul(payload) if b"\\u0000" in raw else payload


def _handle():
    raw, payload = _verified_payload()
    try:
        return calls.handle(payload, raw, _base_url, (request.remote_addr, g.get("request_id")))
    except MalformedMessage as exc:
        abort(400, message=f"Not a server message: {exc}.")


@blp.route("/webhook")
class VoiceWebhook(MethodView):
    @blp.doc(security=PUBLIC, responses=SIGNED_ANSWERS)
    @blp.response(200)
    def post(self):
        """Receive a server message from the voice platform (HMAC-signed)"""
        return _handle()


@blp.route("/webhook/assistant-request")
class AssistantRequest(MethodView):
    @blp.doc(security=PUBLIC, responses=SIGNED_ANSWERS)
    @blp.response(200)
    def post(self):
        """Answer the platform's assistant-request with the line's intake assistant"""
        return _handle()


@blp.route("/webhook/call/<call_id>")
class CallState(MethodView):
    @require("voice:read")
    @blp.response(200, CallStateSchema)
    def get(self, call_id):
        """A call's state: status, screeners, risk, escalation and summary"""
        call = calls.get_call(current_org_id(), call_id)
        audit_access("read", "voice_call", call.id)
        return calls.call_state(call)


@blp.route("/webhook/call/<call_id>/transcript")
class CallTranscript(MethodView):
    @require("voice:read")
    @blp.response(200, CallTranscriptSchema)
    def get(self, call_id):
        """A call's final transcript lines, in order"""
        call = calls.get_call(current_org_id(), call_id)
        audit_access("read", "voice_transcript", call.id)
        return calls.transcript(call)


@blp.route("/intake-summaries/<summary_id>")
class IntakeSummary(MethodView):
    @require("voice:read")
    @blp.response(200, IntakeSummarySchema)
    def get(self, summary_id):
        """The handoff packet of a call: details, screeners, risk and transcript excerpt"""
        found = summary.get_summary(current_org_id(), summary_id)
        audit_access("read", "intake_summary", found.id)
        return found


def _with_secret(deployment):
    deployment.signing_secret = deployments.signing_secret(deployment)
    return deployment


@blp.route("/deployments")
class Deployments(MethodView):
    @require("voice:write")
    @idempotent
    @blp.arguments(DeploymentCreateSchema)
    @blp.response(201, DeploymentWithSecretSchema)
    def post(self, body):
        """Create an intake line (the signing secret is shown in full only here)"""
        deployment = deployments.create_deployment(current_org_id(), body)
        audit_access("create", "voice_deployment", deployment.id)
        return _with_secret(deployment)

    @require("voice:read")
    @blp.response(200, DeploymentSchema(many=True))
    @blp.paginate(ListPage)
    def get(self):
        """The organization's intake lines"""
        return deployments.list_deployments(current_org_id())


@blp.route("/deployments/<deployment_id>")
class Deployment(MethodView):
    @require("voice:read")
    @blp.response(200, DeploymentSchema)
    def get(self, deployment_id):
        """One intake line"""
        return deployments.get_deployment(current_org_id(), deployment_id)

    @require("voice:write")
    @blp.arguments(DeploymentUpdateSchema)
    @blp.response(200, DeploymentWithSecretSchema)
    def patch(self, body, deployment_id):
        """Change an intake line's name, number, webhook or screeners (a new `webhook_url`
        is signed with its endpoint's secret, shown in full in this answer)"""
        deployment = deployments.get_deployment(current_org_id(), deployment_id)
        signed_by = deployment.endpoint_id
        deployment = deployments.update_deployment(deployment, body)
        audit_access("update", "voice_deployment", deployment.id)
        if deployment.endpoint_id not in (None, signed_by):
            return _with_secret(deployment)
        return deployment

    @require("voice:write")
    @blp.response(204)
    def delete(self, deployment_id):
        """Remove an intake line (its calls stay)"""
        deployment = deployments.get_deployment(current_org_id(), deployment_id)
        deployments.delete_deployment(deployment.id)
        audit_access("delete", "voice_deployment", deployment.id)


@blp.route("/deployments/<deployment_id>/rotate-secret")
class RotateSecret(MethodView):
    @require("voice:write")
    @blp.response(200, DeploymentWithSecretSchema)
    def post(self, deployment_id):
        """A new signing secret; the old one keeps signing beside it for 24 hours"""
        deployment = deployments.get_deployment(current_org_id(), deployment_id)
        deployment = deployments.rotate_secret(deployment)
        audit_access("update", "voice_deployment", deployment.id)
        return _with_secret(deployment)


@blp.route("/deployments/<deployment_id>/deliveries")
class Deliveries(MethodView):
    @require("voice:read")
    @blp.response(200, DeliverySchema(many=True))
    @blp.paginate(ListPage)
    def get(self, deployment_id):
        """Webhook deliveries to this line's webhook, newest first, with every attempt"""
        deployment = deployments.get_deployment(current_org_id(), deployment_id)
        return outbound.deliveries_for([deployment.endpoint_id] if deployment.endpoint_id
                                       else [])


@blp.route("/deployments/<deployment_id>/deliveries/<delivery_id>/redeliver")
class Redeliver(MethodView):
    @require("voice:write")
    @blp.response(202, DeliverySchema)
    def post(self, deployment_id, delivery_id):
        """Send a delivery's event again (re-enables a disabled webhook)

        A delivery that failed or succeeded: a new delivery of the same event. One still
        pending: its waiting retry, made now."""
        deployment = deployments.get_deployment(current_org_id(), deployment_id)
        found = WebhookDelivery.get_or_none((WebhookDelivery.id == delivery_id)
                                            & (WebhookDelivery.endpoint
                                               == deployment.endpoint_id))
        if found is None:
            raise NotFound("Delivery not found.")
        return outbound.redeliver(found)
