"""Bearer tokens, scopes and tenancy."""

import time
from datetime import timedelta

import pytest

from models.base import utcnow
from models.sessions import TherapySession
from models.tokens import ApiToken
from services.tokens import create_token, hash_token, revoke_token
from tests.conftest import PLATFORM_TOKEN, SESSION_BODY, bearer

CHALLENGE = 'Bearer error="invalid_token"'
UNKNOWN_SESSION = "ses_000000000000000000000000"

# Every operation of the foundation that reads or writes clinic data, with a body that would
# be accepted, and the scope it needs.
OPERATIONS = [
    ("get", "/api/therapy-sessions", None, "sessions:read"),
    ("post", "/api/therapy-sessions", SESSION_BODY, "sessions:write"),
    ("post", "/api/co-therapy-sessions", {**SESSION_BODY, "co_provider_ids": ["prov-8"]},
     "sessions:write"),
    ("get", "/api/note-templates", None, "templates:read"),
    ("post", "/api/note-templates",
     {"name": "Brief note", "sections": [{"key": "note", "title": "Note"}]}, "templates:write"),
    ("get", "/api/templates", None, "templates:read"),
    ("get", "/api/therapy/templates", None, "templates:read"),
]
OPERATION_IDS = [f"{method} {path}" for method, path, _, _ in OPERATIONS]


def call(client, method, path, body, headers):
    return getattr(client, method)(path, json=body, headers=headers)


def assert_unauthorized(response):
    assert response.status_code == 401
    assert response.headers["WWW-Authenticate"] == CHALLENGE
    assert response.json["code"] == 401
    assert response.json["message"]


@pytest.mark.parametrize("method,path,body,scope", OPERATIONS, ids=OPERATION_IDS)
def test_no_token_is_401(client, method, path, body, scope):
    assert_unauthorized(call(client, method, path, body, {}))


@pytest.mark.parametrize("method,path", [("get", f"/api/therapy-sessions/{UNKNOWN_SESSION}"),
                                         ("patch", f"/api/therapy-sessions/{UNKNOWN_SESSION}")])
def test_no_token_on_one_session_is_401_not_404(client, method, path):
    assert_unauthorized(call(client, method, path, {"duration_minutes": 60}, {}))


@pytest.mark.parametrize("header", [
    "Bearer garbage",
    "Bearer cws_not-a-real-token",
    "Bearer ",
    "Basic YWRtaW46cGFzc3dvcmQ=",
    "cws_token-without-scheme",
])
def test_malformed_or_unknown_token_is_401(client, header):
    assert_unauthorized(client.get("/api/therapy-sessions", headers={"Authorization": header}))


def test_revoked_token_is_401(client, org):
    row, token = create_token(org.id, ["admin"])
    assert client.get("/api/therapy-sessions", headers=bearer(token)).status_code == 200
    revoke_token(row.id)
    assert_unauthorized(client.get("/api/therapy-sessions", headers=bearer(token)))


def test_expired_token_is_401(client, org):
    _, token = create_token(org.id, ["admin"], expires_at=utcnow() - timedelta(seconds=1))
    assert_unauthorized(client.get("/api/therapy-sessions", headers=bearer(token)))


def test_token_not_yet_expired_is_accepted(client, org):
    _, token = create_token(org.id, ["admin"], expires_at=utcnow() + timedelta(hours=1))
    assert client.get("/api/therapy-sessions", headers=bearer(token)).status_code == 200


def _revoke_elsewhere(token_id: str) -> None:
    """What `flask tokens revoke` in another process does to the row (this process's memory
    of verified tokens untouched)."""
    ApiToken.update(revoked_at=utcnow()).where(ApiToken.id == token_id).execute()


def test_a_token_revoked_by_another_process_is_refused_within_the_trust_window(make_app, org):
    client = make_app(TOKEN_TRUST_SECONDS=0.5).test_client()
    row, token = create_token(org.id, ["admin"])
    assert client.get("/api/therapy-sessions", headers=bearer(token)).status_code == 200
    _revoke_elsewhere(row.id)
    # Verified a moment ago: taken again without reading the row...
    assert client.get("/api/therapy-sessions", headers=bearer(token)).status_code == 200
    time.sleep(0.6)
    # ...until the window has passed; then refused, and refused from then on.
    for _ in range(3):
        assert_unauthorized(client.get("/api/therapy-sessions", headers=bearer(token)))


def test_without_a_trust_window_every_request_reads_the_token(make_app, org):
    client = make_app(TOKEN_TRUST_SECONDS=0).test_client()
    row, token = create_token(org.id, ["admin"])
    assert client.get("/api/therapy-sessions", headers=bearer(token)).status_code == 200
    _revoke_elsewhere(row.id)
    assert_unauthorized(client.get("/api/therapy-sessions", headers=bearer(token)))


def test_a_trusted_token_still_expires_on_time(make_app, org):
    client = make_app(TOKEN_TRUST_SECONDS=60).test_client()
    _, token = create_token(org.id, ["admin"], expires_at=utcnow() + timedelta(seconds=0.4))
    assert client.get("/api/therapy-sessions", headers=bearer(token)).status_code == 200
    time.sleep(0.5)
    assert_unauthorized(client.get("/api/therapy-sessions", headers=bearer(token)))


@pytest.mark.parametrize("method,path,body,scope", OPERATIONS, ids=OPERATION_IDS)
def test_token_without_the_scope_is_403(client, org, make_token, method, path, body, scope):
    other_scopes = [s for s in ("sessions:read", "sessions:write", "templates:read",
                                "templates:write", "analysis:run") if s != scope]
    response = call(client, method, path, body, bearer(make_token(org, *other_scopes)))
    assert response.status_code == 403
    assert response.json["code"] == 403
    assert scope in response.json["message"]


@pytest.mark.parametrize("method,path,body,scope", OPERATIONS, ids=OPERATION_IDS)
def test_token_with_the_scope_is_allowed(client, org, make_token, method, path, body, scope):
    response = call(client, method, path, body, bearer(make_token(org, scope)))
    assert response.status_code in (200, 201), response.json


@pytest.mark.parametrize("method,path,body,scope", OPERATIONS, ids=OPERATION_IDS)
def test_admin_scope_covers_every_operation(client, auth, method, path, body, scope):
    response = call(client, method, path, body, auth)
    assert response.status_code in (200, 201), response.json


def test_read_scope_cannot_patch(client, org, make_token, make_session):
    session = make_session()
    response = client.patch(f"/api/therapy-sessions/{session['id']}",
                            json={"duration_minutes": 60},
                            headers=bearer(make_token(org, "sessions:read")))
    assert response.status_code == 403


@pytest.mark.parametrize("method,path,body,scope", OPERATIONS, ids=OPERATION_IDS)
def test_platform_token_cannot_touch_clinic_data(client, method, path, body, scope):
    response = call(client, method, path, body, bearer(PLATFORM_TOKEN))
    assert response.status_code == 403
    assert response.json["code"] == 403


def test_stored_platform_token_cannot_read_sessions(client):
    _, token = create_token(None, [])
    assert client.get("/api/therapy-sessions", headers=bearer(token)).status_code == 403


def test_another_organizations_session_is_404_like_an_unknown_one(
        client, make_session, other_org, make_token):
    session = make_session()
    other = bearer(make_token(other_org, "admin"))
    foreign = client.get(f"/api/therapy-sessions/{session['id']}", headers=other)
    unknown = client.get(f"/api/therapy-sessions/{UNKNOWN_SESSION}", headers=other)
    assert foreign.status_code == 404
    assert foreign.json == unknown.json


def test_another_organizations_session_cannot_be_patched(
        client, auth, make_session, other_org, make_token):
    session = make_session()
    other = bearer(make_token(other_org, "admin"))
    foreign = client.patch(f"/api/therapy-sessions/{session['id']}",
                           json={"status": "cancelled"}, headers=other)
    unknown = client.patch(f"/api/therapy-sessions/{UNKNOWN_SESSION}",
                           json={"status": "cancelled"}, headers=other)
    assert foreign.status_code == 404
    assert foreign.json == unknown.json
    stored = client.get(f"/api/therapy-sessions/{session['id']}", headers=auth).json
    assert stored["status"] == "scheduled"


def test_list_shows_only_the_callers_organization(client, make_session, other_org, make_token):
    make_session()
    other = bearer(make_token(other_org, "admin"))
    theirs = make_session(headers=other, patient_id="pat-other")
    listed = client.get("/api/therapy-sessions", headers=other).json
    assert [s["id"] for s in listed] == [theirs["id"]]
    assert TherapySession.select().count() == 2


def test_last_used_at_is_recorded(client, org):
    row, token = create_token(org.id, ["sessions:read"])
    assert row.last_used_at is None
    before = utcnow()
    client.get("/api/therapy-sessions", headers=bearer(token))
    last_used = ApiToken.get_by_id(row.id).last_used_at
    assert last_used is not None
    assert before - timedelta(seconds=1) <= last_used <= utcnow()


def test_token_is_stored_only_as_a_hash(client, org):
    row, token = create_token(org.id, ["admin"], name="front desk")
    assert token.startswith("cws_")
    stored_rows = ApiToken.select().tuples()
    assert all(token not in str(value) for stored in stored_rows for value in stored)
    assert ApiToken.get_by_id(row.id).token_hash == hash_token(token)


def test_tokens_are_random(org):
    tokens = {create_token(org.id, ["admin"])[1] for _ in range(5)}
    assert len(tokens) == 5
    assert all(len(token) > 40 for token in tokens)
