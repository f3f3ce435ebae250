"""Every read or write of a therapy session leaves an audit row: who, what, which record,
when, from where."""

from datetime import timedelta

from models.audit import AuditEvent, entries_about
from models.base import utcnow
from services.tokens import create_token
from tests.conftest import SESSION_BODY, bearer

REQUEST_ID = "req-audit-0001"


def events(action=None):
    query = AuditEvent.select().order_by(AuditEvent.at)
    if action:
        query = query.where(AuditEvent.action == action)
    return list(query)


def test_create_is_audited_with_actor_org_record_ip_and_request(client, org):
    token_row, token = create_token(org.id, ["admin"])
    before = utcnow()
    response = client.post("/api/therapy-sessions", json=SESSION_BODY,
                           headers={**bearer(token), "X-Request-ID": REQUEST_ID})
    [event] = events("create")
    assert event.actor == token_row.id
    assert event.organization_id == org.id
    assert event.resource_type == "therapy_session"
    assert event.resource_id == response.json["id"]
    assert event.ip == "127.0.0.1"
    assert event.request_id == REQUEST_ID
    assert before - timedelta(seconds=1) <= event.at <= utcnow()


def test_read_is_audited(client, auth, make_session):
    session = make_session()
    client.get(f"/api/therapy-sessions/{session['id']}", headers=auth)
    [event] = events("read")
    assert event.resource_id == session["id"]


def test_a_list_is_audited_by_one_row_naming_every_session_returned(client, org, make_session):
    token_row, token = create_token(org.id, ["admin"])
    ids = {make_session()["id"], make_session()["id"]}
    response = client.get("/api/therapy-sessions",
                          headers={**bearer(token), "X-Request-ID": REQUEST_ID})
    [event] = events("list")
    assert event.resource_ids == [s["id"] for s in response.json]
    assert set(event.resource_ids) == ids and event.resource_id is None
    assert (event.actor, event.organization_id, event.resource_type, event.ip,
            event.request_id) == (token_row.id, org.id, "therapy_session", "127.0.0.1",
                                  REQUEST_ID)


def test_who_read_a_session_is_answered_from_its_reads_and_the_lists(client, org,
                                                                      make_session):
    token_row, token = create_token(org.id, ["admin"])
    newer = make_session(session_date="2026-03-02T10:00:00Z")
    older = make_session(session_date="2026-03-01T10:00:00Z")
    reader = bearer(token)
    client.get(f"/api/therapy-sessions/{newer['id']}", headers=reader)
    client.get("/api/therapy-sessions?page_size=1&page=1", headers=reader)  # newer only
    client.get("/api/therapy-sessions?page_size=1&page=2", headers=reader)  # older only
    client.get("/api/therapy-sessions", headers=reader)  # both

    def accesses(session):
        return [(e.action, e.actor) for e in entries_about("therapy_session", session["id"])
                if e.action != "create"]

    assert accesses(newer) == [("read", token_row.id), ("list", token_row.id),
                               ("list", token_row.id)]
    assert accesses(older) == [("list", token_row.id), ("list", token_row.id)]
    assert [e.action for e in entries_about("therapy_session", "ses_never_listed")] == []


def test_update_is_audited(client, auth, make_session):
    session = make_session()
    client.patch(f"/api/therapy-sessions/{session['id']}", json={"duration_minutes": 60},
                 headers=auth)
    [event] = events("update")
    assert event.resource_id == session["id"]


def test_co_therapy_create_is_audited(client, auth):
    response = client.post("/api/co-therapy-sessions",
                           json={**SESSION_BODY, "co_provider_ids": ["prov-8"]}, headers=auth)
    [event] = events("create")
    assert event.resource_id == response.json["id"]


def test_refused_requests_leave_no_audit_row(client, auth):
    client.get("/api/therapy-sessions/ses_unknown", headers=auth)
    client.post("/api/therapy-sessions", json={**SESSION_BODY, "duration_minutes": 0},
                headers=auth)
    client.get("/api/therapy-sessions")
    assert events() == []


def test_idempotent_replay_does_not_create_a_second_record(client, auth):
    headers = {**auth, "Idempotency-Key": "k-1"}
    client.post("/api/therapy-sessions", json=SESSION_BODY, headers=headers)
    client.post("/api/therapy-sessions", json=SESSION_BODY, headers=headers)
    assert len(events("create")) == 1


def test_audit_rows_carry_no_patient_data(client, auth):
    client.post("/api/therapy-sessions",
                json={**SESSION_BODY, "patient_id": "PATIENT-SECRET-123",
                      "chief_complaints": ["hears voices at night"]}, headers=auth)
    stored = [str(value) for row in AuditEvent.select().tuples() for value in row]
    assert not any("PATIENT-SECRET-123" in value or "voices" in value for value in stored)


def test_client_address_comes_from_trusted_proxy_only(make_app, org):
    token = create_token(org.id, ["admin"])[1]
    forwarded = {**bearer(token), "X-Forwarded-For": "203.0.113.7"}
    make_app().test_client().post("/api/therapy-sessions", json=SESSION_BODY, headers=forwarded)
    make_app(PROXY_FIX_X_FOR=1).test_client().post(
        "/api/therapy-sessions", json=SESSION_BODY, headers=forwarded)
    assert [e.ip for e in events("create")] == ["127.0.0.1", "203.0.113.7"]


def test_a_list_page_is_audited_for_exactly_the_sessions_it_returns(client, auth, make_session):
    for day in (3, 1, 4, 2, 5):
        make_session(session_date=f"2026-03-0{day}T10:00:00Z")
    response = client.get("/api/therapy-sessions?page=2&page_size=2", headers=auth)
    returned = [s["session_date"] for s in response.json]
    assert returned == ["2026-03-03T10:00:00Z", "2026-03-02T10:00:00Z"]
    [listed] = events("list")
    assert listed.resource_ids == [s["id"] for s in response.json]


def test_a_list_past_the_last_page_is_not_audited(client, auth, make_session):
    make_session()
    assert client.get("/api/therapy-sessions?page=3", headers=auth).json == []
    assert events("list") == []


def test_a_list_filtered_by_date_is_audited(client, auth, make_session):
    session = make_session(session_date="2026-03-01T10:00:00Z")
    client.get("/api/therapy-sessions?from=2026-02-01T00:00:00Z", headers=auth)
    assert [e.resource_ids for e in events("list")] == [[session["id"]]]
