"""Outbound webhook attempts: one RQ job per attempt of a delivery."""

from __future__ import annotations

import logging

from flask import current_app

from jobs.queue import QUEUE_WEBHOOKS, enqueue, job_id
from services.outbound import delivery

logger = logging.getLogger(__name__)


def queue_attempt(delivery_id: str, attempt: int, reason: str, delay_s: float = 0) -> None:
    """Queue attempt `attempt` of a delivery (inside the caller's transaction). `reason` keeps
    the job id distinct when a waiting delivery is woken by the one it waited on."""
    # One job per attempt: the retry schedule is the delivery's own, not RQ's.
    enqueue(deliver, delivery_id, attempt,
            id=job_id("webhook", delivery_id, attempt, reason), queue=QUEUE_WEBHOOKS,
            max_attempts=1, on_failure=attempt_died, delay_s=delay_s)


def deliver(delivery_id: str, attempt: int) -> str:
    outcome = delivery.attempt_delivery(delivery_id, attempt, current_app.config)
    return outcome.status


def attempt_died(delivery_id: str, attempt: int, error: str) -> None:
    schedule = delivery.retry_schedule(current_app.config)
    delivery.attempt_abandoned(delivery_id, attempt, error, schedule)
