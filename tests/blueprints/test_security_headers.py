"""Answers hold patient data: no cache keeps them, no browser sniffs their type."""

from tests.conftest import bearer


def test_a_record_an_error_and_a_health_answer_are_not_stored_or_sniffed(client, auth, org,
                                                                         make_token):
    created = client.post("/api/therapy-sessions", headers=auth, json={
        "patient_id": "pat-1", "provider_id": "prov-1", "session_date": "2026-12-01T15:00:00Z"})
    answers = [created, client.get(f"/api/therapy-sessions/{created.json['id']}", headers=auth),
               client.get("/api/therapy-sessions/nope", headers=auth),
               client.get("/api/therapy-sessions", headers=bearer("cws_wrong")),
               client.get("/api/health")]
    for answer in answers:
        assert answer.headers["Cache-Control"] == "no-store", answer.status_code
        assert answer.headers["X-Content-Type-Options"] == "nosniff", answer.status_code
