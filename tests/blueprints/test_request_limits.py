"""Bodies at the edges: nesting, leading white space, missing bodies, sizes, and the headers
that describe an answer (Allow, X-Pagination)."""

import json

import pytest

from tests.blueprints.test_errors import assert_error_shape
from tests.conftest import SESSION_BODY

DEEP = 330


def _nested(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("field", ["patient_id", "chief_complaints"])
def test_deeply_nested_json_in_a_session_is_400(client, auth, field):
    body = {**SESSION_BODY, field: _nested(DEEP)}
    response = client.post("/api/therapy-sessions", data=json.dumps(body),
                           content_type="application/json", headers=auth)
    assert_error_shape(response, 400)
    assert client.get("/api/therapy-sessions", headers=auth).json == []


def test_deeply_nested_vital_signs_are_400(client, auth):
    body = {"session_transcript": "Patient: fine.", "vital_signs": {"a": _nested(DEEP)}}
    response = client.post("/api/therapy/analyze-session", data=json.dumps(body),
                           content_type="application/json", headers=auth)
    assert_error_shape(response, 400)


def test_ordinary_nesting_is_accepted(client, auth):
    body = {"session_transcript": "Patient: fine.", "vital_signs": {"bp": {"sys": [120]}}}
    assert client.post("/api/therapy/analyze-session", json=body,
                       headers=auth).status_code == 200


def test_text_starting_with_white_space_is_accepted(client, auth):
    created = client.post("/api/therapy-sessions",
                          json={**SESSION_BODY, "patient_id": " pat-1"}, headers=auth)
    assert created.status_code == 201, created.json
    analysed = client.post("/api/therapy/analyze-session",
                           json={"session_transcript": "\nPatient: I slept well."}, headers=auth)
    assert analysed.status_code == 200, analysed.json
    started = client.post("/api/clinical/start", json={"session_id": created.json["id"]},
                          headers=auth)
    chunk = client.post(f"/api/clinical/{started.json['clinical_session_id']}/transcript",
                        json={"speaker": "patient", "text": " I have been sleeping better."},
                        headers=auth)
    assert chunk.status_code == 201, chunk.json


def test_white_space_only_text_is_still_refused(client, auth):
    response = client.post("/api/therapy/analyze-session",
                           json={"session_transcript": " \n\t "}, headers=auth)
    assert_error_shape(response, 422)


def test_patch_without_a_body_is_400_and_changes_nothing(client, auth, make_session):
    session = make_session()
    response = client.patch(f"/api/therapy-sessions/{session['id']}", headers=auth)
    assert_error_shape(response, 400)
    assert client.get(f"/api/therapy-sessions/{session['id']}",
                      headers=auth).json["updated_at"] == session["updated_at"]


def test_405_names_the_allowed_methods(client, auth):
    response = client.delete("/api/therapy-sessions", headers=auth)
    assert_error_shape(response, 405)
    assert set(response.headers["Allow"].replace(" ", "").split(",")) >= {"GET", "POST"}


@pytest.mark.parametrize("path, allowed", [
    ("/api/clinical/start", {"POST", "OPTIONS"}),
    ("/api/organizations/provision", {"POST", "OPTIONS"}),
])
def test_a_fixed_path_beside_an_id_route_offers_only_its_own_methods(client, auth, path,
                                                                     allowed):
    """``/start`` is not a clinical session's id, nor ``/provision`` an organization's: GET
    there is 405, not "not found", and neither lists GET among its methods."""
    response = client.get(path, headers=auth)
    assert_error_shape(response, 405)
    assert set(response.headers["Allow"].replace(" ", "").split(",")) == allowed
    assert set(client.options(path).headers["Allow"].replace(" ", "").split(",")) == allowed


@pytest.mark.parametrize(("path", "location"), [
    ("/rq", "/rq/"),                # routing's own redirect to the dashboard's address
    ("/api/docs/", "/api/docs"),    # the docs page, asked for with its assets' slash
])
def test_a_redirect_says_where_in_json(client, path, location):
    response = client.get(path)
    assert response.status_code == 308
    assert response.location.endswith(location)
    assert response.mimetype == "application/json"
    assert response.json["code"] == 308 and location in response.json["message"]
    assert client.get(location).status_code in (200, 401)  # the dashboard needs its password


def test_pagination_header_is_documented_as_json(client):
    header = client.get("/api/openapi.json").json["components"]["headers"]["PAGINATION"]
    assert "schema" not in header
    assert "application/json" in header["content"]


def test_largest_documented_chunk_fits_the_body_limit(client, auth, make_session):
    """200,000 characters, each sent as an escaped surrogate pair (12 bytes)."""
    session = make_session()
    started = client.post("/api/clinical/start", json={"session_id": session["id"]},
                          headers=auth)
    text = "\U0001f600" * 200_000
    raw = json.dumps({"speaker": "patient", "text": text})  # ensure_ascii: \ud83d\ude00
    assert len(raw) > 2 * 1024 * 1024
    response = client.post(f"/api/clinical/{started.json['clinical_session_id']}/transcript",
                           data=raw, content_type="application/json", headers=auth)
    assert response.status_code == 201, response.json


# Python's parser takes what RFC 8259 does not (NaN, Infinity, 1e400 as infinity) and raises a
# plain ValueError on an integer of more than 4,300 digits: each answered 500 somewhere.
NOT_JSON_NUMBERS = ["NaN", "Infinity", "-Infinity", "1e400", "-1e400", "1" * 5000]


@pytest.mark.parametrize("number", NOT_JSON_NUMBERS)
def test_numbers_json_does_not_have_are_400_and_store_nothing(client, auth, number):
    body = json.dumps(SESSION_BODY)[:-1] + f', "vital_signs": {{"heart_rate": {number}}}}}'
    response = client.post("/api/therapy-sessions", data=body,
                           content_type="application/json", headers=auth)
    assert_error_shape(response, 400)
    assert client.get("/api/therapy-sessions", headers=auth).json == []
    analysed = client.post(
        "/api/therapy/analyze-session", content_type="application/json", headers=auth,
        data=f'{{"session_transcript": "Patient: fine.", '
             f'"clinical_context": {{"patient_age": {number}}}}}')
    assert_error_shape(analysed, 400)


def test_large_finite_numbers_are_still_json(client, auth):
    body = {"session_transcript": "Patient: fine.",
            "vital_signs": {"heart_rate": 1e300, "temperature": 10 ** 90}}
    assert client.post("/api/therapy/analyze-session", json=body, headers=auth).status_code \
        == 200


@pytest.mark.parametrize("age", ["\u00b2", "1" * 5000, "-3", "4.5e1"])
def test_an_age_that_is_no_whole_number_of_years_is_ignored(client, auth, age):
    response = client.post("/api/therapy/analyze-session", headers=auth, json={
        "session_transcript": "Patient: fine.", "clinical_context": {"patient_age": age}})
    assert response.status_code == 200, response.json


def test_a_transcript_with_thousands_of_digits_in_a_row_is_analysed(client, auth):
    response = client.post("/api/therapy/analyze-session", headers=auth, json={
        "session_transcript": "Patient: I took " + "9" * 5000 + " of my pills tonight."})
    assert response.status_code == 200, response.json


def test_integers_are_taken_up_to_a_hundred_digits():
    from web import json_input

    assert json_input.loads("9" * 100) == int("9" * 100)
    assert json_input.loads("-" + "9" * 100) == -int("9" * 100)
    with pytest.raises(json.JSONDecodeError):
        json_input.loads("9" * 101)


# Half of a surrogate pair (an emoji cut in two) decodes to a string no database driver can
# encode: the first write answered 500, on every operation that stores text.
LONE_SURROGATE_BODIES = [
    ("/api/therapy-sessions", '{"patient_id": "pat-\\ud83d", "provider_id": "prov-1", '
                              '"session_date": "2026-12-01T15:00:00Z"}'),
    ("/api/therapy-sessions", '{"patient_id": "pat-1", "provider_id": "prov-1", '
                              '"session_date": "2026-12-01T15:00:00Z", "notes": "a\\uDE00b"}'),
    ("/api/therapy/analyze-session", '{"session_transcript": "Patient: cut \\ud83d"}'),
    ("/api/note-templates", '{"name": "x", "kind": "soap", "sections": [{"\\udfff": 1}]}'),
]


@pytest.mark.parametrize(("path", "body"), LONE_SURROGATE_BODIES)
def test_a_lone_surrogate_is_400_and_stores_nothing(client, auth, path, body):
    response = client.post(path, data=body, content_type="application/json", headers=auth)
    assert_error_shape(response, 400)
    assert client.get("/api/therapy-sessions", headers=auth).json == []


def test_surrogate_pairs_and_escaped_backslashes_are_still_text(client, auth):
    body = ('{"patient_id": "pat-\\ud83d\\ude00", "provider_id": "prov-\\\\ud83d", '
            '"session_date": "2026-12-01T15:00:00Z"}')
    response = client.post("/api/therapy-sessions", data=body, content_type="application/json",
                           headers=auth)
    assert response.status_code == 201, response.json
    assert response.json["patient_id"] == "pat-\U0001f600"
    assert response.json["provider_id"] == "prov-\\ud83d"


def test_a_key_twice_in_one_object_is_400_and_stores_nothing(client, auth):
    """The parser kept the last of two keys, so a check of the body saw only that one (a card
    number in an earlier `billing_details` went unrefused), and a client could not know which
    value counted."""
    body = ('{"patient_id": "pat-1", "provider_id": "prov-7", "patient_id": "pat-2", '
            '"session_date": "2026-11-20T15:00:00Z"}')
    response = client.post("/api/therapy-sessions", data=body, headers={
        **auth, "Content-Type": "application/json"})
    assert_error_shape(response, 400)
    assert client.get("/api/therapy-sessions", headers=auth).json == []
