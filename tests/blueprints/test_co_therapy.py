"""Co-therapy sessions: one provider plus one to four distinct co-providers."""

import pytest

from models.sessions import TherapySession
from tests.conftest import SESSION_BODY

URL = "/api/co-therapy-sessions"


def co_body(*co_providers, **fields):
    return {**SESSION_BODY, "co_provider_ids": list(co_providers), **fields}


def assert_422_on_co_providers(response):
    assert response.status_code == 422
    assert response.json["code"] == 422
    assert "co_provider_ids" in response.json["errors"]["json"]


def test_create_is_a_co_therapy_session(client, auth, org):
    response = client.post(URL, json=co_body("prov-8"), headers=auth)
    assert response.status_code == 201
    session = response.json
    assert session["session_type"] == "co_therapy"
    assert session["co_provider_ids"] == ["prov-8"]
    assert session["provider_id"] == "prov-7"
    assert session["organization_id"] == org.id
    assert session["status"] == "scheduled"


def test_four_co_providers_are_accepted(client, auth):
    response = client.post(URL, json=co_body("a", "b", "c", "d"), headers=auth)
    assert response.status_code == 201
    assert response.json["co_provider_ids"] == ["a", "b", "c", "d"]


def test_co_therapy_session_is_listed_and_readable(client, auth):
    created = client.post(URL, json=co_body("prov-8"), headers=auth).json
    listed = client.get("/api/therapy-sessions", headers=auth).json
    assert [s["id"] for s in listed] == [created["id"]]
    fetched = client.get(f"/api/therapy-sessions/{created['id']}", headers=auth).json
    assert fetched["session_type"] == "co_therapy"


BAD_CO_PROVIDERS = {
    "none": [],
    "five": ["a", "b", "c", "d", "e"],
    "duplicates": ["prov-8", "prov-8"],
    "provider among them": ["prov-8", "prov-7"],
    "empty id": [""],
    "not strings": [8],
}


@pytest.mark.parametrize("co_providers", BAD_CO_PROVIDERS.values(), ids=BAD_CO_PROVIDERS.keys())
def test_bad_co_providers_are_422_and_store_nothing(client, auth, co_providers):
    response = client.post(URL, json=co_body(*co_providers), headers=auth)
    assert_422_on_co_providers(response)
    assert TherapySession.select().count() == 0


def test_missing_co_providers_is_422(client, auth):
    response = client.post(URL, json=SESSION_BODY, headers=auth)
    assert_422_on_co_providers(response)


def test_co_therapy_body_is_validated_like_a_session(client, auth):
    response = client.post(URL, json=co_body("prov-8", duration_minutes=0), headers=auth)
    assert response.status_code == 422
    assert "duration_minutes" in response.json["errors"]["json"]


def test_patch_replaces_co_providers(client, auth):
    session = client.post(URL, json=co_body("prov-8"), headers=auth).json
    response = client.patch(f"/api/therapy-sessions/{session['id']}",
                            json={"co_provider_ids": ["prov-9", "prov-10"]}, headers=auth)
    assert response.status_code == 200
    assert response.json["co_provider_ids"] == ["prov-9", "prov-10"]


def test_patch_co_providers_including_the_provider_is_422(client, auth):
    session = client.post(URL, json=co_body("prov-8"), headers=auth).json
    response = client.patch(f"/api/therapy-sessions/{session['id']}",
                            json={"co_provider_ids": ["prov-7"]}, headers=auth)
    assert_422_on_co_providers(response)


def test_patch_provider_to_one_of_the_co_providers_is_422(client, auth):
    session = client.post(URL, json=co_body("prov-8"), headers=auth).json
    response = client.patch(f"/api/therapy-sessions/{session['id']}",
                            json={"provider_id": "prov-8"}, headers=auth)
    assert response.status_code == 422
    stored = client.get(f"/api/therapy-sessions/{session['id']}", headers=auth).json
    assert stored["provider_id"] == "prov-7"


def test_patch_co_providers_on_individual_session_is_422(client, auth, make_session):
    session = make_session()
    response = client.patch(f"/api/therapy-sessions/{session['id']}",
                            json={"co_provider_ids": ["prov-8"]}, headers=auth)
    assert_422_on_co_providers(response)
