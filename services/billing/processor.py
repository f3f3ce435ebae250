"""The card processor (Stripe) through its own client library.

Every write carries an idempotency key derived from what it does, so a retried request or a
re-run provisioning step never creates a second customer or attaches twice."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import stripe

from models.base import db
from models.organizations import Organization
from services.errors import DomainError, Unprocessable, UpstreamFailure

logger = logging.getLogger(__name__)

PROCESSOR = "stripe"
NETWORK_RETRIES = 1
NOT_CONFIGURED = "No payment processor is configured (set STRIPE_API_KEY)."


def configured(config: Mapping[str, Any]) -> bool:
    return bool(config.get("STRIPE_API_KEY"))


def client(config: Mapping[str, Any]) -> stripe.StripeClient:
    if not configured(config):
        raise UpstreamFailure(NOT_CONFIGURED, status=503)
    return stripe.StripeClient(
        config["STRIPE_API_KEY"], base_addresses={"api": config["STRIPE_API_BASE"]},
        max_network_retries=NETWORK_RETRIES)


def upstream_error(error: stripe.StripeError) -> DomainError:
    """The processor's own message. What the processor refuses about the client's own input (a
    payment method that does not exist, a declined card) is the client's 422 on
    `payment_method`; anything else (unreachable, its 5xx, our key refused) is a 502."""
    message = getattr(error, "user_message", None) or str(error) or "processor error"
    code = getattr(error, "code", None)
    logger.warning("payment processor error %s (%s)", type(error).__name__, code)
    if isinstance(error, stripe.CardError | stripe.InvalidRequestError) and \
            not isinstance(error, stripe.AuthenticationError):
        return Unprocessable(f"Payment processor: {message}", field="payment_method",
                             extra={"processor_code": code})
    return UpstreamFailure(f"Payment processor: {message}", status=502,
                           extra={"processor_code": code})


def customer_id(organization: Organization) -> str | None:
    return (organization.settings or {}).get("billing", {}).get("customer_id")


def ensure_customer(organization: Organization, config: Mapping[str, Any],
                    email: str | None = None) -> str:
    """The organization's processor customer, created once (the idempotency key makes a
    repeated create answer the same customer)."""
    existing = customer_id(organization)
    if existing:
        return existing
    params: dict[str, Any] = {"name": organization.name,
                              "metadata": {"organization_id": organization.id}}
    if email:
        params["email"] = email
    customer = client(config).v1.customers.create(
        params, {"idempotency_key": f"cws-customer-{organization.id}"})
    with db.atomic():
        organization = Organization.get_by_id(organization.id)
        settings = dict(organization.settings or {})
        settings["billing"] = {"processor": PROCESSOR, "customer_id": customer.id}
        organization.settings = settings
        organization.save(only=[Organization.settings])
    return customer.id
