"""Usage sums: the slot rollup and the events agree, whatever the window's edges."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from models.organizations import Organization
from models.usage import rebuild_rollups
from services.organizations.usage import usage_report
from services.usage import record_usage

BASE = datetime(2026, 3, 8, 6, 0, tzinfo=UTC)  # US daylight time starts at 07:00 UTC


def _report(org, start, end, granularity="hour"):
    return usage_report(Organization.get_by_id(org.id), start, end, granularity)


def test_window_edges_inside_a_slot_count_exactly(app, org):
    for minutes in (1, 5, 14, 16, 29, 31, 44, 46, 59, 61):
        record_usage(org.id, "webhook_deliveries", at=BASE + timedelta(minutes=minutes))
    report = _report(org, BASE + timedelta(minutes=5), BASE + timedelta(minutes=46))
    assert report["totals"]["webhook_deliveries"] == 6  # 5, 14, 16, 29, 31, 44; not 46
    inside = _report(org, BASE + timedelta(minutes=2), BASE + timedelta(minutes=15))
    assert inside["totals"]["webhook_deliveries"] == 2
    spanning = _report(org, BASE + timedelta(minutes=50), BASE + timedelta(minutes=62))
    assert [b["webhook_deliveries"] for b in spanning["buckets"]] == [1, 1]


def test_rebuilt_slot_sums_give_the_same_report(app, org):
    for hours in range(0, 72, 5):
        record_usage(org.id, "llm_tokens", 100 + hours, at=BASE + timedelta(hours=hours,
                                                                             minutes=7))
    Organization.update(timezone="America/Chicago").where(Organization.id == org.id).execute()
    window = (BASE - timedelta(days=1), BASE + timedelta(days=3))
    before = _report(org, *window, granularity="day")
    rebuild_rollups()
    after = _report(org, *window, granularity="day")
    assert before == after
    assert before["totals"]["llm_tokens"] == sum(100 + h for h in range(0, 72, 5))
    # 2026-03-08 in Chicago lasts 23 hours.
    spans = [(b["end"] - b["start"]).total_seconds() / 3600 for b in before["buckets"]]
    assert spans[1:4] == [23, 24, 24]


def test_half_hour_timezone_days_start_at_local_midnight(app, org):
    Organization.update(timezone="Asia/Kolkata").where(Organization.id == org.id).execute()
    record_usage(org.id, "voice_calls", at=datetime(2026, 5, 1, 18, 29, tzinfo=UTC))  # 23:59
    record_usage(org.id, "voice_calls", at=datetime(2026, 5, 1, 18, 30, tzinfo=UTC))  # 00:00
    report = _report(org, datetime(2026, 4, 30, 18, 30, tzinfo=UTC),
                     datetime(2026, 5, 2, 18, 30, tzinfo=UTC), "day")
    assert [(b["start"].isoformat(), b["voice_calls"]) for b in report["buckets"]] == [
        ("2026-04-30T18:30:00+00:00", 1), ("2026-05-01T18:30:00+00:00", 1)]
