"""Monthly quotas per plan, counted from the usage events in the organization's timezone."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from models.base import is_postgres
from models.organizations import Organization
from services.errors import TooManyRequests
from services.organizations.usage import floor_boundary, next_boundary, used_since

QUOTA_PERIOD = "month"
PLANS = ("starter", "standard", "enterprise")
DEFAULT_PLAN = "standard"
# Monthly limits per plan; a metric absent from a plan is unlimited.
PLAN_QUOTAS: dict[str, dict[str, int]] = {
    "starter": {"session_analyses": 200, "voice_calls": 100, "voice_minutes": 1_000},
    "standard": {"session_analyses": 2_000, "voice_calls": 1_000, "voice_minutes": 10_000},
    "enterprise": {},
}


class QuotaExceeded(TooManyRequests):
    """The organization used its period's allowance of one metric (answered as 429)."""

    def voice_answer(self) -> dict[str, str]:
        """The voice platform's form of the refusal: its `{"error": …}` answer, one line."""
        return {"error": " ".join(self.message.split())}


def plan_quotas(plan: str) -> dict[str, Any]:
    return {"period": QUOTA_PERIOD, "limits": dict(PLAN_QUOTAS[plan])}


def _period(organization: Organization, now: datetime | None = None
            ) -> tuple[datetime, datetime]:
    tz = ZoneInfo(organization.timezone)
    start = floor_boundary(now or datetime.now(UTC), QUOTA_PERIOD, tz)
    return start, next_boundary(start, QUOTA_PERIOD, tz)


def quota_status(organization: Organization) -> dict[str, Any]:
    """The organization's limits and what the current period has used of each."""
    limits = (organization.quotas or {}).get("limits", {})
    start, end = _period(organization)
    return {"period": QUOTA_PERIOD, "period_start": start, "period_end": end,
            "limits": limits,
            "used": {metric: used_since(organization.id, metric, start) for metric in limits}}


def check_quota(organization_id: str, metric: str, *, reserve: bool = False) -> None:
    """Raise QuotaExceeded when `metric`'s allowance for this period is used up.

    A check before the work (a model call) spares work that could not be counted; it does not
    bound concurrent requests, which all pass it before any of them is counted. With `reserve`,
    inside the transaction that records the usage, the organization's row is locked first
    (PostgreSQL; SQLite's write transaction already holds its one write lock), so that the
    checks and the counts of concurrent writes take turns and the limit is exact."""
    query = Organization.select().where(Organization.id == organization_id)
    if reserve and is_postgres():
        query = query.for_update()
    organization = query.first()
    if organization is None:
        return
    limit = (organization.quotas or {}).get("limits", {}).get(metric)
    if limit is None:
        return
    start, end = _period(organization)
    used = used_since(organization_id, metric, start)
    if used >= limit:
        raise QuotaExceeded(
            f"The organization's {QUOTA_PERIOD}ly quota '{metric}' ({limit}) is used up; "
            f"it renews at {end.isoformat().replace('+00:00', 'Z')}.",
            extra={"quota": metric, "limit": limit, "used": used})
