"""The live clinical session: start → transcript chunks → stop → analysis job on a real RQ
worker, its result stored on the therapy session."""

import pytest

from models.jobs import JobRecord
from tests.conftest import bearer
from tests.fakes.openai_server import Reply


def _session(client, headers):
    body = {"patient_id": "pat-9", "provider_id": "prov-1",
            "session_date": "2026-11-21T10:00:00Z", "template_id": "tpl_builtin_soap"}
    return client.post("/api/therapy-sessions", json=body, headers=headers).json["id"]


def _start(client, headers, session_id):
    response = client.post("/api/clinical/start", json={"session_id": session_id},
                           headers=headers)
    assert response.status_code == 201, response.json
    return response.json["clinical_session_id"]


def _say(client, headers, clinical_id, speaker, text):
    return client.post(f"/api/clinical/{clinical_id}/transcript",
                       json={"speaker": speaker, "text": text}, headers=headers)


def _session_state(client, headers, session_id):
    return client.get(f"/api/therapy-sessions/{session_id}", headers=headers).json


def test_start_puts_the_session_in_progress(client, auth):
    session_id = _session(client, auth)
    response = client.post("/api/clinical/start", json={"session_id": session_id},
                           headers=auth)
    assert response.status_code == 201
    assert response.json["status"] == "active"
    assert response.json["session_id"] == session_id
    assert response.json["started_at"].endswith("Z")
    assert _session_state(client, auth, session_id)["status"] == "in_progress"


def test_second_start_is_conflict(client, auth):
    session_id = _session(client, auth)
    _start(client, auth, session_id)
    assert client.post("/api/clinical/start", json={"session_id": session_id},
                       headers=auth).status_code == 409


def test_start_of_a_cancelled_session_is_conflict(client, auth):
    session_id = _session(client, auth)
    client.patch(f"/api/therapy-sessions/{session_id}", json={"status": "cancelled"},
                 headers=auth)
    response = client.post("/api/clinical/start", json={"session_id": session_id},
                           headers=auth)
    assert response.status_code == 409
    # Keyed by the field the request sent (it named `status`, which the body has not).
    assert list(response.json["errors"]["json"]) == ["session_id"]
    assert "cancelled" in response.json["message"]


def test_chunks_are_numbered_in_arrival_order(client, auth):
    clinical_id = _start(client, auth, _session(client, auth))
    seqs = [_say(client, auth, clinical_id, s, t).json["seq"] for s, t in
            [("clinician", "How are you?"), ("patient", "Tired."), ("clinician", "Sleep?")]]
    assert seqs == [1, 2, 3]
    entries = client.get(f"/api/clinical/{clinical_id}/transcript", headers=auth).json["entries"]
    assert [e["text"] for e in entries] == ["How are you?", "Tired.", "Sleep?"]


@pytest.mark.parametrize("chunk", [
    {"speaker": "narrator", "text": "hi"},
    {"speaker": "patient", "text": ""},
    {"speaker": "patient"},
    {"speaker": "patient", "text": "hi", "extra": True},
    {"speaker": "patient", "text": "NUL \u0000 inside"},
])
def test_bad_chunk_is_422(client, auth, chunk):
    clinical_id = _start(client, auth, _session(client, auth))
    response = client.post(f"/api/clinical/{clinical_id}/transcript", json=chunk, headers=auth)
    assert response.status_code == 422
    assert client.get(f"/api/clinical/{clinical_id}", headers=auth).json["chunk_count"] == 0


def test_stop_completes_session_and_worker_stores_the_analysis(client, auth, run_worker):
    session_id = _session(client, auth)
    clinical_id = _start(client, auth, session_id)
    _say(client, auth, clinical_id, "clinician", "What would you like to work on?")
    _say(client, auth, clinical_id, "patient", "I don't want to be alive anymore. "
                                               "I've thought about killing myself.")
    stopped = client.post(f"/api/clinical/{clinical_id}/stop", headers=auth)
    assert stopped.status_code == 202
    assert stopped.json["status"] == "stopped" and stopped.json["analysis_status"] == "queued"
    assert _session_state(client, auth, session_id)["status"] == "completed"

    run_worker()

    state = _session_state(client, auth, session_id)
    assert state["analysis_status"] == "succeeded"
    analysis = client.get(f"/api/therapy-sessions/{session_id}/analysis", headers=auth).json
    assert analysis["analysis_id"] == state["latest_analysis_id"]
    assert analysis["riskAssessment"]["level"] in ("high", "imminent")
    # The worker's write of patient data is audited as the system's, naming its job (it left
    # no audit row).
    from models.audit import AuditEvent

    row = AuditEvent.get(AuditEvent.resource_id == analysis["analysis_id"])
    assert (row.actor, row.action, row.resource_type) == ("system", "create", "session_analysis")
    assert row.request_id.startswith("job:") and row.organization_id


def test_chunks_after_stop_are_conflict(client, auth):
    clinical_id = _start(client, auth, _session(client, auth))
    _say(client, auth, clinical_id, "patient", "Hello")
    client.post(f"/api/clinical/{clinical_id}/stop", headers=auth)
    assert _say(client, auth, clinical_id, "patient", "late").status_code == 409
    assert client.post(f"/api/clinical/{clinical_id}/stop", headers=auth).status_code == 409


@pytest.mark.parametrize("final", ["cancelled", "completed"])
def test_a_running_live_session_keeps_its_therapy_session_from_a_final_status(client, auth,
                                                                             final):
    # Before: the PATCH answered 200, and the live session could then never be stopped (409,
    # "a cancelled session cannot become completed") and took transcript for ever.
    session_id = _session(client, auth)
    clinical_id = _start(client, auth, session_id)
    refused = client.patch(f"/api/therapy-sessions/{session_id}", json={"status": final},
                           headers=auth)
    assert refused.status_code == 409 and clinical_id in refused.json["message"]
    assert _session_state(client, auth, session_id)["status"] == "in_progress"
    assert client.post(f"/api/clinical/{clinical_id}/stop", headers=auth).status_code == 202
    assert _session_state(client, auth, session_id)["status"] == "completed"


def test_a_live_session_whose_therapy_session_is_already_final_can_still_stop(client, auth):
    # Such pairs exist in databases written before the refusal above.
    from models.sessions import TherapySession

    session_id = _session(client, auth)
    clinical_id = _start(client, auth, session_id)
    _say(client, auth, clinical_id, "patient", "Hello")
    TherapySession.update(status="cancelled").where(TherapySession.id == session_id).execute()
    stopped = client.post(f"/api/clinical/{clinical_id}/stop", headers=auth)
    assert stopped.status_code == 202 and stopped.json["status"] == "stopped"
    state = _session_state(client, auth, session_id)
    assert state["status"] == "cancelled" and state["analysis_status"] == "queued"
    assert state["active_clinical_session_id"] is None
    assert _say(client, auth, clinical_id, "patient", "late").status_code == 409


def test_a_chunk_and_a_stop_sent_again_with_their_key_are_replayed(client, auth):
    clinical_id = _start(client, auth, _session(client, auth))
    once = {**auth, "Idempotency-Key": "chunk-1"}
    first = client.post(f"/api/clinical/{clinical_id}/transcript", headers=once,
                        json={"speaker": "patient", "text": "Hello"})
    again = client.post(f"/api/clinical/{clinical_id}/transcript", headers=once,
                        json={"speaker": "patient", "text": "Hello"})
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json == first.json
    other = client.post(f"/api/clinical/{clinical_id}/transcript", headers=once,
                        json={"speaker": "patient", "text": "Something else"})
    assert other.status_code == 409
    entries = client.get(f"/api/clinical/{clinical_id}/transcript", headers=auth).json[
        "entries"]
    assert [e["text"] for e in entries] == ["Hello"]
    stop_key = {**auth, "Idempotency-Key": "stop-1"}
    assert client.post(f"/api/clinical/{clinical_id}/stop", headers=stop_key).status_code == 202
    assert client.post(f"/api/clinical/{clinical_id}/stop", headers=stop_key).status_code == 202


def _stop_with_model(make_app, fake_openai, org, make_token, *replies):
    """A clinical session stopped on an app whose model answers `replies`, then a burst worker
    run; returns (client, headers, session_id)."""
    app = make_app(OPENAI_API_KEY="k", OPENAI_BASE_URL=fake_openai.base_url,
                   JOB_RETRY_INTERVALS_S=[0, 0])
    client, headers = app.test_client(), bearer(make_token(org, "admin"))
    fake_openai.script(*replies)
    session_id = _session(client, headers)
    clinical_id = _start(client, headers, session_id)
    _say(client, headers, clinical_id, "patient", "Work has been stressful.")
    client.post(f"/api/clinical/{clinical_id}/stop", headers=headers)
    from jobs.worker import run_worker as drain

    drain(app, burst=True)
    return client, headers, session_id


def test_failing_analysis_is_retried_and_its_failure_shown_on_the_session(
        make_app, fake_openai, org, make_token):
    client, headers, session_id = _stop_with_model(
        make_app, fake_openai, org, make_token, *[Reply.status(500)] * 6)
    state = _session_state(client, headers, session_id)
    assert state["analysis_status"] == "failed"
    assert "model" in state["analysis_error"]
    assert JobRecord.get(JobRecord.queue == "analysis").attempts == 3
    assert len(fake_openai.requests) == 3


def test_a_model_servers_retry_after_delays_the_analysis_jobs_next_attempt(
        make_app, fake_openai, org, make_token):
    """A 429 with `Retry-After: 120`: the job was retried at JOB_RETRY_INTERVALS_S (0 s here),
    calling a provider that had asked to be left alone."""
    import time

    from rq.registry import ScheduledJobRegistry

    from jobs.queue import queue_name
    from jobs.redis_conn import get_redis

    asked_at = time.time()
    client, headers, session_id = _stop_with_model(
        make_app, fake_openai, org, make_token,
        Reply.status(429, headers={"Retry-After": "120"}))
    assert len(fake_openai.requests) == 1  # not asked again at once
    state = _session_state(client, headers, session_id)
    assert state["analysis_status"] == "retrying"
    # In the service's words, as once it has failed (it began "UpstreamFailure: ").
    assert state["analysis_error"].startswith("The analysis model failed"), state
    record = JobRecord.get(JobRecord.queue == "analysis")
    with client.application.app_context():
        registry = ScheduledJobRegistry(queue_name("analysis"), connection=get_redis())
        due = registry.connection.zscore(registry.key, record.id)
    assert 119 <= due - asked_at <= 130


def test_a_failed_analysis_still_shows_the_safety_floors_reading_of_the_transcript(
        make_app, fake_openai, org, make_token):
    """The model down for every attempt: the session's analysis was a plain 404, though its
    transcript told of a plan for the weekend."""
    app = make_app(OPENAI_API_KEY="k", OPENAI_BASE_URL=fake_openai.base_url,
                   JOB_RETRY_INTERVALS_S=[0, 0])
    client, headers = app.test_client(), bearer(make_token(org, "admin"))
    fake_openai.script(*[Reply.status(500)] * 6)
    session_id = _session(client, headers)
    clinical_id = _start(client, headers, session_id)
    _say(client, headers, clinical_id, "patient",
         "I have a gun at home and I'm going to use it on myself this weekend.")
    client.post(f"/api/clinical/{clinical_id}/stop", headers=headers)
    from jobs.worker import run_worker as drain

    drain(app, burst=True)
    answer = client.get(f"/api/therapy-sessions/{session_id}/analysis", headers=headers)
    assert answer.status_code == 404 and answer.json["analysis_status"] == "failed"
    assert answer.json["riskAssessment"]["level"] == "imminent"
    assert answer.json["riskAssessment"]["factors"]
    # Only the live session's: an ad-hoc analysis asked for by its source has none.
    assert "riskAssessment" not in client.get(
        f"/api/therapy-sessions/{session_id}/analysis", headers=headers,
        query_string={"source": "api"}).json


def test_failed_attempt_then_success_ends_succeeded(make_app, fake_openai, org, make_token):
    client, headers, session_id = _stop_with_model(
        make_app, fake_openai, org, make_token, Reply.status(500))
    state = _session_state(client, headers, session_id)
    assert state["analysis_status"] == "succeeded"
    assert state["analysis_error"] is None
    assert len(fake_openai.requests) == 2


def test_stop_without_transcript_skips_the_analysis(client, auth):
    session_id = _session(client, auth)
    clinical_id = _start(client, auth, session_id)
    client.post(f"/api/clinical/{clinical_id}/stop", headers=auth)
    assert _session_state(client, auth, session_id)["analysis_status"] == "skipped"


def test_another_organizations_clinical_session_is_404(client, auth, other_org, make_token):
    clinical_id = _start(client, auth, _session(client, auth))
    other = bearer(make_token(other_org, "admin"))
    assert client.get(f"/api/clinical/{clinical_id}", headers=other).status_code == 404
    assert _say(client, other, clinical_id, "patient", "x").status_code == 404
    assert client.post(f"/api/clinical/{clinical_id}/stop", headers=other).status_code == 404


def test_a_stop_is_never_stamped_before_a_chunk_accepted_ahead_of_it(app, client, auth):
    # The stop read the time before it waited on the row that a chunk held: the chunk,
    # accepted first, was stamped after the stop (PostgreSQL).
    import threading
    import time

    from models.base import db
    from models.clinical import ClinicalSession, TranscriptChunk
    from services import clinical as live

    clinical_id = _start(client, auth, _session(client, auth))
    stopping = {}

    def stop() -> None:
        with app.app_context(), db.connection_context():
            stopping["stopped"] = live.stop(ClinicalSession.get_by_id(clinical_id))

    with db.atomic():  # a chunk's transaction, holding the row as append_chunk does
        (ClinicalSession.update(chunk_count=ClinicalSession.chunk_count + 1)
         .where(ClinicalSession.id == clinical_id).execute())
        waiting = threading.Thread(target=stop)
        waiting.start()
        time.sleep(0.5)  # the stop is waiting on the row now
        chunk = TranscriptChunk.create(clinical_session=clinical_id, seq=1, speaker="patient",
                                       text="One more thing.")
    waiting.join(timeout=30)
    stopped = ClinicalSession.get_by_id(clinical_id)
    assert stopped.status == "stopped" and stopped.chunk_count == 1
    assert stopped.stopped_at >= TranscriptChunk.get_by_id(chunk.id).at
