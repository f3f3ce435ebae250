"""Therapy sessions through the API: the stored resource, listing, edits, the status machine
and every way a body can be refused."""

import json
import re

import pytest

from models.sessions import TherapySession
from tests.conftest import SESSION_BODY

ISO_UTC = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$")
MISSING = object()

ALLOWED = [
    ("scheduled", "in_progress"),
    ("in_progress", "completed"),
    ("scheduled", "cancelled"),
    ("in_progress", "cancelled"),
    ("scheduled", "no_show"),
]
STATUSES = ("scheduled", "in_progress", "completed", "cancelled", "no_show")
FORBIDDEN = [(a, b) for a in STATUSES for b in STATUSES if a != b and (a, b) not in ALLOWED]
# PATCHes that bring a new session to each status.
ROUTE_TO = {
    "scheduled": [],
    "in_progress": ["in_progress"],
    "completed": ["in_progress", "completed"],
    "cancelled": ["cancelled"],
    "no_show": ["no_show"],
}


def stored_sessions() -> int:
    return TherapySession.select().count()


def assert_error_shape(response, code):
    assert response.status_code == code
    assert response.is_json
    body = response.json
    assert body["code"] == code
    assert isinstance(body["status"], str) and body["status"]
    assert isinstance(body["message"], str) and body["message"]


def session_url(session_id):
    return f"/api/therapy-sessions/{session_id}"


def bring_to(client, auth, session_id, status):
    for step in ROUTE_TO[status]:
        response = client.patch(session_url(session_id), json={"status": step}, headers=auth)
        assert response.status_code == 200, response.json


# --- create ---------------------------------------------------------------------------------


def test_create_returns_every_field_of_the_session(client, auth, org):
    body = {**SESSION_BODY, "template_id": "tpl_builtin_soap", "duration_minutes": 60,
            "chief_complaints": ["low mood", "poor sleep"], "session_goals": ["sleep plan"]}
    response = client.post("/api/therapy-sessions", json=body, headers=auth)
    assert response.status_code == 201
    session = response.json
    assert session["organization_id"] == org.id
    assert session["patient_id"] == "pat-1001"
    assert session["provider_id"] == "prov-7"
    assert session["template_id"] == "tpl_builtin_soap"
    assert session["session_date"] == "2026-11-20T15:00:00Z"
    assert session["duration_minutes"] == 60
    assert session["chief_complaints"] == ["low mood", "poor sleep"]
    assert session["session_goals"] == ["sleep plan"]
    assert session["status"] == "scheduled"
    assert session["session_type"] == "individual"
    assert ISO_UTC.match(session["created_at"])
    assert ISO_UTC.match(session["updated_at"])


def test_create_applies_defaults(make_session):
    session = make_session()
    assert session["duration_minutes"] == 50
    assert session["status"] == "scheduled"
    assert session["chief_complaints"] == []
    assert session["session_goals"] == []
    assert session["template_id"] is None


def test_ids_are_opaque_and_not_sequential(make_session):
    first, second = make_session()["id"], make_session()["id"]
    assert first != second
    for session_id in (first, second):
        assert re.fullmatch(r"ses_[0-9a-f]{24}", session_id)
        assert not session_id.isdigit()


def test_session_date_with_an_offset_is_stored_in_utc(make_session):
    session = make_session(session_date="2026-11-20T10:00:00-05:00")
    assert session["session_date"] == "2026-11-20T15:00:00Z"


def test_list_limits_are_inclusive(make_session):
    items = ["x" * 2000] * 50
    session = make_session(chief_complaints=items, session_goals=items, duration_minutes=480)
    assert len(session["chief_complaints"]) == 50
    assert session["duration_minutes"] == 480


def _without(field):
    return {k: v for k, v in SESSION_BODY.items() if k != field}


BAD_BODIES = {
    "missing patient_id": (_without("patient_id"), "patient_id"),
    "missing provider_id": (_without("provider_id"), "provider_id"),
    "missing session_date": (_without("session_date"), "session_date"),
    "empty patient_id": ({**SESSION_BODY, "patient_id": ""}, "patient_id"),
    "blank provider_id": ({**SESSION_BODY, "provider_id": "   "}, "provider_id"),
    "numeric patient_id": ({**SESSION_BODY, "patient_id": 1001}, "patient_id"),
    "duration 0": ({**SESSION_BODY, "duration_minutes": 0}, "duration_minutes"),
    "duration 481": ({**SESSION_BODY, "duration_minutes": 481}, "duration_minutes"),
    "duration as a string": ({**SESSION_BODY, "duration_minutes": "50"}, "duration_minutes"),
    "duration 1.5": ({**SESSION_BODY, "duration_minutes": 1.5}, "duration_minutes"),
    "status completed": ({**SESSION_BODY, "status": "completed"}, "status"),
    "naive session_date": ({**SESSION_BODY, "session_date": "2026-11-20T15:00:00"},
                           "session_date"),
    "unparseable session_date": ({**SESSION_BODY, "session_date": "next tuesday"},
                                 "session_date"),
    "complaints as a string": ({**SESSION_BODY, "chief_complaints": "low mood"},
                               "chief_complaints"),
    "complaints as ints": ({**SESSION_BODY, "chief_complaints": [1, 2]}, "chief_complaints"),
    "empty complaint": ({**SESSION_BODY, "chief_complaints": [""]}, "chief_complaints"),
    "blank goal": ({**SESSION_BODY, "session_goals": ["  "]}, "session_goals"),
    "51 goals": ({**SESSION_BODY, "session_goals": ["goal"] * 51}, "session_goals"),
    "2001-char complaint": ({**SESSION_BODY, "chief_complaints": ["x" * 2001]},
                            "chief_complaints"),
    "unknown field": ({**SESSION_BODY, "notes": "free text"}, "notes"),
    "unknown template": ({**SESSION_BODY, "template_id": "tpl_nope"}, "template_id"),
    "empty template_id": ({**SESSION_BODY, "template_id": ""}, "template_id"),
    "NUL in patient_id": ({**SESSION_BODY, "patient_id": "pat\u00001"}, "patient_id"),
    "NUL in complaint": ({**SESSION_BODY, "chief_complaints": ["a\u0000b"]},
                         "chief_complaints"),
    "date outside UTC years": ({**SESSION_BODY, "session_date": "0001-01-01T00:00:00+01:00"},
                               "session_date"),
}


@pytest.mark.parametrize("body,field", BAD_BODIES.values(), ids=BAD_BODIES.keys())
def test_invalid_create_is_422_and_stores_nothing(client, auth, body, field):
    response = client.post("/api/therapy-sessions", json=body, headers=auth)
    assert_error_shape(response, 422)
    assert field in response.json["errors"]["json"]
    assert stored_sessions() == 0


def test_invalid_create_message_names_the_field(client, auth):
    response = client.post("/api/therapy-sessions",
                           json={**SESSION_BODY, "duration_minutes": 0}, headers=auth)
    assert "duration_minutes" in response.json["message"]


def test_co_provider_ids_point_to_the_co_therapy_endpoint(client, auth):
    body = {**SESSION_BODY, "co_provider_ids": ["prov-8"]}
    response = client.post("/api/therapy-sessions", json=body, headers=auth)
    assert_error_shape(response, 422)
    assert "/api/co-therapy-sessions" in response.json["message"]
    assert "co_provider_ids" in response.json["errors"]["json"]
    assert stored_sessions() == 0


# --- get and list ---------------------------------------------------------------------------


def test_get_returns_the_created_session(client, auth, make_session):
    created = make_session(chief_complaints=["panic attacks"])
    response = client.get(session_url(created["id"]), headers=auth)
    assert response.status_code == 200
    assert response.json == created


def test_get_unknown_session_is_404(client, auth):
    response = client.get(session_url("ses_000000000000000000000000"), headers=auth)
    assert_error_shape(response, 404)


def test_list_is_newest_session_date_first(client, auth, make_session):
    older = make_session(session_date="2026-01-05T09:00:00Z")
    newer = make_session(session_date="2026-02-05T09:00:00Z")
    response = client.get("/api/therapy-sessions", headers=auth)
    assert [s["id"] for s in response.json] == [newer["id"], older["id"]]


def _listed_ids(client, auth, query):
    response = client.get(f"/api/therapy-sessions?{query}", headers=auth)
    assert response.status_code == 200, response.json
    return {s["id"] for s in response.json}


def test_list_filters_by_patient(client, auth, make_session):
    mine = make_session(patient_id="pat-A")
    make_session(patient_id="pat-B")
    assert _listed_ids(client, auth, "patient_id=pat-A") == {mine["id"]}


def test_list_filters_by_provider(client, auth, make_session):
    mine = make_session(provider_id="prov-A")
    make_session(provider_id="prov-B")
    assert _listed_ids(client, auth, "provider_id=prov-A") == {mine["id"]}


def test_list_filters_by_status(client, auth, make_session):
    cancelled = make_session()
    make_session()
    bring_to(client, auth, cancelled["id"], "cancelled")
    assert _listed_ids(client, auth, "status=cancelled") == {cancelled["id"]}


def test_list_filters_by_date_window_with_exclusive_end(client, auth, make_session):
    make_session(session_date="2026-03-01T12:00:00Z")
    inside = make_session(session_date="2026-03-10T12:00:00Z")
    make_session(session_date="2026-03-20T00:00:00Z")
    query = "from=2026-03-05T00:00:00Z&to=2026-03-20T00:00:00Z"
    assert _listed_ids(client, auth, query) == {inside["id"]}


def test_list_from_is_inclusive(client, auth, make_session):
    at_start = make_session(session_date="2026-03-05T00:00:00Z")
    make_session(session_date="2026-03-04T23:59:59Z")
    assert _listed_ids(client, auth, "from=2026-03-05T00:00:00Z") == {at_start["id"]}


def test_list_window_with_naive_timestamp_is_422(client, auth):
    response = client.get("/api/therapy-sessions?from=2026-03-05T00:00:00", headers=auth)
    assert_error_shape(response, 422)


def test_list_window_ending_before_it_starts_is_422(client, auth):
    query = "from=2026-03-05T00:00:00Z&to=2026-03-01T00:00:00Z"
    response = client.get(f"/api/therapy-sessions?{query}", headers=auth)
    assert_error_shape(response, 422)


def test_list_with_unknown_status_is_422(client, auth):
    response = client.get("/api/therapy-sessions?status=paused", headers=auth)
    assert_error_shape(response, 422)


def test_list_paginates_with_x_pagination_header(client, auth, make_session):
    ids = [make_session(session_date=f"2026-04-0{day}T10:00:00Z")["id"] for day in (1, 2, 3)]
    first = client.get("/api/therapy-sessions?page=1&page_size=2", headers=auth)
    second = client.get("/api/therapy-sessions?page=2&page_size=2", headers=auth)
    assert [s["id"] for s in first.json] == [ids[2], ids[1]]
    assert [s["id"] for s in second.json] == [ids[0]]
    pagination = json.loads(first.headers["X-Pagination"])
    assert pagination["total"] == 3
    assert pagination["total_pages"] == 2
    assert pagination["next_page"] == 2


def test_page_size_100_is_accepted(client, auth):
    response = client.get("/api/therapy-sessions?page_size=100", headers=auth)
    assert response.status_code == 200


def test_page_far_past_the_end_is_empty(client, auth, make_session):
    make_session()
    response = client.get("/api/therapy-sessions?page=99999999999999999999", headers=auth)
    assert response.status_code == 200
    assert response.json == []
    assert json.loads(response.headers["X-Pagination"])["total"] == 1


def test_nul_in_a_filter_is_422(client, auth):
    response = client.get("/api/therapy-sessions?patient_id=pat%001", headers=auth)
    assert_error_shape(response, 422)


def test_nul_in_a_session_id_is_404(client, auth):
    response = client.get("/api/therapy-sessions/ses%00x", headers=auth)
    assert_error_shape(response, 404)


def test_page_size_over_100_is_422(client, auth):
    response = client.get("/api/therapy-sessions?page_size=101", headers=auth)
    assert_error_shape(response, 422)
    assert "page_size" in response.json["errors"]["query"]


# --- edits ----------------------------------------------------------------------------------


def test_patch_edits_the_session(client, auth, make_session):
    session = make_session()
    changes = {"duration_minutes": 90, "chief_complaints": ["grief"],
               "session_goals": ["name the loss"], "template_id": "tpl_builtin_dap",
               "provider_id": "prov-9", "session_date": "2026-12-01T09:30:00+01:00"}
    response = client.patch(session_url(session["id"]), json=changes, headers=auth)
    assert response.status_code == 200
    stored = client.get(session_url(session["id"]), headers=auth).json
    assert stored["duration_minutes"] == 90
    assert stored["chief_complaints"] == ["grief"]
    assert stored["session_goals"] == ["name the loss"]
    assert stored["template_id"] == "tpl_builtin_dap"
    assert stored["provider_id"] == "prov-9"
    assert stored["session_date"] == "2026-12-01T08:30:00Z"
    assert stored["updated_at"] > session["updated_at"]
    assert stored["created_at"] == session["created_at"]


def test_patch_can_clear_the_template(client, auth, make_session):
    session = make_session(template_id="tpl_builtin_soap")
    response = client.patch(session_url(session["id"]), json={"template_id": None},
                            headers=auth)
    assert response.json["template_id"] is None


BAD_PATCHES = {
    "duration 0": {"duration_minutes": 0},
    "naive date": {"session_date": "2026-12-01T09:30:00"},
    "unknown status": {"status": "paused"},
    "unknown field": {"room": "B"},
    "unknown template": {"template_id": "tpl_nope"},
    "empty template": {"template_id": ""},
    "empty goal": {"session_goals": [""]},
}


@pytest.mark.parametrize("changes", BAD_PATCHES.values(), ids=BAD_PATCHES.keys())
def test_invalid_patch_is_422_and_changes_nothing(client, auth, make_session, changes):
    session = make_session()
    response = client.patch(session_url(session["id"]), json=changes, headers=auth)
    assert_error_shape(response, 422)
    assert client.get(session_url(session["id"]), headers=auth).json == session


def test_patch_unknown_session_is_404(client, auth):
    response = client.patch(session_url("ses_000000000000000000000000"),
                            json={"duration_minutes": 60}, headers=auth)
    assert_error_shape(response, 404)


# --- status machine -------------------------------------------------------------------------


@pytest.mark.parametrize("current,new", ALLOWED)
def test_allowed_transition_succeeds(client, auth, make_session, current, new):
    session = make_session()
    bring_to(client, auth, session["id"], current)
    response = client.patch(session_url(session["id"]), json={"status": new}, headers=auth)
    assert response.status_code == 200
    assert client.get(session_url(session["id"]), headers=auth).json["status"] == new


@pytest.mark.parametrize("current,new", FORBIDDEN)
def test_other_transition_is_409(client, auth, make_session, current, new):
    session = make_session()
    bring_to(client, auth, session["id"], current)
    response = client.patch(session_url(session["id"]), json={"status": new}, headers=auth)
    assert_error_shape(response, 409)
    assert client.get(session_url(session["id"]), headers=auth).json["status"] == current


@pytest.mark.parametrize("final", ["completed", "cancelled", "no_show"])
def test_final_session_is_frozen(client, auth, make_session, final):
    session = make_session()
    bring_to(client, auth, session["id"], final)
    response = client.patch(session_url(session["id"]), json={"duration_minutes": 20},
                            headers=auth)
    assert_error_shape(response, 409)
    # It read "A no_show session…"; "An in_progress session" was "A in_progress session".
    assert response.json["message"] == f"A session in status '{final}' can no longer be changed."
    assert client.get(session_url(session["id"]), headers=auth).json["duration_minutes"] == 50


def test_a_listed_session_is_the_session_read_alone(client, auth, make_session):
    # Every field, null or filled, the same in a list (with or without a date window) as in
    # a read of the session.
    make_session(chief_complaints=["sleep", "work"], session_goals=["rest"])
    full = client.post("/api/co-therapy-sessions", headers=auth, json={
        **SESSION_BODY, "co_provider_ids": ["prov-8"], "duration_minutes": 75}).json
    bring_to(client, auth, full["id"], "in_progress")
    read = {s["id"]: s for s in (client.get(session_url(i), headers=auth).json
                                 for i in _listed_ids(client, auth, "page_size=10"))}
    for query in ("page_size=10", "status=in_progress", "from=2000-01-01T00:00:00Z"):
        listed = client.get(f"/api/therapy-sessions?{query}", headers=auth).json
        assert listed and all(session == read[session["id"]] for session in listed)
        assert all(list(session) == list(read[session["id"]]) for session in listed)
