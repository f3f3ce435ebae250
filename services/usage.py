"""Metering: usage events written alongside the work they measure."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from models.base import db, execute_later, prepared, utcnow
from models.statements import insert_row
from models.usage import USAGE_METRICS, UsageEvent, UsageRollup

SLOT = timedelta(minutes=15)
# Written out rather than built per event by the query builder; the same on SQLite and
# PostgreSQL.
_ADD_TO_SLOT = (
    "INSERT INTO usage_rollup (organization_id, metric, slot, quantity) VALUES (?, ?, ?, ?) "
    "ON CONFLICT (organization_id, slot, metric) "
    "DO UPDATE SET quantity = usage_rollup.quantity + excluded.quantity")
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
    insert_row(UsageEvent(organization=organization_id, metric=metric, quantity=quantity,
                          details=details or {}, at=at))
    execute_later(prepared(_ADD_TO_SLOT.replace("?", db.param)),
                  (organization_id, metric, UsageRollup.slot.db_value(slot_floor(at)), quantity))
