"""Metering: usage events written alongside the work they measure."""

from __future__ import annotations

from typing import Any

from models.usage import USAGE_METRICS, UsageEvent


def record_usage(organization_id: str, metric: str, quantity: int = 1,
                 details: dict[str, Any] | None = None) -> None:
    if metric not in USAGE_METRICS:
        raise ValueError(f"unknown usage metric {metric!r}")
    UsageEvent.create(organization=organization_id, metric=metric, quantity=quantity,
                      details=details or {})
