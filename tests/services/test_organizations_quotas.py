"""Monthly quotas, counted in the organization's timezone."""

from datetime import UTC, datetime, timedelta

import pytest

from models.organizations import Organization
from services.organizations.quotas import QuotaExceeded, check_quota, plan_quotas, quota_status
from services.usage import record_usage


def _limit(org, **limits):
    Organization.update(quotas={"period": "month", "limits": limits}).where(
        Organization.id == org.id).execute()


def test_voice_calls_quota_refuses_with_an_answer_for_the_voice_platform(app, org):
    _limit(org, voice_calls=1)
    check_quota(org.id, "voice_calls")
    record_usage(org.id, "voice_calls")
    with pytest.raises(QuotaExceeded) as refused:
        check_quota(org.id, "voice_calls")
    assert refused.value.extra == {"quota": "voice_calls", "limit": 1, "used": 1}
    answer = refused.value.voice_answer()
    assert list(answer) == ["error"] and "voice_calls" in answer["error"]
    assert "\n" not in answer["error"]


def test_last_months_usage_does_not_count(app, org):
    _limit(org, session_analyses=1)
    status = quota_status(Organization.get_by_id(org.id))
    record_usage(org.id, "session_analyses", at=status["period_start"] - timedelta(seconds=1))
    check_quota(org.id, "session_analyses")
    assert quota_status(Organization.get_by_id(org.id))["used"] == {"session_analyses": 0}


def test_unlisted_metric_and_enterprise_plan_are_unlimited(app, org):
    _limit(org, **plan_quotas("enterprise")["limits"])
    for _ in range(3):
        record_usage(org.id, "session_analyses", at=datetime.now(UTC))
    check_quota(org.id, "session_analyses")
