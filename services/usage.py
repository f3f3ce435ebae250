"""Metering: usage events written alongside the work they measure."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from peewee import EXCLUDED

from models.base import utcnow
from models.usage import USAGE_METRICS, UsageEvent, UsageRollup

SLOT = timedelta(minutes=15)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def slot_floor(moment: datetime) -> datetime:
    """The start of the 15-minute UTC slot holding `moment`."""
    return _EPOCH + ((moment.astimezone(UTC) - _EPOCH) // SLOT) * SLOT


def record_usage(organization_id: str, metric: str, quantity: int = 1,
                 details: dict[str, Any] | None = None, at: datetime | None = None) -> None:
    """One usage event and its slot's running sum (call inside the work's transaction)."""
    if metric not in USAGE_METRICS:
        raise ValueError(f"unknown usage metric {metric!r}")
    at = at or utcnow()
    UsageEvent.create(organization=organization_id, metric=metric, quantity=quantity,
                      details=details or {}, at=at)
    (UsageRollup.insert(organization=organization_id, metric=metric, slot=slot_floor(at),
                        quantity=quantity)
     .on_conflict(conflict_target=[UsageRollup.organization, UsageRollup.slot,
                                   UsageRollup.metric],
                  update={UsageRollup.quantity: UsageRollup.quantity + EXCLUDED.quantity})
     .execute())
