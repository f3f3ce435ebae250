"""Every analysis of a session is kept and listed; which one `…/analysis` returns is stated;
a skipped analysis says so; the live clinical session can be found from its therapy session."""

import json

from tests.blueprints.test_clinical import _say, _session, _session_state, _start

TRANSCRIPT = "Clinician: How was the week?\nPatient: Calmer. I used the breathing exercise."


def _live_analysis(client, auth, run_worker) -> tuple[str, str]:
    session_id = _session(client, auth)
    clinical_id = _start(client, auth, session_id)
    _say(client, auth, clinical_id, "patient", "I slept better and kept the diary.")
    client.post(f"/api/clinical/{clinical_id}/stop", headers=auth)
    run_worker()
    return session_id, _session_state(client, auth, session_id)["latest_analysis_id"]


def test_ad_hoc_analysis_is_kept_beside_the_live_one(client, auth, run_worker):
    session_id, live_id = _live_analysis(client, auth, run_worker)
    ad_hoc = client.post("/api/therapy/analyze-session", headers=auth, json={
        "session_transcript": TRANSCRIPT, "clinical_context": {"session_id": session_id}})
    assert ad_hoc.status_code == 200

    newest = client.get(f"/api/therapy-sessions/{session_id}/analysis", headers=auth).json
    assert newest["analysis_id"] == ad_hoc.json["analysis_id"]
    assert newest["source"] == "api"
    live = client.get(f"/api/therapy-sessions/{session_id}/analysis?source=clinical_session",
                      headers=auth).json
    assert live["analysis_id"] == live_id and live["source"] == "clinical_session"

    listed = client.get(f"/api/therapy-sessions/{session_id}/analyses", headers=auth)
    assert listed.status_code == 200
    assert [a["analysis_id"] for a in listed.json] == [ad_hoc.json["analysis_id"], live_id]
    assert json.loads(listed.headers["X-Pagination"])["total"] == 2


def test_a_source_with_no_analysis_says_the_session_has_others(client, auth, run_worker):
    """It said "This session has no analysis yet." beside `analysis_status: succeeded`."""
    session_id, _ = _live_analysis(client, auth, run_worker)
    response = client.get(f"/api/therapy-sessions/{session_id}/analysis?source=api",
                          headers=auth)
    assert response.status_code == 404
    assert "no analysis from source 'api'" in response.json["message"]
    assert "yet" not in response.json["message"]


def test_skipped_analysis_says_it_was_skipped(client, auth):
    session_id = _session(client, auth)
    clinical_id = _start(client, auth, session_id)
    client.post(f"/api/clinical/{clinical_id}/stop", headers=auth)
    response = client.get(f"/api/therapy-sessions/{session_id}/analysis", headers=auth)
    assert response.status_code == 404
    assert "skipped" in response.json["message"]
    assert response.json["analysis_status"] == "skipped"


def test_session_without_analysis_is_404_not_yet(client, auth):
    session_id = _session(client, auth)
    response = client.get(f"/api/therapy-sessions/{session_id}/analysis", headers=auth)
    assert response.status_code == 404 and "no analysis yet" in response.json["message"]


def test_active_clinical_session_is_shown_on_the_therapy_session(client, auth):
    session_id = _session(client, auth)
    assert _session_state(client, auth, session_id)["active_clinical_session_id"] is None
    clinical_id = _start(client, auth, session_id)
    assert _session_state(client, auth, session_id)["active_clinical_session_id"] == clinical_id
    client.post(f"/api/clinical/{clinical_id}/stop", headers=auth)
    assert _session_state(client, auth, session_id)["active_clinical_session_id"] is None


def test_another_organization_cannot_list_the_analyses(client, auth, other_org, make_token,
                                                       run_worker):
    from tests.conftest import bearer

    session_id, _ = _live_analysis(client, auth, run_worker)
    other = bearer(make_token(other_org, "admin"))
    assert client.get(f"/api/therapy-sessions/{session_id}/analyses",
                      headers=other).status_code == 404
