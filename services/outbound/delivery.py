"""Outbound webhook delivery: an outbox row written with the event, sent by RQ jobs.

`emit` writes the event (its body serialised once, the bytes every attempt sends) and its
delivery row in the caller's transaction, and queues the first attempt for after the commit:
nothing is lost if Redis is down (the job row is swept back), nothing is sent for work that
rolled back. Each attempt is claimed with a conditional update on the attempt counter, so a
job that runs twice (sweep, redelivery, a wake-up) never sends the same attempt twice.

Deliveries that share an ordering key (one call's events) go out oldest first: a delivery
waits while an older one of its key is still pending, and the older one wakes it when it
finishes, whether it succeeded or gave up.
"""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import requests
from peewee import IntegrityError

from models.base import db, new_id, utcnow
from models.jobs import QUEUE_WEBHOOKS, job_id, record_job
from models.outbound import DeliveryAttempt, OutboundEvent, WebhookDelivery, WebhookEndpoint
from services.outbound import endpoints
from services.outbound.addresses import AddressRefused, check_destination
from services.outbound.signing import body_signature, standard_headers
from services.retry_after import MAX_RETRY_AFTER_S, parse_retry_after
from services.usage import record_usage

logger = logging.getLogger(__name__)

RETRY_DELAYS_S = (5, 300, 1800, 7200, 18000, 36000, 36000)
JITTER_FRACTION = 0.1
TIMEOUT_S = 15
MAX_ERROR_CHARS = 300
USER_AGENT = "ClinicalWorkflowService-Webhooks/1.0"
GONE = 410


@dataclass(frozen=True)
class Outcome:
    """What one attempt did: `sent` (2xx), `retry` (with its delay), `failed`, or `skipped`
    (not this job's turn: already claimed, finished, or waiting behind an older delivery)."""

    status: str
    delay_s: float | None = None


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def serialise(event: str, event_id: str, occurred_at: datetime, fields: Mapping[str, Any]) -> str:
    # The envelope wins over a field of the same name: the body must say what the signed
    # headers say (`webhook-id` is `event_id`).
    body = {"event": event, "event_id": event_id, "occurred_at": iso(occurred_at)}
    body.update((name, value) for name, value in fields.items() if name not in body)
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def emit(endpoint: WebhookEndpoint | None, event: str, fields: dict, *, ordering_key: str,
         event_id: str | None = None) -> OutboundEvent | None:
    """Write `event` for `endpoint` in the caller's transaction and queue its delivery after
    the commit. No endpoint: nothing is written or sent. The same `event_id` twice: the
    first event is returned and nothing more is sent."""
    if endpoint is None:
        return None
    event_id = event_id or new_id("evt")
    with db.atomic():
        existing = OutboundEvent.get_or_none(OutboundEvent.id == event_id)
        if existing is not None:
            return existing
        now = utcnow()
        try:
            with db.atomic():
                record = OutboundEvent.create(
                    id=event_id, organization=endpoint.organization_id, event=event,
                    body=serialise(event, event_id, now, fields), created_at=now)
        except IntegrityError:  # the same event emitted concurrently: that one is sent
            return OutboundEvent.get_by_id(event_id)
        delivery = WebhookDelivery.create(event=record, endpoint=endpoint,
                                          ordering_key=ordering_key, created_at=now)
        _queue_attempt(delivery, 1, "emit")
    return record


def redeliver(delivery: WebhookDelivery) -> WebhookDelivery:
    """Send an event again as a new delivery (its own attempts); re-enables the endpoint,
    since asking for a redelivery says the receiver is back.

    A delivery still being tried is not doubled: a new one waited behind it (its calls'
    order) until its next retry, hours away late in the schedule, and then the event went out
    twice, the second after the call's later events. Its waiting retry is made now instead."""
    with db.atomic():
        endpoints.enable(delivery.endpoint)
        current = WebhookDelivery.get_by_id(delivery.id)
        if current.status == "pending":
            now = utcnow()
            waiting = current.next_attempt_at is not None and current.next_attempt_at > now
            if waiting:  # not an attempt under way, which ends by itself
                (WebhookDelivery.update(next_attempt_at=now)
                 .where(WebhookDelivery.id == current.id).execute())
                _queue_attempt(current, current.attempts + 1, "redeliver")
            return WebhookDelivery.get_by_id(current.id)
        again = WebhookDelivery.create(event=delivery.event_id, endpoint=delivery.endpoint_id,
                                       ordering_key=delivery.ordering_key)
        _queue_attempt(again, 1, "redeliver")
    return again


DELIVERY_JOB = "jobs.outbound.deliver"
DELIVERY_DIED_HOOK = "jobs.outbound.attempt_died"


def _queue_attempt(delivery: WebhookDelivery, attempt: int, reason: str,
                   delay_s: float = 0) -> None:
    """Record attempt `attempt` (inside the caller's transaction); `reason` keeps the job id
    distinct when a waiting delivery is woken by the one it waited on. One job per attempt:
    the retry schedule is the delivery's own, not RQ's."""
    record_job(DELIVERY_JOB, delivery.id, attempt,
               id=job_id("webhook", delivery.id, attempt, reason), queue=QUEUE_WEBHOOKS,
               max_attempts=1, on_failure=DELIVERY_DIED_HOOK, delay_s=delay_s)


def _older_pending(delivery: WebhookDelivery) -> bool:
    return WebhookDelivery.select().where(
        (WebhookDelivery.endpoint == delivery.endpoint_id)
        & (WebhookDelivery.ordering_key == delivery.ordering_key)
        & (WebhookDelivery.status == "pending")
        & ((WebhookDelivery.created_at < delivery.created_at)
           | ((WebhookDelivery.created_at == delivery.created_at)
              & (WebhookDelivery.id < delivery.id)))).exists()


def _wake_next(delivery: WebhookDelivery) -> None:
    """Queue the oldest pending delivery of the same ordering key (it was waiting on this one)."""
    following = (WebhookDelivery.select()
                 .where((WebhookDelivery.endpoint == delivery.endpoint_id)
                        & (WebhookDelivery.ordering_key == delivery.ordering_key)
                        & (WebhookDelivery.status == "pending")
                        & (WebhookDelivery.id != delivery.id))
                 .order_by(WebhookDelivery.created_at, WebhookDelivery.id).first())
    if following is not None:
        _queue_attempt(following, following.attempts + 1, f"after-{delivery.id}")


def retry_schedule(config: Mapping[str, Any]) -> tuple[float, ...]:
    """The retry delays: `WEBHOOK_RETRY_DELAYS_S` when configured (tests), else the SPEC's."""
    configured = config.get("WEBHOOK_RETRY_DELAYS_S")
    return RETRY_DELAYS_S if configured is None else tuple(configured)


def retry_delay_s(attempt: int, schedule: tuple[float, ...] = RETRY_DELAYS_S,
                  retry_after_s: float | None = None) -> float | None:
    """Delay before the attempt after `attempt` (1-based), jittered ±10 %; None when the
    schedule is exhausted. A receiver's `Retry-After` is a floor, capped at a day."""
    if attempt > len(schedule):
        return None
    base = schedule[attempt - 1]
    delay = base * random.uniform(1 - JITTER_FRACTION, 1 + JITTER_FRACTION)
    if retry_after_s is not None:
        delay = max(delay, min(retry_after_s, MAX_RETRY_AFTER_S))
    return delay


def _claim(delivery_id: str, attempt: int) -> WebhookDelivery | None:
    """Take attempt number `attempt` of a pending delivery, or None if it is not ours."""
    with db.atomic():
        delivery = WebhookDelivery.get_or_none(WebhookDelivery.id == delivery_id)
        if delivery is None or delivery.status != "pending" or delivery.attempts != attempt - 1:
            return None
        if _older_pending(delivery):
            return None
        claimed = (WebhookDelivery.update(attempts=attempt)
                   .where((WebhookDelivery.id == delivery_id)
                          & (WebhookDelivery.attempts == attempt - 1)
                          & (WebhookDelivery.status == "pending")).execute())
        return WebhookDelivery.get_by_id(delivery_id) if claimed else None


def attempt_delivery(delivery_id: str, attempt: int, config: Mapping[str, Any]) -> Outcome:
    """Make attempt number `attempt` of a delivery and record it."""
    delivery = _claim(delivery_id, attempt)
    if delivery is None:
        return Outcome("skipped")
    endpoint = WebhookEndpoint.get_or_none(WebhookEndpoint.id == delivery.endpoint_id)
    event = OutboundEvent.get_by_id(delivery.event_id)
    started = time.perf_counter()
    status_code: int | None = None
    retry_after: float | None = None
    if endpoint is None or endpoint.disabled_at is not None:
        _finish(delivery, "failed", None, "the endpoint is disabled", started)
        return Outcome("failed")
    try:
        check_destination(endpoint.url, bool(config.get("ALLOW_PRIVATE_WEBHOOK_URLS")))
        response = _send(endpoint, event, float(config.get("WEBHOOK_TIMEOUT_S") or TIMEOUT_S))
        status_code = response.status_code
        error = None if 200 <= status_code < 300 else f"HTTP {status_code}"
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
    except AddressRefused as exc:
        error = f"address refused: {exc}"
    except requests.Timeout:
        error = "timed out"
    except requests.RequestException as exc:
        error = f"connection failed: {type(exc).__name__}"
    if error is None:
        _finish(delivery, "succeeded", status_code, None, started)
        return Outcome("sent")
    if status_code == GONE:
        endpoints.disable(endpoint.id, "the receiver answered 410 Gone")
        _finish(delivery, "failed", status_code, error, started)
        logger.info("endpoint %s disabled after 410", endpoint.id)
        return Outcome("failed")
    schedule = retry_schedule(config)
    delay = retry_delay_s(attempt, schedule, retry_after)
    if delay is None:
        _finish(delivery, "failed", status_code, error, started)
        return Outcome("failed")
    _record_retry(delivery, attempt, status_code, error, started, delay)
    return Outcome("retry", delay)


def _send(endpoint: WebhookEndpoint, event: OutboundEvent, timeout_s: float) -> requests.Response:
    body = event.body.encode()
    now = utcnow()
    headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT,
               "Service-Event": event.event,
               "Service-Signature": body_signature(endpoint.secret, body),
               **standard_headers(event.id, body, endpoints.signing_secrets(endpoint), now)}
    # Redirects are not followed: a 3xx is a failed attempt (it could point anywhere).
    with requests.post(endpoint.url, data=body, headers=headers, timeout=timeout_s,
                       allow_redirects=False, stream=True) as response:
        return response


def _log_attempt(delivery: WebhookDelivery, status_code: int | None, error: str | None,
                 started: float, next_at: datetime | None = None) -> None:
    DeliveryAttempt.create(delivery=delivery, number=delivery.attempts, status_code=status_code,
                           error=error[:MAX_ERROR_CHARS] if error else None,
                           duration_ms=int((time.perf_counter() - started) * 1000),
                           next_attempt_at=next_at)


def _finish(delivery: WebhookDelivery, status: str, status_code: int | None,
            error: str | None, started: float) -> None:
    with db.atomic():
        _log_attempt(delivery, status_code, error, started)
        now = utcnow()
        (WebhookDelivery.update(status=status, last_status_code=status_code,
                                last_error=error[:MAX_ERROR_CHARS] if error else None,
                                delivered_at=now if status == "succeeded" else None)
         .where(WebhookDelivery.id == delivery.id).execute())
        if status == "succeeded":
            record_usage(delivery.endpoint.organization_id, "webhook_deliveries",
                         details={"event": delivery.event.event})
        _wake_next(delivery)
    logger.info("delivery %s attempt %s: %s", delivery.id, delivery.attempts, status)


def _record_retry(delivery: WebhookDelivery, attempt: int, status_code: int | None, error: str,
                  started: float, delay_s: float) -> None:
    next_at = utcnow() + timedelta(seconds=delay_s)
    with db.atomic():
        _log_attempt(delivery, status_code, error, started, next_at)
        (WebhookDelivery.update(last_status_code=status_code, last_error=error[:MAX_ERROR_CHARS],
                                next_attempt_at=next_at)
         .where(WebhookDelivery.id == delivery.id).execute())
        _queue_attempt(delivery, attempt + 1, "retry", delay_s)
    logger.info("delivery %s attempt %s failed (%s); retry in %.0f s", delivery.id, attempt,
                error, delay_s)


ABANDONED = "abandoned"


def attempt_abandoned(delivery_id: str, attempt: int, error: str,
                      schedule: tuple[float, ...] = RETRY_DELAYS_S) -> None:
    """The job of an attempt died (worker killed): queue that attempt again if it never
    started, else log it as abandoned and queue the next one on the schedule, so the delivery
    is never left stranded. An abandoned attempt may have reached the receiver without its
    answer being recorded: the next one carries the same `webhook-id`, so the receiver can
    tell it is the same event."""
    delivery = WebhookDelivery.get_or_none(WebhookDelivery.id == delivery_id)
    if delivery is None or delivery.status != "pending":
        return
    with db.atomic():
        if delivery.attempts == attempt - 1:
            _queue_attempt(delivery, attempt, "requeued")
            return
        if delivery.attempts != attempt:
            return
        reason = f"{ABANDONED}: {error}"[:MAX_ERROR_CHARS]
        delay = retry_delay_s(attempt, schedule)
        next_at = utcnow() + timedelta(seconds=delay) if delay is not None else None
        logged = DeliveryAttempt.select().where((DeliveryAttempt.delivery == delivery)
                                                & (DeliveryAttempt.number == attempt)).exists()
        if not logged:
            DeliveryAttempt.create(delivery=delivery, number=attempt, error=reason,
                                   duration_ms=0, next_attempt_at=next_at)
        if delay is None:
            WebhookDelivery.update(status="failed", last_error=reason).where(
                WebhookDelivery.id == delivery_id).execute()
            _wake_next(delivery)
        else:
            WebhookDelivery.update(last_error=reason, next_attempt_at=next_at).where(
                WebhookDelivery.id == delivery_id).execute()
            _queue_attempt(delivery, attempt + 1, "retry", delay)
    logger.warning("delivery %s attempt %s abandoned by its worker", delivery_id, attempt)


def deliveries_for(endpoint_ids: list[str]):
    return (WebhookDelivery.select().where(WebhookDelivery.endpoint.in_(endpoint_ids))
            .order_by(WebhookDelivery.created_at.desc(), WebhookDelivery.id))


def attempts_of(delivery: WebhookDelivery) -> list[DeliveryAttempt]:
    return list(DeliveryAttempt.select().where(DeliveryAttempt.delivery == delivery)
                .order_by(DeliveryAttempt.number))
