"""The outbound intake events of a call, sent to its deployment's webhook."""

from __future__ import annotations

from models.outbound import WebhookEndpoint
from models.voice import VoiceCall, VoiceDeployment
from services.outbound.delivery import emit


def emit_for_call(call: VoiceCall, event: str, fields: dict, slug: str,
                  ordered: bool = True) -> None:
    """Emit once per call and `slug` (the event id is derived from both); the call's events
    share its ordering key, so they reach the clinic in order. An event that must not wait
    behind the retries of earlier ones (a crisis) is sent `ordered=False`, on a key of its
    own."""
    endpoint = None
    endpoint_id = call.endpoint_id  # the deployment's, unless it was deleted during the call
    if call.deployment_id:
        deployment = VoiceDeployment.get_or_none(VoiceDeployment.id == call.deployment_id)
        if deployment is not None:
            endpoint_id = deployment.endpoint_id  # its webhook_url may have changed since
    if endpoint_id:
        endpoint = WebhookEndpoint.get_or_none(WebhookEndpoint.id == endpoint_id)
    key = f"call:{call.call_id}" if ordered else f"call:{call.call_id}:{slug}"
    emit(endpoint, event, fields, ordering_key=key[:200],
         event_id=f"evt_{call.id.removeprefix('vcl_')}_{slug}")
