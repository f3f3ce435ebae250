"""Voice deployments: a clinic's intake line (its number, screeners and webhook)."""

from __future__ import annotations

from typing import Any

from peewee import IntegrityError

from models.base import db, utcnow
from models.outbound import WebhookEndpoint
from models.voice import VoiceDeployment
from services.errors import Conflict, Unprocessable
from services.outbound import endpoints
from services.tenancy import get_owned
from services.voice import screeners as screener_defs
from services.voice.messages import normalize_number


def _check_screeners(names: list[str] | None) -> list[str]:
    if names is None:
        return list(screener_defs.DEFAULT_SCREENERS)
    try:
        return list(dict.fromkeys(screener_defs.get(n).name for n in names))
    except screener_defs.ScreenerError as exc:
        raise Unprocessable(str(exc), field="screeners") from exc


def _endpoint_for(organization_id: str, url: str | None) -> WebhookEndpoint | None:
    return endpoints.ensure_endpoint(organization_id, url) if url else None


def ensure_deployment(organization_id: str, *, name: str, phone_number: str,
                      webhook_url: str | None, screeners: list[str] | None = None
                      ) -> VoiceDeployment:
    """The organization's deployment for this number, created when missing (idempotent per
    organization and number: provisioning run again). A number another organization holds:
    Conflict."""
    number = normalize_number(phone_number)
    existing = VoiceDeployment.get_or_none(VoiceDeployment.phone_number == number)
    if existing is not None:
        if existing.organization_id != organization_id:
            raise Conflict("This phone number belongs to another deployment.",
                           field="phone_number")
        return existing
    created = _insert(organization_id, name, number, webhook_url, screeners)
    if created is None:  # the same number claimed concurrently
        return ensure_deployment(organization_id, name=name, phone_number=number,
                                 webhook_url=webhook_url, screeners=screeners)
    return created


def create_deployment(organization_id: str, body: dict[str, Any]) -> VoiceDeployment:
    """A new deployment; a number already in use (here or elsewhere) is a Conflict, also when
    another request claims it at the same moment (that request's deployment is not this
    one's)."""
    number = normalize_number(body["phone_number"])
    taken = Conflict("This phone number already has a deployment.", field="phone_number")
    if VoiceDeployment.select().where(VoiceDeployment.phone_number == number).exists():
        raise taken
    # An empty webhook_url is none: stored as null, as the deployment behaves.
    created = _insert(organization_id, body["name"], number, body.get("webhook_url") or None,
                      body.get("screeners"))
    if created is None:
        raise taken
    return created


def _insert(organization_id: str, name: str, number: str, webhook_url: str | None,
            screeners: list[str] | None) -> VoiceDeployment | None:
    """The new deployment, or None when the number's unique index refused it."""
    chosen = _check_screeners(screeners)
    try:
        with db.atomic():
            return VoiceDeployment.create(
                organization=organization_id, name=name, phone_number=number,
                webhook_url=webhook_url, endpoint=_endpoint_for(organization_id, webhook_url),
                screeners=chosen)
    except IntegrityError:
        return None


def get_deployment(organization_id: str, deployment_id: str) -> VoiceDeployment:
    return get_owned(VoiceDeployment, organization_id, deployment_id, "Deployment")


def list_deployments(organization_id: str):
    return (VoiceDeployment.select().where(VoiceDeployment.organization == organization_id)
            .order_by(VoiceDeployment.created_at, VoiceDeployment.id))


def update_deployment(deployment: VoiceDeployment, changes: dict[str, Any]) -> VoiceDeployment:
    with db.atomic():
        if "name" in changes:
            deployment.name = changes["name"]
        if "screeners" in changes:
            deployment.screeners = _check_screeners(changes["screeners"])
        if "phone_number" in changes:
            number = normalize_number(changes["phone_number"])
            taken = VoiceDeployment.select().where(
                (VoiceDeployment.phone_number == number)
                & (VoiceDeployment.id != deployment.id)).exists()
            if taken:
                raise Conflict("This phone number already has a deployment.",
                               field="phone_number")
            deployment.phone_number = number
        if "webhook_url" in changes:
            deployment.webhook_url = changes["webhook_url"] or None
            deployment.endpoint = _endpoint_for(deployment.organization_id,
                                                deployment.webhook_url)
        deployment.updated_at = utcnow()
        deployment.save()
    return deployment


def rotate_secret(deployment: VoiceDeployment) -> VoiceDeployment:
    """A new signing secret for the deployment's webhook (the old one signs for 24 h more)."""
    if deployment.endpoint_id is None:
        raise Conflict("This deployment has no webhook_url, so nothing is signed.")
    with db.atomic():
        endpoints.rotate_secret(WebhookEndpoint.get_by_id(deployment.endpoint_id))
        (VoiceDeployment.update(updated_at=utcnow())
         .where(VoiceDeployment.id == deployment.id).execute())
    return VoiceDeployment.get_by_id(deployment.id)


def signing_secret(deployment: VoiceDeployment) -> str | None:
    if deployment.endpoint_id is None:
        return None
    return WebhookEndpoint.get_by_id(deployment.endpoint_id).secret


def delete_deployment(deployment_id: str) -> None:
    VoiceDeployment.delete().where(VoiceDeployment.id == deployment_id).execute()


def find_for_message(deployment_id: str | None, number: str | None) -> VoiceDeployment | None:
    """The call's deployment: named in the metadata, else the owner of the called number."""
    if deployment_id:
        found = VoiceDeployment.get_or_none(VoiceDeployment.id == deployment_id)
        if found is not None:
            return found
    if number:
        return VoiceDeployment.get_or_none(VoiceDeployment.phone_number == number)
    return None
