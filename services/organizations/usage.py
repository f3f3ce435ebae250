"""Usage reports: metered events summed per bucket in the database.

Hour buckets are UTC hours; day and month buckets follow the organization's timezone (a day
may last 23 or 25 hours). Sums come from `usage_rollup` (15-minute UTC slots kept by
`record_usage`): PostgreSQL buckets the slots with `date_trunc` on the local time; SQLite has no
timezone database, so the bucket boundaries are computed here and the slots are summed per
boundary range with a join. A window edge that cuts through a slot is read from the events
themselves (index on organization, at). Both engines give the same answer for the same data.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from models.base import db, is_postgres
from models.organizations import Organization
from models.usage import USAGE_METRICS
from services.errors import Unprocessable
from services.usage import SLOT, slot_floor

GRANULARITIES = ("hour", "day", "month")
DEFAULT_GRANULARITY = "day"
DEFAULT_WINDOW = timedelta(days=30)
MAX_WINDOW = timedelta(days=366)
# Usage is recorded from the Unix epoch on; the upper bound leaves a year for the local-time
# arithmetic of month buckets (year 9999's ends overflow Python's datetime).
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)
LATEST = datetime(9999, 1, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Bucket:
    start: datetime
    end: datetime


def _local_midnight(day: date, tz: ZoneInfo) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=tz).astimezone(UTC)


def floor_boundary(moment: datetime, granularity: str, tz: ZoneInfo) -> datetime:
    if granularity == "hour":
        return moment.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    local = moment.astimezone(tz).date()
    if granularity == "month":
        local = local.replace(day=1)
    return _local_midnight(local, tz)


def next_boundary(boundary: datetime, granularity: str, tz: ZoneInfo) -> datetime:
    if granularity == "hour":
        return boundary + timedelta(hours=1)
    local = boundary.astimezone(tz).date()
    if granularity == "day":
        return _local_midnight(local + timedelta(days=1), tz)
    year, month = (local.year + 1, 1) if local.month == 12 else (local.year, local.month + 1)
    return _local_midnight(date(year, month, 1), tz)


def buckets(start: datetime, end: datetime, granularity: str, tz: ZoneInfo) -> list[Bucket]:
    """The window's buckets; the first and last are clipped to the window."""
    result = []
    boundary = floor_boundary(start, granularity, tz)
    while boundary < end:
        following = next_boundary(boundary, granularity, tz)
        result.append(Bucket(max(boundary, start), min(following, end)))
        boundary = following
    return result


def resolve_window(organization: Organization, start: datetime | None, end: datetime | None,
                   now: datetime | None = None) -> tuple[datetime, datetime]:
    """The report's `[start, end)`: by default the 30 days up to the end of today (local)."""
    tz = ZoneInfo(organization.timezone)
    for name, moment in (("start", start), ("end", end)):
        if moment is not None and not EARLIEST <= moment <= LATEST:
            raise Unprocessable(f"`{name}` must lie between 1970-01-01 and 9999-01-01 (UTC).",
                                field=name, location="query")
    if end is None:
        if start is not None:
            end = start + DEFAULT_WINDOW
        else:
            end = next_boundary(floor_boundary(now or datetime.now(UTC), "day", tz), "day", tz)
    if start is None:
        start = end - DEFAULT_WINDOW
    if start < EARLIEST or end > LATEST:
        raise Unprocessable("The window must lie between 1970-01-01 and 9999-01-01 (UTC).",
                            field="start" if start < EARLIEST else "end", location="query")
    if end <= start:
        raise Unprocessable("`end` must be after `start`.", field="end", location="query")
    if end - start > MAX_WINDOW:
        raise Unprocessable("The window may span at most 366 days.", field="end", location="query")
    return start, end


def _naive_utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None)


def _naive_local(moment: datetime, tz: ZoneInfo) -> datetime:
    return moment.astimezone(tz).replace(tzinfo=None)


def _param(moment: datetime) -> Any:
    """A UTC moment as the engine stores it: naive for PostgreSQL, Peewee's sortable text
    for SQLite."""
    naive = _naive_utc(moment)
    return naive if is_postgres() else naive.isoformat(sep=" ")


def _sql(statement: str) -> str:
    return statement if is_postgres() else statement.replace("%s", "?")


Sums = dict[int, dict[str, int]]


def _slot_sums_postgres(organization_id: str, window: list[Bucket], start: datetime,
                        end: datetime, granularity: str, tz_name: str) -> Sums:
    zone = "UTC" if granularity == "hour" else tz_name
    cursor = db.execute_sql(
        "SELECT date_trunc(%s, (slot AT TIME ZONE 'UTC') AT TIME ZONE %s) AS bucket, metric, "
        "SUM(quantity) FROM usage_rollup "
        "WHERE organization_id = %s AND slot >= %s AND slot < %s GROUP BY 1, 2",
        (granularity, zone, organization_id, _param(start), _param(end)))
    tz = ZoneInfo(zone)
    # date_trunc answers the bucket's local start; the first bucket's is before the window.
    index = {_naive_local(floor_boundary(b.start, granularity, tz), tz): i
             for i, b in enumerate(window)}
    sums: Sums = {}
    for bucket, metric, total in cursor.fetchall():
        sums.setdefault(index[bucket], {})[metric] = int(total)
    return sums


def _slot_sums_sqlite(organization_id: str, window: list[Bucket], start: datetime,
                      end: datetime) -> Sums:
    ranges = [(i, max(b.start, start), min(b.end, end)) for i, b in enumerate(window)]
    ranges = [r for r in ranges if r[1] < r[2]]
    if not ranges:
        return {}
    values = ", ".join("(?, ?, ?)" for _ in ranges)
    params: list[Any] = [value for i, lo, hi in ranges for value in (i, _param(lo), _param(hi))]
    cursor = db.execute_sql(
        f"WITH bucket(i, s, e) AS (VALUES {values}) "  # noqa: S608 (placeholders only)
        "SELECT bucket.i, r.metric, SUM(r.quantity) FROM bucket "
        "JOIN usage_rollup AS r ON r.organization_id = ? AND r.slot >= bucket.s "
        "AND r.slot < bucket.e GROUP BY bucket.i, r.metric",
        (*params, organization_id))
    sums: Sums = {}
    for i, metric, total in cursor.fetchall():
        sums.setdefault(i, {})[metric] = int(total)
    return sums


def _event_sums(organization_id: str, start: datetime, end: datetime) -> dict[str, int]:
    """Straight from the events, for a window edge that cuts through a slot."""
    if start >= end:
        return {}
    cursor = db.execute_sql(_sql(
        "SELECT metric, SUM(quantity) FROM usage_event "
        "WHERE organization_id = %s AND at >= %s AND at < %s GROUP BY metric"),
        (organization_id, _param(start), _param(end)))
    return {metric: int(total) for metric, total in cursor.fetchall()}


def _add(sums: Sums, index: int, counts: dict[str, int]) -> None:
    bucket = sums.setdefault(index, {})
    for metric, value in counts.items():
        bucket[metric] = bucket.get(metric, 0) + value


def _sums(organization: Organization, window: list[Bucket], granularity: str) -> Sums:
    """Whole slots from the rollup; the window's ragged edges (under 15 minutes each) from
    the events. Bucket boundaries fall on slot boundaries, so each edge lies in one bucket."""
    start, end = window[0].start, window[-1].end
    inner_start = slot_floor(start)
    if inner_start < start:
        inner_start += SLOT
    inner_end = slot_floor(end)
    if inner_start >= inner_end:  # no whole slot: a window of minutes, at most two buckets
        return {i: _event_sums(organization.id, b.start, b.end) for i, b in enumerate(window)}
    if is_postgres():
        sums = _slot_sums_postgres(organization.id, window, inner_start, inner_end,
                                   granularity, organization.timezone)
    else:
        sums = _slot_sums_sqlite(organization.id, window, inner_start, inner_end)
    _add(sums, 0, _event_sums(organization.id, start, inner_start))
    _add(sums, len(window) - 1, _event_sums(organization.id, inner_end, end))
    return sums


def usage_report(organization: Organization, start: datetime | None = None,
                 end: datetime | None = None, granularity: str = DEFAULT_GRANULARITY,
                 now: datetime | None = None) -> dict[str, Any]:
    """The SPEC's usage answer: totals and every bucket of the window, empty ones as zeros."""
    start, end = resolve_window(organization, start, end, now)
    window = buckets(start, end, granularity, ZoneInfo(organization.timezone))
    sums = _sums(organization, window, granularity)
    rows = []
    totals = dict.fromkeys(USAGE_METRICS, 0)
    for i, bucket in enumerate(window):
        counts = {metric: sums.get(i, {}).get(metric, 0) for metric in USAGE_METRICS}
        for metric, value in counts.items():
            totals[metric] += value
        rows.append({"start": bucket.start, "end": bucket.end, **counts})
    return {"organization_id": organization.id, "start": start, "end": end,
            "granularity": granularity, "totals": totals, "buckets": rows}


def used_since(organization_id: str, metric: str, since: datetime) -> int:
    """One metric's total from `since` (a slot boundary: a local midnight) on (quotas)."""
    cursor = db.execute_sql(_sql(
        "SELECT COALESCE(SUM(quantity), 0) FROM usage_rollup "
        "WHERE organization_id = %s AND metric = %s AND slot >= %s"),
        (organization_id, metric, _param(since)))
    return int(cursor.fetchone()[0])
