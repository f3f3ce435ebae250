"""`Idempotency-Key` on creating POSTs: a retry replays the first answer, a different body with
the same key is a conflict, and keys belong to one organization."""

from datetime import timedelta

from models.base import utcnow
from models.idempotency import IdempotencyRecord
from models.sessions import TherapySession
from models.templates import Template
from tests.conftest import SESSION_BODY, bearer

URL = "/api/therapy-sessions"


def keyed(auth, key):
    return {**auth, "Idempotency-Key": key}


def test_same_key_and_body_replays_the_first_response(client, auth):
    first = client.post(URL, json=SESSION_BODY, headers=keyed(auth, "k-1"))
    again = client.post(URL, json=SESSION_BODY, headers=keyed(auth, "k-1"))
    assert first.status_code == again.status_code == 201
    assert again.json == first.json
    assert TherapySession.select().count() == 1


def test_replay_ignores_key_order_and_whitespace_of_the_body(client, auth):
    first = client.post(URL, json=SESSION_BODY, headers=keyed(auth, "k-1"))
    reordered = '{ "session_date": "2026-11-20T15:00:00Z", "provider_id": "prov-7", ' \
                '"patient_id": "pat-1001" }'
    again = client.post(URL, data=reordered, content_type="application/json",
                        headers=keyed(auth, "k-1"))
    assert again.status_code == 201
    assert again.json["id"] == first.json["id"]


def test_same_key_with_another_body_is_409(client, auth):
    client.post(URL, json=SESSION_BODY, headers=keyed(auth, "k-1"))
    other = client.post(URL, json={**SESSION_BODY, "patient_id": "pat-2002"},
                        headers=keyed(auth, "k-1"))
    assert other.status_code == 409
    assert other.json["code"] == 409
    assert "Idempotency-Key" in other.json["message"]
    assert TherapySession.select().count() == 1


def test_failed_request_does_not_consume_the_key(client, auth):
    failed = client.post(URL, json={**SESSION_BODY, "duration_minutes": 0},
                         headers=keyed(auth, "k-1"))
    assert failed.status_code == 422
    created = client.post(URL, json=SESSION_BODY, headers=keyed(auth, "k-1"))
    assert created.status_code == 201
    assert TherapySession.select().count() == 1


def test_unknown_template_does_not_consume_the_key(client, auth):
    failed = client.post(URL, json={**SESSION_BODY, "template_id": "tpl_nope"},
                         headers=keyed(auth, "k-1"))
    assert failed.status_code == 422
    created = client.post(URL, json=SESSION_BODY, headers=keyed(auth, "k-1"))
    assert created.status_code == 201


def test_keys_belong_to_one_organization(client, auth, other_org, make_token):
    other = bearer(make_token(other_org, "sessions:write"))
    mine = client.post(URL, json=SESSION_BODY, headers=keyed(auth, "shared-key"))
    theirs = client.post(URL, json=SESSION_BODY, headers=keyed(other, "shared-key"))
    assert mine.status_code == theirs.status_code == 201
    assert mine.json["id"] != theirs.json["id"]
    assert theirs.json["organization_id"] == other_org.id
    assert TherapySession.select().count() == 2


def test_two_tokens_of_one_organization_share_keys(client, auth, org, make_token):
    first = client.post(URL, json=SESSION_BODY, headers=keyed(auth, "k-1"))
    second_token = bearer(make_token(org, "sessions:write"))
    again = client.post(URL, json=SESSION_BODY, headers=keyed(second_token, "k-1"))
    assert again.json["id"] == first.json["id"]


def test_without_a_key_each_post_creates_a_session(client, auth):
    first = client.post(URL, json=SESSION_BODY, headers=auth)
    second = client.post(URL, json=SESSION_BODY, headers=auth)
    assert first.json["id"] != second.json["id"]
    assert TherapySession.select().count() == 2


def test_different_keys_create_different_sessions(client, auth):
    first = client.post(URL, json=SESSION_BODY, headers=keyed(auth, "k-1"))
    second = client.post(URL, json=SESSION_BODY, headers=keyed(auth, "k-2"))
    assert first.json["id"] != second.json["id"]


def test_same_key_on_another_endpoint_is_409(client, auth):
    client.post(URL, json=SESSION_BODY, headers=keyed(auth, "k-1"))
    co = client.post("/api/co-therapy-sessions",
                     json={**SESSION_BODY, "co_provider_ids": ["prov-8"]},
                     headers=keyed(auth, "k-1"))
    assert co.status_code == 409


def test_key_over_255_characters_is_400(client, auth):
    response = client.post(URL, json=SESSION_BODY, headers=keyed(auth, "k" * 256))
    assert response.status_code == 400
    assert response.json["code"] == 400
    assert TherapySession.select().count() == 0


def test_co_therapy_post_is_idempotent(client, auth):
    body = {**SESSION_BODY, "co_provider_ids": ["prov-8"]}
    first = client.post("/api/co-therapy-sessions", json=body, headers=keyed(auth, "k-1"))
    again = client.post("/api/co-therapy-sessions", json=body, headers=keyed(auth, "k-1"))
    assert again.json == first.json
    assert TherapySession.select().count() == 1


def test_template_post_is_idempotent(client, auth):
    body = {"name": "Brief note", "sections": [{"key": "note", "title": "Note"}]}
    first = client.post("/api/note-templates", json=body, headers=keyed(auth, "k-1"))
    again = client.post("/api/note-templates", json=body, headers=keyed(auth, "k-1"))
    assert first.status_code == again.status_code == 201
    assert again.json["id"] == first.json["id"]
    assert Template.select().where(Template.builtin == False).count() == 1  # noqa: E712


def test_key_can_be_reused_after_24_hours(client, auth):
    first = client.post(URL, json=SESSION_BODY, headers=keyed(auth, "k-1"))
    IdempotencyRecord.update(created_at=utcnow() - timedelta(hours=24, minutes=1)).execute()
    later = client.post(URL, json={**SESSION_BODY, "patient_id": "pat-2002"},
                        headers=keyed(auth, "k-1"))
    assert later.status_code == 201
    assert later.json["id"] != first.json["id"]
