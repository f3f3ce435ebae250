"""Outbound webhook attempts: one RQ job per attempt of a delivery."""

from __future__ import annotations

import logging

from flask import current_app

from services.outbound import delivery

logger = logging.getLogger(__name__)


def deliver(delivery_id: str, attempt: int) -> str:
    outcome = delivery.attempt_delivery(delivery_id, attempt, current_app.config)
    return outcome.status


def attempt_died(delivery_id: str, attempt: int, error: str) -> None:
    schedule = delivery.retry_schedule(current_app.config)
    delivery.attempt_abandoned(delivery_id, attempt, error, schedule)
