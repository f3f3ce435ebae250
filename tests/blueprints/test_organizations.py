"""Organization retrieval, usage reports and quotas through the API."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from models.organizations import Organization
from models.usage import USAGE_METRICS
from services.usage import record_usage
from tests.conftest import PLATFORM_TOKEN, bearer

PLATFORM = bearer(PLATFORM_TOKEN)


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)


def _event(org_id: str, metric: str, at: str, quantity: int = 1) -> None:
    record_usage(org_id, metric, quantity, at=_at(at))


@pytest.fixture
def new_york(org):
    Organization.update(timezone="America/New_York").where(Organization.id == org.id).execute()
    return org


def test_own_organization_is_returned_with_quotas(client, org, make_token):
    response = client.get(f"/api/organizations/{org.id}",
                          headers=bearer(make_token(org, "organizations:read")))
    assert response.status_code == 200
    body = response.json
    assert {k: body[k] for k in ("id", "name", "slug", "status", "plan", "timezone")} == {
        "id": org.id, "name": "Harbor Counseling", "slug": "harbor-counseling",
        "status": "active", "plan": "standard", "timezone": "UTC"}
    assert body["created_at"].endswith("Z")
    assert body["quotas"]["period"] == "month"


def test_other_organization_is_not_found_and_platform_reads_any(client, org, other_org, auth):
    assert client.get(f"/api/organizations/{other_org.id}", headers=auth).status_code == 404
    assert client.get("/api/organizations/org_nope", headers=auth).status_code == 404
    response = client.get(f"/api/organizations/{other_org.id}", headers=PLATFORM)
    assert response.status_code == 200 and response.json["id"] == other_org.id
    # and its usage (counts, no patient data): it answered 403, "needs an organization token"
    usage = client.get(f"/api/organizations/{other_org.id}/usage", headers=PLATFORM)
    assert usage.status_code == 200 and usage.json["organization_id"] == other_org.id
    assert client.get("/api/organizations/org_nope/usage", headers=PLATFORM).status_code == 404


def test_usage_needs_its_scope(client, org, make_token):
    response = client.get(f"/api/organizations/{org.id}/usage",
                          headers=bearer(make_token(org, "organizations:read")))
    assert response.status_code == 403


def test_usage_by_day_follows_the_organizations_timezone_across_dst(client, new_york, auth):
    org_id = new_york.id
    # 2026-11-01: New York leaves daylight time; that local day lasts 25 hours.
    _event(org_id, "therapy_sessions", "2026-11-01T03:30:00Z")  # Oct 31, 23:30 EDT
    _event(org_id, "therapy_sessions", "2026-11-01T04:30:00Z")  # Nov 1, 00:30 EDT
    _event(org_id, "llm_tokens", "2026-11-02T04:59:00Z", 700)  # Nov 1, 23:59 EST
    _event(org_id, "llm_tokens", "2026-11-02T05:00:00Z", 300)  # Nov 2, 00:00 EST
    _event(org_id, "voice_minutes", "2026-11-04T12:00:00Z", 9)  # outside the window
    response = client.get(f"/api/organizations/{org_id}/usage?start=2026-10-31T04:00:00Z"
                          "&end=2026-11-03T05:00:00Z&granularity=day", headers=auth)
    assert response.status_code == 200, response.json
    body = response.json
    assert [(b["start"], b["end"]) for b in body["buckets"]] == [
        ("2026-10-31T04:00:00Z", "2026-11-01T04:00:00Z"),
        ("2026-11-01T04:00:00Z", "2026-11-02T05:00:00Z"),
        ("2026-11-02T05:00:00Z", "2026-11-03T05:00:00Z")]
    assert [b["therapy_sessions"] for b in body["buckets"]] == [1, 1, 0]
    assert [b["llm_tokens"] for b in body["buckets"]] == [0, 700, 300]
    assert body["totals"] == {**dict.fromkeys(USAGE_METRICS, 0), "therapy_sessions": 2,
                              "llm_tokens": 1000}
    assert all(set(USAGE_METRICS) <= set(b) for b in body["buckets"])


def test_usage_by_month_and_hour(client, new_york, auth):
    org_id = new_york.id
    _event(org_id, "session_analyses", "2026-02-01T04:59:59Z")  # Jan 31 local
    _event(org_id, "session_analyses", "2026-02-01T05:00:00Z")  # Feb 1 local
    months = client.get(f"/api/organizations/{org_id}/usage?start=2026-01-15T00:00:00Z"
                        "&end=2026-03-01T05:00:00Z&granularity=month", headers=auth).json
    assert [(b["start"], b["session_analyses"]) for b in months["buckets"]] == [
        ("2026-01-15T00:00:00Z", 1), ("2026-02-01T05:00:00Z", 1)]
    hours = client.get(f"/api/organizations/{org_id}/usage?start=2026-02-01T04:00:00Z"
                       "&end=2026-02-01T07:00:00Z&granularity=hour", headers=auth).json
    assert [b["session_analyses"] for b in hours["buckets"]] == [1, 1, 0]


def test_default_window_is_the_last_thirty_days_by_day(client, org, auth):
    body = client.get(f"/api/organizations/{org.id}/usage", headers=auth).json
    assert body["granularity"] == "day" and len(body["buckets"]) == 30
    assert body["end"].endswith("T00:00:00Z")


@pytest.mark.parametrize("query", [
    "start=2026-02-01T00:00:00Z&end=2026-01-01T00:00:00Z",
    "start=2026-01-01T00:00:00Z&end=2026-01-01T00:00:00Z",
    "start=2025-01-01T00:00:00Z&end=2026-01-03T00:00:00Z",
    "start=2026-01-01T00:00:00&end=2026-01-02T00:00:00Z",
    "granularity=week",
    # At the ends of the calendar the bucket arithmetic overflowed: 500.
    "start=0001-01-01T00:00:00Z&end=0001-01-02T00:00:00Z",
    "start=9999-12-01T00:00:00Z&granularity=month",
    "start=9999-12-30T00:00:00Z&end=9999-12-31T23:59:59Z",
    "start=9999-12-31T00:00:00Z",
    "end=0001-01-05T00:00:00Z",
    "start=9998-12-20T00:00:00Z",  # its default 30-day end passes 9999-01-01
])
def test_bad_windows_are_422(client, org, auth, query):
    response = client.get(f"/api/organizations/{org.id}/usage?{query}", headers=auth)
    assert response.status_code == 422, response.json
    # The window's fields are query parameters, as the schema's own errors say (they were
    # filed under "json" when the service, not the schema, refused the window).
    assert list(response.json["errors"]) == ["query"]


def test_the_last_supported_month_is_reported(client, org, auth):
    response = client.get(f"/api/organizations/{org.id}/usage?start=9998-12-01T00:00:00Z"
                          "&end=9999-01-01T00:00:00Z&granularity=month", headers=auth)
    assert response.status_code == 200, response.json


def test_other_organizations_usage_is_not_found(client, other_org, auth):
    assert client.get(f"/api/organizations/{other_org.id}/usage",
                      headers=auth).status_code == 404


def test_analysis_quota_is_enforced_with_429_naming_it(client, org, auth):
    Organization.update(quotas={"period": "month", "limits": {"session_analyses": 2}}).where(
        Organization.id == org.id).execute()
    body = {"session_transcript": "Clinician: How was the week? Patient: Better."}
    for _ in range(2):
        assert client.post("/api/therapy/analyze-session", json=body,
                           headers=auth).status_code == 200
    refused = client.post("/api/therapy/analyze-session", json=body, headers=auth)
    assert refused.status_code == 429
    assert refused.json["quota"] == "session_analyses" and refused.json["limit"] == 2
    assert "session_analyses" in refused.json["message"]
    quotas = client.get(f"/api/organizations/{org.id}", headers=auth).json["quotas"]
    assert quotas["used"] == {"session_analyses": 2}


def test_concurrent_analyses_never_pass_the_quota(app, org, auth):
    # Every request passed the check before any of them was counted: 204 of a quota of 200
    # were stored under 16 clients.
    from concurrent.futures import ThreadPoolExecutor

    Organization.update(quotas={"period": "month", "limits": {"session_analyses": 5}}).where(
        Organization.id == org.id).execute()
    body = {"session_transcript": "Clinician: How was the week? Patient: Better."}

    def analyse(_: int) -> int:
        return app.test_client().post("/api/therapy/analyze-session", json=body,
                                      headers=auth).status_code

    with ThreadPoolExecutor(12) as pool:
        statuses = list(pool.map(analyse, range(24)))
    assert sorted(statuses) == [200] * 5 + [429] * 19
    quotas = app.test_client().get(f"/api/organizations/{org.id}", headers=auth).json["quotas"]
    assert quotas["used"] == {"session_analyses": 5}


@pytest.mark.parametrize("body, field", [
    ({"admin_email": "a@b.example"}, "name"),
    ({"name": "X", "admin_email": "not-an-email"}, "admin_email"),
    ({"name": "X", "admin_email": "a@b.example", "timezone": "Mars/Olympus"}, "timezone"),
    ({"name": "X", "admin_email": "a@b.example", "plan": "gold"}, "plan"),
    ({"name": "X", "admin_email": "a@b.example", "slug": "Bad Slug"}, "slug"),
    ({"name": "X", "admin_email": "a@b.example", "voice": {"phone_number": "555"}},
     "voice.phone_number"),
    ({"name": "X", "admin_email": "a@b.example", "ehr": {"fhir_base_url": "ftp://x"}},
     "ehr.fhir_base_url"),
    ({"name": "X", "admin_email": "a@b.example",
      "voice": {"phone_number": "+15550100", "webhook_url": "ftp://x"}}, "voice.webhook_url"),
    ({"name": "X", "admin_email": "a@b.example",
      "ehr": {"fhir_base_url": "http://93.184.215.14/fhir\r\nX-Evil: 1"}}, "ehr.fhir_base_url"),
    ({"name": "X", "admin_email": "a@b.example",
      "voice": {"phone_number": "+15550100", "webhook_url": "http://93.184.215.14/a b"}},
     "voice.webhook_url"),
    ({"name": "X", "admin_email": "a@b.example", "extra": 1}, "extra"),
])
def test_invalid_provisioning_request_is_422(client, app, body, field):
    response = client.post("/api/organizations/provision", json=body, headers=PLATFORM)
    assert response.status_code == 422
    errors = response.json["errors"]["json"]
    for key in field.split("."):  # nested as the body is: {"voice": {"phone_number": […]}}
        errors = errors[key]
    assert isinstance(errors, list) and errors, response.json


@pytest.mark.parametrize("number", ["+1 415 555 0100", "+1 (415) 555-0102", "+44.20.7946.0958"])
def test_a_voice_number_is_written_as_a_deployment_takes_it(client, app, number):
    """Spaces, dashes, dots and brackets, as `POST /api/voice/deployments` takes them (the
    request was refused: "Must be an E.164 number")."""
    body = {"name": "X", "admin_email": "a@b.example", "voice": {"phone_number": number}}
    response = client.post("/api/organizations/provision", json=body, headers=PLATFORM)
    assert response.status_code == 202, response.json


def test_provisioning_needs_the_platform_token(client, auth):
    body = {"name": "X", "admin_email": "a@b.example"}
    assert client.post("/api/organizations/provision", json=body,
                       headers=auth).status_code == 403
    assert client.post("/api/organizations/provision", json=body).status_code == 401


def test_provisioning_answers_202_with_location_and_replays_its_key(client, app):
    body = {"name": "Cedar Clinic", "admin_email": "a@cedar.example"}
    headers = {**PLATFORM, "Idempotency-Key": "prov-1"}
    first = client.post("/api/organizations/provision", json=body, headers=headers)
    assert first.status_code == 202
    assert first.json["status"] == "queued"
    assert first.headers["Location"] == first.json["status_url"] == \
        f"/api/organizations/provision/{first.json['job_id']}"
    again = client.post("/api/organizations/provision", json=body, headers=headers)
    assert again.status_code == 202 and again.json["job_id"] == first.json["job_id"]
    status = client.get(first.json["status_url"], headers=PLATFORM)
    assert status.headers.get("Retry-After") == "1", (status.headers, status.json["status"])
    assert [s["status"] for s in status.json["steps"]] == ["pending"] * 16
    assert client.get("/api/organizations/provision/prv_nope",
                      headers=PLATFORM).status_code == 404
