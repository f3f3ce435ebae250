"""Payment methods: read at the processor, attached to the organization's customer, one default.

The body only ever names the processor's payment method (`pm_…`); brand, last4 and expiry are
read from the processor, never taken from the caller.

Each change talks to the processor and then records what it did, outside any transaction (no
database lock is held over the network). Two changes of one organization at once could finish
in either order at each side, leaving the processor's default and ours on different cards, so
they take turns: `_one_change_at_a_time` holds a lease on the organization row, committed, and
re-reads the state it changes once it has it."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import stripe
from peewee import ModelSelect

from models.base import db, utcnow
from models.billing import PaymentMethod
from models.organizations import Organization
from services.billing import processor
from services.errors import Conflict, Unprocessable
from services.tenancy import get_owned

# Longer than a change can take: the client's timeout and network retry on each call.
LEASE = timedelta(minutes=5)
WAIT_FOR_TURN_S = 20.0
_POLL_S = 0.05

logger = logging.getLogger(__name__)


@contextmanager
def _one_change_at_a_time(organization_id: str) -> Iterator[None]:
    """Take the organization's billing lease (waiting up to WAIT_FOR_TURN_S for another change
    to finish, then 409); a lease its holder never gave back (a killed process) lapses."""
    deadline = time.monotonic() + WAIT_FOR_TURN_S
    while True:
        now = utcnow()
        with db.atomic():
            claimed = (Organization.update(billing_busy_until=now + LEASE)
                       .where((Organization.id == organization_id)
                              & (Organization.billing_busy_until.is_null()
                                 | (Organization.billing_busy_until < now)))
                       .execute())
        if claimed:
            break
        if time.monotonic() > deadline:
            raise Conflict("Another change to this organization's payment methods is in "
                           "progress; retry when it has finished.")
        time.sleep(_POLL_S)
    try:
        yield
    finally:
        with db.atomic():
            Organization.update(billing_busy_until=None).where(
                Organization.id == organization_id).execute()


def _expired(exp_month: int | None, exp_year: int | None, now: datetime) -> bool:
    if not exp_month or not exp_year:
        return False
    return (exp_year, exp_month) < (now.year, now.month)


def list_methods(organization_id: str) -> ModelSelect:
    return (PaymentMethod.select().where(PaymentMethod.organization == organization_id)
            .order_by(PaymentMethod.created_at, PaymentMethod.id))


def _set_default_locally(organization_id: str, method_id: str | None) -> None:
    PaymentMethod.update(is_default=False).where(
        PaymentMethod.organization == organization_id).execute()
    if method_id:
        PaymentMethod.update(is_default=True).where(PaymentMethod.id == method_id).execute()


def _set_default_at_processor(client: stripe.StripeClient, customer: str,
                              processor_id: str | None) -> None:
    client.v1.customers.update(
        customer, {"invoice_settings": {"default_payment_method": processor_id or ""}},
        # One key per switch: the library resends it on its own retries of this request,
        # while a later switch back to the same method is a new request.
        {"idempotency_key": f"cws-default-{customer}-{uuid.uuid4().hex}"})


def add_method(organization_id: str, data: Mapping[str, Any], config: Mapping[str, Any],
               now: datetime | None = None) -> PaymentMethod:
    """Read the payment method, refuse an expired card, attach it, and store the reference."""
    client = processor.client(config)
    with _one_change_at_a_time(organization_id):
        return _add(organization_id, data, config, client, now)


def _add(organization_id: str, data: Mapping[str, Any], config: Mapping[str, Any],
         client: stripe.StripeClient, now: datetime | None) -> PaymentMethod:
    organization = Organization.get_by_id(organization_id)
    processor_id = data["payment_method"]
    if PaymentMethod.select().where((PaymentMethod.organization == organization_id)
                                    & (PaymentMethod.processor_id == processor_id)).exists():
        raise Conflict("This payment method is already on file.", field="payment_method")
    try:
        remote = client.v1.payment_methods.retrieve(processor_id).to_dict()
        card = remote.get("card") or {}
        if _expired(card.get("exp_month"), card.get("exp_year"), now or datetime.now(UTC)):
            raise Unprocessable("The card has expired.", field="payment_method")
        customer = processor.ensure_customer(organization, config)
        if remote.get("customer") not in (None, customer):
            raise Conflict("This payment method belongs to another customer.",
                           field="payment_method")
        if remote.get("customer") is None:
            client.v1.payment_methods.attach(
                processor_id, {"customer": customer},
                {"idempotency_key": f"cws-attach-{organization_id}-{uuid.uuid4().hex}"})
        first = not list_methods(organization_id).exists()
        make_default = bool(data.get("set_default")) or first
        if make_default:
            _set_default_at_processor(client, customer, processor_id)
    except stripe.StripeError as error:
        raise processor.upstream_error(error) from error
    with db.atomic():
        method = PaymentMethod.create(
            organization=organization_id, processor=processor.PROCESSOR,
            processor_id=processor_id, type=remote.get("type") or "card",
            brand=card.get("brand"), last4=card.get("last4"),
            exp_month=card.get("exp_month"), exp_year=card.get("exp_year"),
            billing_details=data.get("billing_details") or {})
        if make_default:
            _set_default_locally(organization_id, method.id)
            method.is_default = True
    return method


def get_method(organization_id: str, method_id: str) -> PaymentMethod:
    return get_owned(PaymentMethod, organization_id, method_id, "Payment method")


def make_default(organization_id: str, method_id: str, config: Mapping[str, Any]
                 ) -> PaymentMethod:
    get_method(organization_id, method_id)
    client = processor.client(config)
    with _one_change_at_a_time(organization_id):
        method = get_method(organization_id, method_id)  # it may have gone meanwhile
        organization = Organization.get_by_id(organization_id)
        try:
            _set_default_at_processor(client, processor.ensure_customer(organization, config),
                                      method.processor_id)
        except stripe.StripeError as error:
            raise processor.upstream_error(error) from error
        with db.atomic():
            _set_default_locally(organization_id, method.id)
    return get_method(organization_id, method_id)


def remove_method(organization_id: str, method_id: str, config: Mapping[str, Any]) -> None:
    """Detach at the processor, then forget it; the oldest remaining one becomes the default
    when the default goes. Once detached, the card is gone at the processor, so it goes here
    too: if the processor then refuses the new default, no card is the default (here, nor
    usable there) until the clinic chooses one, rather than a 502 that left the detached card
    listed here as the default."""
    get_method(organization_id, method_id)
    client = processor.client(config)
    with _one_change_at_a_time(organization_id):
        method = get_method(organization_id, method_id)  # it may have gone meanwhile
        try:
            _detach(client, method.processor_id)
        except stripe.StripeError as error:
            raise processor.upstream_error(error) from error
        successor = None
        if method.is_default:
            successor = list_methods(organization_id).where(
                PaymentMethod.id != method.id).first()
            customer = processor.customer_id(Organization.get_by_id(organization_id))
            if customer:
                try:
                    _set_default_at_processor(client, customer,
                                              successor.processor_id if successor else None)
                except stripe.StripeError as error:
                    logger.warning("payment method removed; the processor refused the next "
                                   "default (%s): none is the default now",
                                   type(error).__name__)
                    successor = None
        with db.atomic():
            method.delete_instance()
            if method.is_default:
                _set_default_locally(organization_id, successor.id if successor else None)


def _detach(client: stripe.StripeClient, processor_id: str) -> None:
    """Detach, once per request: a fixed key would make the processor replay a failure it
    saved (Stripe keeps a 500 under its key) on every later try. A method already detached
    (an earlier try that succeeded, its answer lost) counts as done."""
    try:
        client.v1.payment_methods.detach(
            processor_id, options={"idempotency_key": f"cws-detach-{uuid.uuid4().hex}"})
    except stripe.InvalidRequestError:
        if client.v1.payment_methods.retrieve(processor_id).to_dict().get("customer"):
            raise
