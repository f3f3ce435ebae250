"""Usage reports: metered events summed per bucket in the database.

Hour buckets are UTC hours; day and month buckets follow the organization's timezone (a day
may last 23 or 25 hours). PostgreSQL buckets with `date_trunc` on the local time; SQLite has
no timezone database, so the bucket boundaries are computed here and the events are summed
per boundary range with a join. Both read the (organization, at, metric, quantity) index and
give the same answer for the same data.
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

GRANULARITIES = ("hour", "day", "month")
DEFAULT_GRANULARITY = "day"
DEFAULT_WINDOW = timedelta(days=30)
MAX_WINDOW = timedelta(days=366)


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
    if end is None:
        if start is not None:
            end = start + DEFAULT_WINDOW
        else:
            end = next_boundary(floor_boundary(now or datetime.now(UTC), "day", tz), "day", tz)
    if start is None:
        start = end - DEFAULT_WINDOW
    if end <= start:
        raise Unprocessable("`end` must be after `start`.", field="end")
    if end - start > MAX_WINDOW:
        raise Unprocessable("The window may span at most 366 days.", field="end")
    return start, end


def _naive_utc(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None)


def _sums_postgres(organization_id: str, window: list[Bucket], granularity: str,
                   tz_name: str) -> dict[int, dict[str, int]]:
    zone = "UTC" if granularity == "hour" else tz_name
    cursor = db.execute_sql(
        "SELECT date_trunc(%s, (at AT TIME ZONE 'UTC') AT TIME ZONE %s) AS bucket, metric, "
        "SUM(quantity) FROM usage_event "
        "WHERE organization_id = %s AND at >= %s AND at < %s GROUP BY 1, 2",
        (granularity, zone, organization_id, _naive_utc(window[0].start),
         _naive_utc(window[-1].end)))
    tz = ZoneInfo(zone)
    # date_trunc answers the bucket's local start; the first bucket's is before the window.
    index = {_naive_local(floor_boundary(b.start, granularity, tz), tz): i
             for i, b in enumerate(window)}
    sums: dict[int, dict[str, int]] = {}
    for bucket, metric, total in cursor.fetchall():
        sums.setdefault(index[bucket], {})[metric] = int(total)
    return sums


def _naive_local(moment: datetime, tz: ZoneInfo) -> datetime:
    return moment.astimezone(tz).replace(tzinfo=None)


def _sqlite_time(moment: datetime) -> str:
    # The text form Peewee stores naive UTC datetimes in, which sorts chronologically.
    return _naive_utc(moment).isoformat(sep=" ")


def _sums_sqlite(organization_id: str, window: list[Bucket]) -> dict[int, dict[str, int]]:
    values = ", ".join("(?, ?, ?)" for _ in window)
    params: list[Any] = []
    for i, bucket in enumerate(window):
        params += [i, _sqlite_time(bucket.start), _sqlite_time(bucket.end)]
    cursor = db.execute_sql(
        f"WITH bucket(i, s, e) AS (VALUES {values}) "  # noqa: S608 (placeholders only)
        "SELECT bucket.i, u.metric, SUM(u.quantity) FROM bucket "
        "JOIN usage_event AS u ON u.organization_id = ? AND u.at >= bucket.s AND u.at < bucket.e "
        "GROUP BY bucket.i, u.metric",
        (*params, organization_id))
    sums: dict[int, dict[str, int]] = {}
    for i, metric, total in cursor.fetchall():
        sums.setdefault(i, {})[metric] = int(total)
    return sums


def usage_report(organization: Organization, start: datetime | None = None,
                 end: datetime | None = None, granularity: str = DEFAULT_GRANULARITY,
                 now: datetime | None = None) -> dict[str, Any]:
    """The SPEC's usage answer: totals and every bucket of the window, empty ones as zeros."""
    start, end = resolve_window(organization, start, end, now)
    window = buckets(start, end, granularity, ZoneInfo(organization.timezone))
    if is_postgres():
        sums = _sums_postgres(organization.id, window, granularity, organization.timezone)
    else:
        sums = _sums_sqlite(organization.id, window)
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
    """One metric's total from `since` on (quota checks)."""
    cursor = db.execute_sql(
        "SELECT COALESCE(SUM(quantity), 0) FROM usage_event "
        "WHERE organization_id = %s AND at >= %s AND metric = %s".replace(
            "%s", "%s" if is_postgres() else "?"),
        (organization_id, _naive_utc(since) if is_postgres() else _sqlite_time(since), metric))
    return int(cursor.fetchone()[0])
