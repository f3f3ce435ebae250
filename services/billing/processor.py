"""The card processor (Stripe) through its own client library.

Every write carries an idempotency key, so the library's own retry of a request is not done
twice. The processor keeps a key's first answer, a 500 included, and answers it again to every
later request with that key; so a key derived from what is done (the organization's customer)
is replaced by the next one once the processor has answered it with a 5xx."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import stripe

from models.base import db
from models.organizations import Organization
from services.errors import DomainError, Unprocessable, UpstreamFailure
from services.retry_after import parse_retry_after

logger = logging.getLogger(__name__)

PROCESSOR = "stripe"
NETWORK_RETRIES = 1
# Seconds a try may wait for the processor (to connect, between bytes); with the one retry a
# silent processor is answered 502 within about twice this.
DEFAULT_TIMEOUT_S = 15.0
NOT_CONFIGURED = "No payment processor is configured (set STRIPE_API_KEY)."


def configured(config: Mapping[str, Any]) -> bool:
    return bool(config.get("STRIPE_API_KEY"))


def client(config: Mapping[str, Any]) -> stripe.StripeClient:
    if not configured(config):
        raise UpstreamFailure(NOT_CONFIGURED, status=503)
    # The library's own timeout is 80 s a try: a processor that went silent held a request
    # (and the organization's payment-method lock) for 161 s, past most proxies' patience.
    return stripe.StripeClient(
        config["STRIPE_API_KEY"], base_addresses={"api": config["STRIPE_API_BASE"]},
        max_network_retries=NETWORK_RETRIES,
        http_client=stripe.RequestsClient(timeout=float(config.get("STRIPE_TIMEOUT_S") or
                                                        DEFAULT_TIMEOUT_S)))


def upstream_error(error: stripe.StripeError) -> DomainError:
    """The processor's own message. What the processor refuses about the client's own input (a
    payment method that does not exist, a declined card) is the client's 422 on
    `payment_method`; anything else (unreachable, its 5xx, our key refused) is a 502."""
    if isinstance(error, stripe.APIConnectionError):
        # The library's text names the host and port it tried and the socket's error.
        message = "unreachable (no connection, or no answer in time); try again shortly."
    elif error.http_status and not isinstance((error.json_body or {}).get("error"), dict):
        # Not the processor's JSON error object (an HTML page from a proxy in front of it):
        # the library quotes the whole body, which says nothing to the client.
        message = (f"answered HTTP {error.http_status} without an error it describes; "
                   "try again shortly.")
    else:
        message = getattr(error, "user_message", None) or str(error) or "processor error"
    code = getattr(error, "code", None)
    logger.warning("payment processor error %s (%s)", type(error).__name__, code)
    if isinstance(error, stripe.CardError | stripe.InvalidRequestError) and \
            not isinstance(error, stripe.AuthenticationError) and not _customer_gone(error):
        return Unprocessable(f"Payment processor: {message}", field="payment_method",
                             extra={"processor_code": code})
    # A processor that asked to be left alone (429): its wait comes with the 502.
    asked = (getattr(error, "headers", None) or {}).get("Retry-After") \
        if isinstance(error, stripe.RateLimitError) else None
    return UpstreamFailure(f"Payment processor: {message}", status=502,
                           extra={"processor_code": code},
                           retry_after_s=parse_retry_after(asked))


def _customer_gone(error: stripe.StripeError) -> bool:
    """The processor no longer knows the organization's customer (deleted there): its own
    state, not the client's input, so a 502 rather than a 422 on `payment_method`."""
    return getattr(error, "code", None) == "resource_missing" and \
        (getattr(error, "param", None) == "customer"
         or str(getattr(error, "user_message", None) or error).startswith("No such customer"))


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
    billing = (organization.settings or {}).get("billing", {})
    generation = billing.get("customer_key_generation", 0)
    key = f"cws-customer-{organization.id}" + (f"-{generation}" if generation else "")
    try:
        customer = client(config).v1.customers.create(params, {"idempotency_key": key})
    except stripe.StripeError as error:
        if (getattr(error, "http_status", None) or 0) >= 500:
            _next_customer_key(organization.id, generation + 1)
        raise
    _save_billing(organization.id, {"processor": PROCESSOR, "customer_id": customer.id})
    return customer.id


def _next_customer_key(organization_id: str, generation: int) -> None:
    """A timeout or a crash keeps the key (a customer the lost answer created is found by it
    again); a 5xx answer is saved under it, so the next try needs another."""
    _save_billing(organization_id, {"customer_key_generation": generation}, merge=True)


def _save_billing(organization_id: str, billing: dict[str, Any], merge: bool = False) -> None:
    """Write the organization's billing settings from a fresh read of its row (other settings
    may have changed since the caller read it)."""
    with db.atomic():
        organization = Organization.get_by_id(organization_id)
        settings = dict(organization.settings or {})
        settings["billing"] = {**settings.get("billing", {}), **billing} if merge else billing
        organization.settings = settings
        organization.save(only=[Organization.settings])
