"""Voice intake over HTTP: signed server messages of whole calls (duplicates, out of order),
intake functions, call state and transcript, and the events a clinic receiver gets."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from standardwebhooks import Webhook

from models.base import db, utcnow
from models.usage import UsageEvent
from models.voice import VoiceCall, VoiceEvent
from services.audit import VOICE_PLATFORM, by_peer
from services.limits import MAX_TRANSCRIPT_CHARS
from services.voice import lines
from tests.conftest import bearer
from tests.fakes.voice_platform import LINE_NUMBER, Call, body_of, sign
from tests.fakes.webhook_receiver import WebhookReceiver

SECRET = "voice-platform-shared-secret"
CONFIG = {"VOICE_WEBHOOK_SECRET": SECRET, "ALLOW_PRIVATE_WEBHOOK_URLS": True,
          "WEBHOOK_RETRY_DELAYS_S": [0, 0, 0], "PUBLIC_BASE_URL": "https://cws.clinic.example"}


@pytest.fixture
def app(make_app):
    return make_app(**CONFIG)


@pytest.fixture
def receiver():
    with WebhookReceiver() as fake:
        yield fake


@pytest.fixture
def deployment(client, auth, receiver):
    response = client.post("/api/voice/deployments", headers=auth, json={
        "name": "Harbor Counseling intake", "phone_number": LINE_NUMBER,
        "webhook_url": receiver.url, "screeners": ["phq9", "gad7", "phq2"]})
    assert response.status_code == 201, response.json
    receiver.secrets = [response.json["signing_secret"]]
    return response.json


@pytest.mark.parametrize("number", ["000", "555", "12345", "+0 555 010 0300", "5550100300",
                                    "+1 555 010 0300 1234 5678"])
def test_a_line_number_that_is_not_e164_is_422_and_stores_nothing(client, auth, number):
    # Before, "000" and "555" were stored as the line's number (provisioning refused them).
    response = client.post("/api/voice/deployments", headers=auth, json={
        "name": "Line", "phone_number": number})
    assert response.status_code == 422
    assert len(response.json["errors"]["json"]["phone_number"]) == 1  # it was listed twice
    assert client.get("/api/voice/deployments", headers=auth).json == []


def test_concurrent_creates_for_one_number_give_one_201_and_409s(app, auth, receiver):
    """On PostgreSQL, requests that both passed the "number taken?" check and then lost the
    insert answered 201 with the winner's deployment (its name, its webhook URL)."""
    def create(index: int):
        response = app.test_client().post("/api/voice/deployments", headers=auth, json={
            "name": f"Line {index}", "phone_number": "+1 555 010 0999",
            "webhook_url": f"{receiver.url}/line{index}"})
        return index, response.status_code, response.json

    with ThreadPoolExecutor(10) as pool:
        answers = list(pool.map(create, range(10)))
    created = [(index, body) for index, status, body in answers if status == 201]
    assert len(created) == 1, [(i, s) for i, s, _ in answers]
    index, body = created[0]
    assert body["name"] == f"Line {index}"
    assert sorted(status for _, status, _ in answers) == [201] + [409] * 9
    listed = app.test_client().get("/api/voice/deployments", headers=auth).json
    assert [d["id"] for d in listed] == [body["id"]]


def test_a_line_number_with_spaces_and_brackets_is_stored_as_e164(client, auth, deployment):
    response = client.patch(f"/api/voice/deployments/{deployment['id']}", headers=auth,
                            json={"phone_number": "+1 (555) 777-0003"})
    assert response.status_code == 200 and response.json["phone_number"] == "+15557770003"
    assert client.patch(f"/api/voice/deployments/{deployment['id']}", headers=auth,
                        json={"phone_number": "000"}).status_code == 422


def test_a_deleted_deployment_answers_204_with_no_body_and_no_media_type(client, auth,
                                                                           deployment):
    response = client.delete(f"/api/voice/deployments/{deployment['id']}", headers=auth)
    assert response.status_code == 204 and response.data == b""
    assert "Content-Type" not in response.headers


def post(client, message, secret=SECRET, path="/api/voice/webhook", timestamp=None,
         signature=None):
    body = body_of(message)
    headers = {"Content-Type": "application/json"}
    if signature is None:
        signature = sign(secret, body, timestamp)
    if signature != "":
        headers["service-voice-signature"] = signature
    if timestamp is not None:
        headers["service-voice-timestamp"] = timestamp
    return client.post(path, data=body, headers=headers)


def events_received(receiver):
    return [json.loads(r.body) for r in receiver.requests]


def drain(run_worker):
    run_worker()


# --- signatures ------------------------------------------------------------------------------

def test_valid_signature_is_accepted_with_or_without_prefix(client, deployment):
    call = Call("call-sig")
    assert post(client, call.status("ringing", 0)).status_code == 200
    message = call.status("in-progress", 1)
    response = post(client, message, signature="sha256=" + sign(SECRET, body_of(message)))
    assert response.status_code == 200
    assert VoiceCall.get(VoiceCall.call_id == "call-sig").status == "in-progress"


@pytest.mark.parametrize("signature", ["", "zz-not-hex", "sha256=" + "0" * 64,
                                       sign("another-secret", b"{}")])
def test_bad_signature_is_401_and_stores_nothing(client, deployment, signature):
    response = post(client, Call("call-bad").status("in-progress", 0), signature=signature)
    assert response.status_code == 401
    assert response.json["code"] == 401 and "signature" in response.json["message"]
    assert VoiceEvent.select().count() == 0 and VoiceCall.select().count() == 0


def test_tampered_body_is_refused(client, deployment):
    message = Call("call-t").status("in-progress", 0)
    signature = sign(SECRET, body_of(message))
    message["message"]["status"] = "ended"
    assert post(client, message, signature=signature).status_code == 401


def test_timestamped_signature_within_five_minutes(client, deployment):
    now = str(int(time.time()))
    assert post(client, Call("call-ts").status("in-progress", 0), timestamp=now).status_code \
        == 200
    skewed = str(int(time.time()) - 301)
    response = post(client, Call("call-ts2").status("in-progress", 0), timestamp=skewed)
    assert response.status_code == 401
    # A body signature alone does not pass when a timestamp header is present.
    message = Call("call-ts3").status("in-progress", 0)
    assert post(client, message, timestamp=now,
                signature=sign(SECRET, body_of(message))).status_code == 401


def test_no_secret_configured_is_503(make_app):
    client = make_app(VOICE_WEBHOOK_SECRET="").test_client()
    response = post(client, Call("c").status("in-progress", 0))
    assert response.status_code == 503 and response.json["code"] == 503


def test_configured_header_names_accept_the_platform_credential(make_app, org, make_token):
    client = make_app(**CONFIG, VOICE_SIGNATURE_HEADER="x-signature",
                      VOICE_TIMESTAMP_HEADER="x-timestamp").test_client()
    body = body_of(Call("c-x").status("in-progress", 0))
    stamp = str(int(time.time() * 1000))
    response = client.post("/api/voice/webhook", data=body, headers={
        "x-signature": sign(SECRET, body, stamp), "x-timestamp": stamp,
        "Content-Type": "application/json"})
    assert response.status_code == 200


def test_credentials_are_stripped_from_stored_payloads(client, deployment):
    post(client, Call("call-cred").status("in-progress", 0))
    stored = json.dumps(VoiceEvent.get().payload)
    assert "tw-secret-token" not in stored and "cred-1" not in stored
    assert LINE_NUMBER in stored
    message = Call("call-cred2").status("in-progress", 0)
    message["message"]["phoneNumber"]["server"] = {
        "url": "https://clinic.example/voice", "headers": {"Authorization": "Bearer srv-tok"}}
    post(client, message)
    stored = json.dumps([e.payload for e in VoiceEvent.select()])
    assert "srv-tok" not in stored and "https://clinic.example/voice" in stored


# --- a whole call ----------------------------------------------------------------------------

PHQ9 = [1, 1, 2, 1, 0, 1, 1, 0, 0]  # total 7: mild


def _whole_call(client, call: Call) -> list[dict]:
    answers = []
    sequence = [
        call.status("ringing", 0),
        call.status("in-progress", 1),
        call.said("assistant", "Thank you for calling. Can I start with your name?", 2),
        call.said("user", "Sure, it's", 3, final=False),
        call.said("user", "Sure, it's Dana Whitfield.", 4),
        call.tools(5, ("tc-1", "save_intake_details",
                       {"name": "Dana Whitfield", "reason_for_visit": "low mood"})),
        call.message("speech-update", 6, status="started", role="user", turn=2),
        call.message("user-interrupted", 7),
        call.tools(8, *[(f"tc-a{i}", "record_screener_answer",
                         json.dumps({"screener": "phq9", "item": i, "score": s}))
                        for i, s in enumerate(PHQ9, start=1)]),
        call.tools(9, ("tc-sub", "submit_screener", {"screener": "phq9"})),
        call.said("assistant", "Thank you, a clinician will call you back.", 10),
        call.status("ended", 300, endedReason="customer-ended-call"),
        call.report(301, duration_s=299),
    ]
    for message in sequence:
        response = post(client, message)
        assert response.status_code == 200, response.json
        answers.append(response.json)
    return answers


def test_whole_intake_call(client, auth, deployment, receiver, run_worker, org):
    answers = _whole_call(client, Call("call-1"))
    assert answers[5] == {"results": [{"toolCallId": "tc-1", "name": "save_intake_details",
                                       "result": '{"saved":["name","reason_for_visit"]}'}]}
    submitted = json.loads(answers[9]["results"][0]["result"])
    assert submitted == {"screener": "phq9", "score": 7, "severity": "mild"}

    state = client.get("/api/voice/webhook/call/call-1", headers=auth).json
    assert state["status"] == "ended" and state["deployment_id"] == deployment["id"]
    assert state["ended_reason"] == "customer-ended-call"
    assert state["duration_ms"] == 299_000
    assert state["screeners"][0]["score"] == 7 and state["risk_band"] is None
    assert state["details"]["name"] == "Dana Whitfield" and state["summary_id"]

    transcript = client.get("/api/voice/webhook/call/call-1/transcript", headers=auth).json
    assert [(e["seq"], e["role"]) for e in transcript["entries"]] == [
        (1, "assistant"), (2, "caller"), (3, "assistant")]
    assert transcript["entries"][1]["text"] == "Sure, it's Dana Whitfield."

    drain(run_worker)
    received = events_received(receiver)
    assert [e["event"] for e in received] == ["intake.started", "intake.screener.completed",
                                              "intake.summary.ready", "intake.completed"]
    assert all(r.service_signature_ok and r.standard_signature_ok for r in receiver.requests)
    started, screener, ready, completed = received
    assert started["patient_phone"] == "+15557654321"
    assert started["deployment_id"] == deployment["id"]
    assert (screener["screener"], screener["score"], screener["severity"]) == ("phq9", 7, "mild")
    assert completed["summary_id"] == state["summary_id"]
    assert completed["duration_ms"] == 299_000
    summary_path = ready["handoff_packet_url"].removeprefix("https://cws.clinic.example")
    packet = client.get(summary_path, headers=auth)
    assert packet.status_code == 200
    assert packet.json["content"]["screeners"][0]["severity"] == "mild"
    # The packet's risk band is the call's (it said "low" where the call says none).
    assert packet.json["content"]["risk"]["risk_band"] is state["risk_band"] is None
    assert packet.json["content"]["details"]["reason_for_visit"] == "low mood"
    assert packet.json["content"]["platform_summary"] == "Caller completed intake."
    metered = {e.metric: e.quantity for e in UsageEvent.select().where(
        UsageEvent.metric.in_(["voice_calls", "voice_minutes"]))}
    assert metered == {"voice_calls": 1, "voice_minutes": 5}


def _tool_answer(client, call: Call, offset_s: float, tool_call_id: str, name: str,
                 args: dict) -> dict:
    result = post(client, call.tools(offset_s, (tool_call_id, name, args))).json["results"][0]
    return {k: (json.loads(v) if k == "result" else v) for k, v in result.items()
            if k in ("result", "error")}


def test_a_screener_submitted_again_with_other_answers_is_refused(client, auth, deployment):
    # Before, any later submit (other answers, out-of-range ones, too few) answered the first
    # score as if it were the new answers' score.
    call = Call("call-twice")
    post(client, call.status("in-progress", 0))
    first = [3, 3, 3, 3, 3, 3, 2, 2, 0]
    assert _tool_answer(client, call, 1, "t1", "submit_screener",
                        {"screener": "phq9", "answers": first}) == {
        "result": {"screener": "phq9", "score": 22, "severity": "severe"}}
    for number, answers in enumerate([[4, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1],
                                      [0, 0, 0, 0, 0, 0, 0, 0, 0]], start=2):
        answer = _tool_answer(client, call, number, f"t{number}", "submit_screener",
                              {"screener": "phq9", "answers": answers})
        assert "result" not in answer and answer["error"], answers
    # The same answers again (a repeated message under another id) get the stored result.
    assert _tool_answer(client, call, 9, "t9", "submit_screener",
                        {"screener": "phq9", "answers": first})["result"]["score"] == 22
    state = client.get("/api/voice/webhook/call/call-twice", headers=auth).json
    assert [(s["score"], s["severity"]) for s in state["screeners"]] == [(22, "severe")]


def test_a_nul_in_a_crisis_report_is_stored_not_a_500(client, auth, deployment):
    """On PostgreSQL (no NUL in text or JSON) the report answered 500 and no escalation was
    left; the platform's retries failed the same way."""
    call = Call("call-nul")
    post(client, call.status("in-progress", 0))
    answer = _tool_answer(client, call, 1, "t1", "report_crisis",
                          {"risk_band": "high", "reason": "caller has a plan\u0000 tonight"})
    assert "escalation_id" in answer["result"]
    said = post(client, call.said("user", "I wrote a note\u0000 for them", 2))
    assert said.status_code == 200
    state = client.get("/api/voice/webhook/call/call-nul", headers=auth).json
    assert state["risk_band"] == "high" and state["escalation_id"]


def test_fields_longer_than_their_columns_are_kept_not_a_500(client, auth, deployment):
    """A 129-character call id, a 500-character ended reason or function name, an 80-digit
    caller number: 500 on PostgreSQL, and the message lost."""
    long_id = "c" * 1000
    call = Call(long_id, caller="+1" + "5" * 78)
    assert post(client, call.status("in-progress", 0)).status_code == 200
    answer = post(client, call.tools(1, ("t" * 400, "n" * 500, {}))).json["results"][0]
    assert answer["error"]  # an unknown function, answered as one
    assert post(client, call.status("ended", 2, endedReason="r" * 500)).status_code == 200
    assert post(client, call.message("end-of-call-report", 3,
                                     endedReason="q" * 1000)).status_code == 200
    state = client.get(f"/api/voice/webhook/call/{long_id}", headers=auth).json
    assert state["status"] == "ended" and len(state["ended_reason"]) == 200
    other = Call("c" * 999 + "d")  # the same start: another call all the same
    post(client, other.status("in-progress", 0))
    assert client.get(f"/api/voice/webhook/call/{other.call_id}",
                      headers=auth).json["status"] == "in-progress"


def test_two_different_messages_in_one_millisecond_are_both_applied(client, auth, deployment):
    # Same call, type and millisecond was a duplicate whatever it said: the crisis report after
    # a details call got the details' stored answer and never ran; "in-progress" after
    # "ringing" was dropped.
    call = Call("call-same-ms")
    post(client, call.status("ringing", 1))
    post(client, call.status("in-progress", 1))
    details = post(client, call.message("function-call", 2, functionCall={
        "name": "save_intake_details", "parameters": {"name": "Ann"}})).json
    crisis = post(client, call.message("function-call", 2, functionCall={
        "name": "report_crisis", "parameters": {"risk_band": "high",
                                                "reason": "caller said she has a plan"}})).json
    assert json.loads(details["result"]) == {"saved": ["name"]}
    assert "escalation_id" in json.loads(crisis["result"])
    again = post(client, call.message("function-call", 2, functionCall={
        "name": "report_crisis", "parameters": {"risk_band": "high",
                                                "reason": "caller said she has a plan"}})).json
    assert again == crisis  # the same message again is still a duplicate
    state = client.get("/api/voice/webhook/call/call-same-ms", headers=auth).json
    assert state["status"] == "in-progress" and state["risk_band"] == "high"


def test_replayed_call_changes_nothing_and_emits_nothing_twice(client, auth, deployment,
                                                               receiver, run_worker):
    first = _whole_call(client, Call("call-2"))
    again = _whole_call(client, Call("call-2"))
    assert again == first  # tool calls answered from what was stored
    drain(run_worker)
    assert len(receiver.requests) == 4
    transcript = client.get("/api/voice/webhook/call/call-2/transcript", headers=auth).json
    assert len(transcript["entries"]) == 3


def test_ended_before_in_progress_stays_ended(client, auth, deployment):
    call = Call("call-3")
    post(client, call.status("ended", 60, endedReason="assistant-ended-call"))
    post(client, call.status("in-progress", 1))
    state = client.get("/api/voice/webhook/call/call-3", headers=auth).json
    assert state["status"] == "ended" and state["ended_reason"] == "assistant-ended-call"


def test_the_packet_shows_a_crisis_line_that_came_after_the_end(client, auth, deployment):
    call = Call("call-late")
    post(client, call.status("in-progress", 0))
    post(client, call.report(60, 60))
    post(client, call.said("user", "Honestly, I want to kill myself.", 30))
    state = client.get("/api/voice/webhook/call/call-late", headers=auth).json
    assert state["risk_band"] in ("high", "imminent")
    packet = client.get(f"/api/voice/intake-summaries/{state['summary_id']}", headers=auth).json
    # Before: the packet kept the risk and excerpt of the moment the call ended.
    assert packet["content"]["risk"]["risk_band"] == state["risk_band"]
    assert packet["content"]["risk"]["escalation"]["escalation_id"] == state["escalation_id"]
    assert packet["content"]["transcript_excerpt"][-1]["text"] == \
        "Honestly, I want to kill myself."


def test_minutes_are_metered_by_the_report_after_an_ended_status_without_start(
        client, auth, deployment):
    call = Call("call-min")
    post(client, call.status("ended", 600))  # no in-progress, no call.startedAt
    post(client, call.report(601, 600))
    assert client.get("/api/voice/webhook/call/call-min", headers=auth).json[
        "duration_ms"] == 600_000
    post(client, call.report(601, 600, extra="again"))  # a repeat meters nothing more
    minutes = [e.quantity for e in UsageEvent.select().where(
        UsageEvent.metric == "voice_minutes")]
    assert minutes == [10]


def test_out_of_order_transcript_lines_are_read_in_spoken_order(client, auth, deployment):
    call = Call("call-4")
    post(client, call.said("user", "second line", 5))
    post(client, call.said("assistant", "first line", 2))
    entries = client.get("/api/voice/webhook/call/call-4/transcript", headers=auth).json[
        "entries"]
    assert [e["text"] for e in entries] == ["first line", "second line"]


def test_repeated_transcript_line_of_a_known_call_is_stored_once(client, auth, deployment):
    call = Call("call-dup")
    post(client, call.status("in-progress", 0))
    line = call.said("user", "I sleep badly.", 1)
    assert post(client, line).status_code == 200
    assert post(client, line).status_code == 200
    entries = client.get("/api/voice/webhook/call/call-dup/transcript", headers=auth).json[
        "entries"]
    assert [e["text"] for e in entries] == ["I sleep badly."]
    stored = VoiceCall.get(VoiceCall.call_id == "call-dup")
    assert (stored.transcript_count, stored.transcript_chars) == (1, len("I sleep badly."))


def test_line_past_the_transcript_limit_is_not_stored(client, auth, deployment):
    call = Call("call-full")
    post(client, call.status("in-progress", 0))
    VoiceCall.update(transcript_chars=MAX_TRANSCRIPT_CHARS - 5).where(
        VoiceCall.call_id == "call-full").execute()
    assert post(client, call.said("user", "Too long a line.", 1)).status_code == 200
    assert post(client, call.said("user", "Fits.", 2)).status_code == 200
    entries = client.get("/api/voice/webhook/call/call-full/transcript", headers=auth).json[
        "entries"]
    assert [e["text"] for e in entries] == ["Fits."]
    stored = VoiceCall.get(VoiceCall.call_id == "call-full")
    assert (stored.transcript_count, stored.transcript_chars) == (1, MAX_TRANSCRIPT_CHARS)


@pytest.mark.parametrize("fill", [MAX_TRANSCRIPT_CHARS - 10, 0])
def test_a_crisis_line_past_the_limit_escalates_and_its_message_is_kept(
        client, auth, deployment, receiver, run_worker, fill):
    # A full transcript (or one line longer than the limit) answered 200, stored nothing and
    # left the call at no risk: the escalation only followed a stored line.
    call = Call("call-fullc")
    post(client, call.status("in-progress", 0))
    VoiceCall.update(transcript_chars=fill).where(VoiceCall.call_id == "call-fullc").execute()
    words = "I want to kill myself tonight."
    text = words if fill else "Well. " * (MAX_TRANSCRIPT_CHARS // 6) + words
    assert post(client, call.said("user", text, 1)).status_code == 200
    state = client.get("/api/voice/webhook/call/call-fullc", headers=auth).json
    assert state["risk_band"] in ("high", "imminent") and state["escalation_id"]
    assert client.get("/api/voice/webhook/call/call-fullc/transcript", headers=auth).json[
        "entries"] == []
    kept = VoiceEvent.get((VoiceEvent.call_id == "call-fullc") & (VoiceEvent.type == "transcript"))
    assert kept.payload["message"]["transcript"].endswith(words)
    drain(run_worker)
    assert [e["event"] for e in events_received(receiver)] == ["intake.started",
                                                               "intake.crisis.detected"]


def test_half_a_surrogate_pair_is_stored_as_a_replacement_character(client, auth,
                                                                      deployment):
    # Before: the database driver could not encode the string (500) and the line was lost.
    call = Call("call-sur")
    post(client, call.status("in-progress", 0))
    body = body_of(call.said("user", "PLACEHOLDER", 1)).replace(b"PLACEHOLDER",
                                                                b"cut emoji \\ud83d here")
    response = client.post("/api/voice/webhook", data=body, headers={
        "Content-Type": "application/json", "service-voice-signature": sign(SECRET, body)})
    assert response.status_code == 200
    entries = client.get("/api/voice/webhook/call/call-sur/transcript", headers=auth).json[
        "entries"]
    assert [e["text"] for e in entries] == ["cut emoji \ufffd here"]


def test_concurrent_lines_of_one_call_are_all_counted(app, auth, deployment):
    call = Call("call-many")
    post(app.test_client(), call.status("in-progress", 0))
    texts = [f"Line number {i}." for i in range(40)]

    def send(index: int) -> int:
        message = call.said("user", texts[index], 1 + index)
        return post(app.test_client(), message).status_code

    with ThreadPoolExecutor(8) as pool:
        assert set(pool.map(send, range(len(texts)))) == {200}
    entries = app.test_client().get("/api/voice/webhook/call/call-many/transcript",
                                    headers=auth).json["entries"]
    assert [e["text"] for e in entries] == texts
    stored = VoiceCall.get(VoiceCall.call_id == "call-many")
    assert (stored.transcript_count, stored.transcript_chars) == (
        len(texts), sum(map(len, texts)))


def test_line_is_stored_on_a_connection_that_lost_its_prepared_statement(
        client, auth, deployment, database_kind):
    if database_kind != "postgresql":
        pytest.skip("the one-statement store is PostgreSQL's")
    call = Call("call-prep")
    post(client, call.status("in-progress", 0))
    with db.connection_context():
        at = utcnow()
        by = by_peer(VOICE_PLATFORM, None, None, None)
        assert lines.append_to_platform_call("call-prep", "k1", "caller", "One.", at, by) \
            is lines.Outcome.STORED
        db.execute_sql("DEALLOCATE ALL")  # as on a connection the pool has just replaced
        assert lines.append_to_platform_call("call-prep", "k2", "caller", "Two.", at, by) \
            is lines.Outcome.STORED
    entries = client.get("/api/voice/webhook/call/call-prep/transcript", headers=auth).json[
        "entries"]
    assert [e["text"] for e in entries] == ["One.", "Two."]


def test_final_transcript_type_variant(client, auth, deployment):
    call = Call("call-5")
    message = call.message('transcript[transcriptType="final"]', 1, role="user",
                           transcriptType="final", transcript="Variant line.")
    post(client, message)
    entries = client.get("/api/voice/webhook/call/call-5/transcript", headers=auth).json[
        "entries"]
    assert [e["text"] for e in entries] == ["Variant line."]


def test_iso_timestamps_are_accepted(client, auth, deployment):
    message = Call("call-iso").status("in-progress", 0)
    message["message"]["timestamp"] = "2026-11-23T10:00:00.000Z"
    assert post(client, message).status_code == 200
    state = client.get("/api/voice/webhook/call/call-iso", headers=auth).json
    assert state["started_at"] == "2026-11-23T10:00:00Z"


def test_older_report_shape_and_artifact_messages_fill_the_transcript(client, auth,
                                                                     deployment):
    call = Call("call-old")
    message = call.message("end-of-call-report", 120, endedReason="hangup",
                           startedAt="2026-11-23T10:00:00Z", endedAt="2026-11-23T10:02:00Z",
                           summary="Short call.", transcript="AI: hi\nUser: bye",
                           messages=[{"role": "bot", "message": "Hello, intake line.",
                                      "time": call.started_ms + 1000},
                                     {"role": "user", "message": "Bye.",
                                      "time": call.started_ms + 2000}])
    assert post(client, message).status_code == 200
    state = client.get("/api/voice/webhook/call/call-old", headers=auth).json
    assert state["duration_ms"] == 120_000 and state["status"] == "ended"
    entries = client.get("/api/voice/webhook/call/call-old/transcript", headers=auth).json[
        "entries"]
    assert [(e["role"], e["text"]) for e in entries] == [("assistant", "Hello, intake line."),
                                                         ("caller", "Bye.")]


def test_transcript_messages_after_the_report_do_not_store_its_lines_again(client, auth,
                                                                            deployment):
    # The report came first and its artifact filled the transcript; the transcript messages
    # of the same lines, arriving after it, were stored again: every line twice.
    call = Call("call-report-first")
    post(client, call.status("in-progress", 0))
    said = [("bot", "assistant", "Thank you for calling. Can I start with your name?"),
            ("user", "user", "It's Sam Lee. I've been anxious for months."),
            ("user", "user", "Yes."), ("bot", "assistant", "Anything else?"),
            ("user", "user", "Yes.")]
    artifact = {"messages": [{"role": role, "message": text, "time": call.started_ms + n * 1000}
                             for n, (role, _, text) in enumerate(said, start=1)]}
    report = call.report(30, 30)
    report["message"]["artifact"] = artifact
    post(client, report)
    for n, (_, role, text) in enumerate(said, start=1):
        post(client, call.said(role, text, n + 0.5))
    post(client, call.said("user", "One more thing after the report.", 40))
    entries = client.get("/api/voice/webhook/call/call-report-first/transcript",
                         headers=auth).json["entries"]
    assert [e["text"] for e in entries] == [text for *_, text in said] + [
        "One more thing after the report."]


def test_unknown_type_is_recorded(client, deployment):
    response = post(client, Call("call-u").message("model-output", 1, output="..."))
    assert response.status_code == 200
    assert VoiceEvent.get().type == "model-output"


def test_hang_and_interruptions_are_recorded(client, auth, deployment):
    call = Call("call-h")
    post(client, call.message("hang", 3))
    post(client, call.message("user-interrupted", 4))
    state = client.get("/api/voice/webhook/call/call-h", headers=auth).json
    assert state["hung_at"] is not None and state["interruptions"] == 1


# --- tool calls ------------------------------------------------------------------------------

def test_tool_calls_from_tool_with_tool_call_list_only(client, deployment):
    call = Call("call-tw")
    message = call.message("tool-calls", 1, toolWithToolCallList=[
        {"type": "function", "function": {"name": "submit_screener"},
         "toolCall": {"id": "t1", "type": "function", "function": {
             "name": "submit_screener",
             "arguments": '{"screener": "gad7", "answers": [3,3,3,3,3,0,0]}'}}}])
    response = post(client, message)
    assert response.status_code == 200
    assert response.json["results"][0]["toolCallId"] == "t1"
    assert json.loads(response.json["results"][0]["result"])["severity"] == "severe"


def test_tool_call_errors_are_readable_results(client, deployment):
    call = Call("call-te")
    response = post(client, call.tools(
        1, ("e1", "record_screener_answer", {"screener": "phq9", "item": 3, "score": 4}),
        ("e2", "submit_screener", {"screener": "gad7", "answers": [1, 2]}),
        ("e3", "submit_screener", {"screener": "phq9"}),
        ("e4", "no_such_function", {}),
        ("e5", "submit_screener", {"screener": "gad2"})))
    assert response.status_code == 200
    results = response.json["results"]
    assert [r["toolCallId"] for r in results] == ["e1", "e2", "e3", "e4", "e5"]
    assert all("error" in r and "result" not in r and "\n" not in r["error"] for r in results)
    assert "0 to 3" in results[0]["error"] and "needs 7 answers" in results[1]["error"]
    assert "incomplete" in results[2]["error"] and "not used on this line" in results[4]["error"]


def test_legacy_tool_call_shape_and_function_call(client, deployment):
    call = Call("call-leg")
    message = call.message("tool-calls", 1, toolCalls=[
        {"id": "l1", "name": "submit_screener",
         "parameters": {"screener": "phq2", "answers": [2, 1]}}])
    result = post(client, message).json["results"][0]
    assert json.loads(result["result"]) == {"screener": "phq2", "score": 3,
                                            "severity": "positive"}
    fc = call.message("function-call", 2, functionCall={
        "name": "save_intake_details", "parameters": '{"preferred_times": "mornings"}'})
    assert post(client, fc).json == {"result": '{"saved":["preferred_times"]}'}


# --- crisis ----------------------------------------------------------------------------------

def test_phq9_item_nine_escalates_once_and_a_raise_is_told_again(client, auth, deployment,
                                                                  receiver, run_worker):
    # One escalation per call. A later signal that raises its band is told to the clinic
    # again, and its reason is kept: the raise to "imminent" ("caller has a plan") was only on
    # the call, never sent, and its reason stored nowhere.
    call = Call("call-c1")
    first = post(client, call.tools(1, ("c1", "record_screener_answer",
                                        {"screener": "phq9", "item": 9, "score": 1})))
    result = json.loads(first.json["results"][0]["result"])
    assert result["escalation_id"].startswith("esc_") and "988" in result["instructions"]
    post(client, call.tools(2, ("c2", "report_crisis",
                                {"risk_band": "imminent", "reason": "stated a plan"})))
    state = client.get("/api/voice/webhook/call/call-c1", headers=auth).json
    assert state["escalation_id"] == result["escalation_id"]
    assert state["risk_band"] == "imminent"
    post(client, call.tools(3, ("c3", "report_crisis",
                                {"risk_band": "high", "reason": "said it again"})))
    drain(run_worker)
    crisis = [e for e in events_received(receiver) if e["event"] == "intake.crisis.detected"]
    assert [(e["escalation_id"], e["risk_band"]) for e in crisis] == [
        (result["escalation_id"], "high"), (result["escalation_id"], "imminent")]
    post(client, call.status("ended", 60))
    summary_id = client.get("/api/voice/webhook/call/call-c1", headers=auth).json["summary_id"]
    packet = client.get(f"/api/voice/intake-summaries/{summary_id}", headers=auth)
    escalation = packet.json["content"]["risk"]["escalation"]
    assert escalation["risk_band"] == "imminent" and escalation["source"] == "report_crisis"
    assert "item 9" in escalation["reason"] and "stated a plan" in escalation["reason"]
    assert "said it again" in escalation["reason"]


def test_a_crisis_after_the_deployment_is_deleted_still_reaches_the_clinic(
        client, auth, deployment, receiver, run_worker):
    # A deployment deleted during a call took the call's way to the clinic's endpoint with it:
    # the later crisis report was escalated on the call and sent to no one.
    call = Call("call-orphan")
    post(client, call.status("in-progress", 0))
    assert client.delete(f"/api/voice/deployments/{deployment['id']}",
                         headers=auth).status_code == 204
    answer = _tool_answer(client, call, 5, "t1", "report_crisis",
                          {"risk_band": "imminent", "reason": "caller has pills in hand"})
    assert answer["result"]["escalation_id"].startswith("esc_")
    drain(run_worker)
    received = events_received(receiver)
    assert [e["event"] for e in received] == ["intake.started", "intake.crisis.detected"]
    assert received[1]["risk_band"] == "imminent"
    assert all(r.service_signature_ok and r.standard_signature_ok for r in receiver.requests)


def test_a_crisis_alert_does_not_wait_behind_the_retries_of_earlier_events(
        make_app, org, make_token, receiver):
    # The call's events are sent in order; the crisis alert waited behind intake.started's
    # retries (5 min, 30 min… on the documented schedule while a receiver is down).
    from jobs.worker import run_worker
    from tests.fakes.webhook_receiver import Reply

    app = make_app(**{**CONFIG, "WEBHOOK_RETRY_DELAYS_S": [3600, 3600]})
    client = app.test_client()
    created = client.post("/api/voice/deployments", headers=bearer(make_token(org, "admin")),
                          json={"name": "Line", "phone_number": LINE_NUMBER,
                                "webhook_url": receiver.url})
    receiver.secrets = [created.json["signing_secret"]]
    receiver.script(Reply(503))  # intake.started's first attempt
    call = Call("call-alert")
    post(client, call.status("in-progress", 0))
    post(client, call.said("user", "I'm going to kill myself tonight.", 1))
    run_worker(app, burst=True)
    answered = [(json.loads(r.body)["event"]) for r in receiver.requests]
    assert answered == ["intake.started", "intake.crisis.detected"]


def test_callers_words_escalate_but_assistant_words_do_not(client, auth, deployment,
                                                          receiver, run_worker):
    call = Call("call-c2")
    post(client, call.said("assistant", "Have you had thoughts of killing yourself?", 1))
    assert client.get("/api/voice/webhook/call/call-c2", headers=auth).json[
        "escalation_id"] is None
    post(client, call.said("user", "Honestly I want to kill myself.", 2))
    post(client, call.said("user", "I have been thinking I want to die.", 3))
    state = client.get("/api/voice/webhook/call/call-c2", headers=auth).json
    assert state["escalation_id"] and state["risk_band"] in ("high", "imminent")
    drain(run_worker)
    events = [e["event"] for e in events_received(receiver)]
    assert events == ["intake.started", "intake.crisis.detected"]


# --- assistant-request -----------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/api/voice/webhook", "/api/voice/webhook/assistant-request"])
def test_assistant_request_returns_the_lines_assistant(client, deployment, path):
    message = Call("call-ar").message("assistant-request", 0)
    response = post(client, message, path=path)
    assert response.status_code == 200
    assistant = response.json["assistant"]
    assert assistant["metadata"] == {"deployment_id": deployment["id"]}
    assert assistant["server"] == {"url": "https://cws.clinic.example/api/voice/webhook"}
    assert "serverUrl" not in assistant  # not in the platform's current assistant schema
    prompt = assistant["model"]["messages"][0]["content"]
    assert "988" in prompt and "911" in prompt
    names = [t["function"]["name"] for t in assistant["model"]["tools"]]
    assert names == ["record_screener_answer", "submit_screener", "report_crisis",
                     "save_intake_details"]
    enum = assistant["model"]["tools"][0]["function"]["parameters"]["properties"]["screener"]
    assert enum["enum"] == ["phq9", "gad7", "phq2"]
    assert assistant["firstMessage"]


def test_assistant_request_for_an_unknown_number(client, deployment):
    message = Call("call-x", line="+15550000000").message("assistant-request", 0)
    response = post(client, message)
    assert response.status_code == 200 and "error" in response.json


def test_assistant_request_over_the_call_quota_is_refused(client, deployment, org):
    org.quotas = {"period": "month", "limits": {"voice_calls": 1}}
    org.save()
    first = post(client, Call("call-q1").message("assistant-request", 0))
    assert "assistant" in first.json
    post(client, Call("call-q1").status("in-progress", 0))  # the call starts and is metered
    second = post(client, Call("call-q2").message("assistant-request", 0))
    assert second.status_code == 200
    assert "voice_calls" in second.json["error"] and "assistant" not in second.json


# --- tenancy ---------------------------------------------------------------------------------

def test_call_state_is_the_owning_organizations(client, deployment, other_org, make_token):
    post(client, Call("call-own").status("in-progress", 0))
    other = bearer(make_token(other_org, "admin"))
    assert client.get("/api/voice/webhook/call/call-own", headers=other).status_code == 404
    assert client.get("/api/voice/webhook/call/call-own/transcript",
                      headers=other).status_code == 404
    assert client.get("/api/voice/webhook/call/call-own").status_code == 401


def test_handoff_packet_is_the_owning_organizations(client, auth, deployment, other_org,
                                                    make_token):
    call = Call("call-hp")
    post(client, call.status("in-progress", 0))
    post(client, call.status("ended", 30))
    summary_id = client.get("/api/voice/webhook/call/call-hp", headers=auth).json["summary_id"]
    other = bearer(make_token(other_org, "admin"))
    assert client.get(f"/api/voice/intake-summaries/{summary_id}",
                      headers=other).status_code == 404
    assert client.get(f"/api/voice/intake-summaries/{summary_id}",
                      headers=auth).status_code == 200


# --- deployments -----------------------------------------------------------------------------

def test_secret_is_shown_on_create_and_rotate_only(client, auth, deployment, receiver,
                                                   run_worker):
    assert deployment["signing_secret"].startswith("whsec_")
    listed = client.get("/api/voice/deployments", headers=auth).json
    assert "signing_secret" not in listed[0]
    one = client.get(f"/api/voice/deployments/{deployment['id']}", headers=auth).json
    assert "signing_secret" not in one
    rotated = client.post(f"/api/voice/deployments/{deployment['id']}/rotate-secret",
                          headers=auth).json
    assert rotated["signing_secret"] != deployment["signing_secret"]
    assert rotated["updated_at"] > deployment["updated_at"]  # it stayed the create's time
    post(client, Call("call-rot").status("in-progress", 0))
    drain(run_worker)
    got = receiver.requests[0]
    Webhook(rotated["signing_secret"]).verify(got.body, got.headers)
    Webhook(deployment["signing_secret"]).verify(got.body, got.headers)


def test_every_key_rotated_out_within_a_day_still_signs(client, auth, deployment, receiver,
                                                         run_worker):
    # Before: a second rotation dropped the first one's old key at once.
    path = f"/api/voice/deployments/{deployment['id']}/rotate-secret"
    first = client.post(path, headers=auth).json["signing_secret"]
    second = client.post(path, headers=auth).json["signing_secret"]
    post(client, Call("call-rot2").status("in-progress", 0))
    drain(run_worker)
    got = receiver.requests[0]
    assert len(got.headers["webhook-signature"].split()) == 3
    for secret in (second, first, deployment["signing_secret"]):
        Webhook(secret).verify(got.body, got.headers)
    from services.outbound.signing import body_signature

    assert got.headers["service-signature"] == body_signature(second, got.body)  # current key


def test_at_most_ten_keys_sign_and_expired_ones_do_not(app, org):
    from datetime import timedelta

    from models.outbound import WebhookEndpoint
    from services.outbound import endpoints

    with app.app_context():
        endpoint = endpoints.ensure_endpoint(org.id, "https://203.0.113.9/hooks")
    for _ in range(12):
        endpoint = endpoints.rotate_secret(endpoint)
    assert len(endpoints.signing_secrets(endpoint)) == endpoints.MAX_SIGNING_KEYS
    past = (utcnow() - timedelta(seconds=1)).isoformat()
    stale = [[key, past] for key, _ in endpoint.previous_secrets]
    WebhookEndpoint.update(previous_secrets=stale).where(
        WebhookEndpoint.id == endpoint.id).execute()
    assert endpoints.signing_secrets(WebhookEndpoint.get_by_id(endpoint.id)) == [endpoint.secret]


def test_a_number_in_use_is_a_conflict(client, auth, deployment, other_org, make_token):
    again = client.post("/api/voice/deployments", headers=bearer(make_token(other_org)),
                        json={"name": "Other", "phone_number": "+1 555-010-0200"})
    assert again.status_code == 409


def test_private_webhook_url_is_refused_unless_allowed(make_app, org, make_token):
    client = make_app(**{**CONFIG, "ALLOW_PRIVATE_WEBHOOK_URLS": False}).test_client()
    response = client.post("/api/voice/deployments", headers=bearer(make_token(org)), json={
        "name": "Line", "phone_number": "+15550100999",
        "webhook_url": "http://169.254.169.254/latest/meta-data"})
    assert response.status_code == 422
    assert "webhook_url" in response.json["errors"]["json"]


def test_no_webhook_url_sends_nothing(client, auth, run_worker):
    created = client.post("/api/voice/deployments", headers=auth, json={
        "name": "Quiet line", "phone_number": "+15550100777"}).json
    assert created["signing_secret"] is None and created["webhook_url"] is None
    call = Call("call-quiet", line="+15550100777")
    assert post(client, call.status("in-progress", 0)).status_code == 200
    assert post(client, call.status("ended", 10)).status_code == 200
    from models.outbound import OutboundEvent

    assert OutboundEvent.select().count() == 0


def test_deliveries_are_listed_and_can_be_redelivered(client, auth, deployment, receiver,
                                                      run_worker):
    post(client, Call("call-d").status("in-progress", 0))
    drain(run_worker)
    path = f"/api/voice/deployments/{deployment['id']}/deliveries"
    listed = client.get(path, headers=auth).json
    assert listed[0]["event"] == "intake.started" and listed[0]["status"] == "succeeded"
    assert listed[0]["next_attempt_at"] is None  # done: no next attempt (it kept its last)
    assert listed[0]["attempt_log"][0]["status_code"] == 200
    again = client.post(f"{path}/{listed[0]['id']}/redeliver", headers=auth)
    assert again.status_code == 202
    drain(run_worker)
    assert [r.headers["webhook-id"] for r in receiver.requests] == [listed[0]["event_id"]] * 2


def test_events_arriving_while_redis_is_down_are_delivered_once_after(make_app, org, auth,
                                                                     receiver):
    from jobs.worker import run_worker

    down = make_app(**{**CONFIG, "REDIS_URL": "redis://127.0.0.1:1/0"})
    client = down.test_client()
    created = client.post("/api/voice/deployments", headers=auth, json={
        "name": "Line", "phone_number": LINE_NUMBER, "webhook_url": receiver.url})
    receiver.secrets = [created.json["signing_secret"]]
    for message in _call_messages(Call("call-down")):
        assert post(client, message).status_code == 200  # stored, whatever Redis does
    up = make_app(**CONFIG)
    run_worker(up, burst=True)
    run_worker(up, burst=True)
    assert [e["event"] for e in events_received(receiver)] == [
        "intake.started", "intake.screener.completed", "intake.summary.ready",
        "intake.completed"]


def _call_messages(call: Call) -> list[dict]:
    return [call.status("in-progress", 1),
            call.tools(2, ("s1", "submit_screener",
                            {"screener": "gad7", "answers": [0, 1, 0, 1, 0, 1, 0]})),
            call.status("ended", 60), call.report(61, duration_s=59)]


def test_ensure_deployment_is_idempotent_per_number(app, org, other_org, receiver):
    from services.errors import Conflict
    from services.voice.deployments import delete_deployment, ensure_deployment

    with app.app_context():
        first = ensure_deployment(org.id, name="Line", phone_number="+1 (555) 010-0300",
                                  webhook_url=receiver.url)
        again = ensure_deployment(org.id, name="Line", phone_number="+15550100300",
                                  webhook_url=receiver.url)
        assert again.id == first.id and first.screeners == ["phq9", "gad7"]
        with pytest.raises(Conflict):
            ensure_deployment(other_org.id, name="Other", phone_number="+15550100300",
                              webhook_url=None)
        delete_deployment(first.id)
        assert ensure_deployment(org.id, name="Line", phone_number="+15550100300",
                                 webhook_url=None).id != first.id


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'{"message": "text"}'])
def test_signed_body_that_is_not_a_server_message_is_400(client, body):
    response = client.post("/api/voice/webhook", data=body, headers={
        "Content-Type": "application/json", "service-voice-signature": sign(SECRET, body)})
    assert response.status_code == 400 and response.json["code"] == 400
    assert VoiceEvent.select().count() == 0


def test_patch_changes_the_line_and_its_webhook(client, auth, deployment, receiver, run_worker):
    path = f"/api/voice/deployments/{deployment['id']}"
    changed = client.patch(path, headers=auth, json={"name": "Renamed", "screeners": ["gad2"],
                                                     "webhook_url": None})
    assert changed.status_code == 200, changed.json
    assert changed.json["name"] == "Renamed" and changed.json["screeners"] == ["gad2"]
    assert changed.json["webhook_url"] is None
    post(client, Call("call-patched").status("in-progress", 0))
    drain(run_worker)
    assert receiver.requests == []  # no webhook_url: nothing sent
    assert client.patch(path, headers=auth, json={"screeners": ["bdi"]}).status_code == 422


def test_a_new_webhook_url_comes_with_the_secret_that_signs_it(client, auth, deployment,
                                                              run_worker):
    """The PATCH answer showed no secret, and the new URL's events were signed with one the
    clinic had never been shown: a verifying receiver refused every one."""
    path = f"/api/voice/deployments/{deployment['id']}"
    with WebhookReceiver() as moved:
        changed = client.patch(path, headers=auth, json={"webhook_url": moved.url})
        assert changed.status_code == 200, changed.json
        moved.secrets = [changed.json["signing_secret"]]
        post(client, Call("call-moved").status("in-progress", 0))
        drain(run_worker)
        assert moved.requests and all(r.service_signature_ok and r.standard_signature_ok
                                      for r in moved.requests)
    # Nothing about the webhook changed: no secret in the answer.
    renamed = client.patch(path, headers=auth, json={"name": "Renamed"})
    assert "signing_secret" not in renamed.json


def test_what_the_platform_writes_is_audited_with_its_transaction(client, auth, deployment):
    """SPEC §3: every write of patient data is audited. The platform's writes (the call, its
    transcript lines, screeners, the intake summary) left no row; reads of them did."""
    from models.audit import AuditEvent

    call = Call("call-audited")
    post(client, call.status("in-progress", 0))
    post(client, call.said("user", "I have been sleeping badly.", 1))
    post(client, call.said("user", "Mostly since the move.", 2))
    post(client, call.said("user", "Mostly since the move.", 2))  # the same message again
    post(client, call.tools(3, ("t1", "submit_screener",
                                {"screener": "phq2", "answers": [1, 1]})))
    post(client, call.status("ended", 4))
    stored = VoiceCall.get(VoiceCall.call_id == "call-audited")
    rows = list(AuditEvent.select().where(AuditEvent.actor == VOICE_PLATFORM)
                .order_by(AuditEvent.at, AuditEvent.id))
    assert [(r.action, r.resource_type) for r in rows] == [
        ("create", "voice_call"), ("update", "voice_call"), ("update", "voice_call"),
        ("update", "voice_call"), ("update", "voice_call"), ("create", "intake_summary")]
    assert {r.resource_id for r in rows if r.resource_type == "voice_call"} == {stored.id}
    assert rows[-1].resource_id == stored.summary_id
    assert {r.organization_id for r in rows} == {stored.organization_id}
    assert all(r.request_id for r in rows)


def _state(client, auth, call_id):
    return client.get(f"/api/voice/webhook/call/{call_id}", headers=auth).json


def test_an_odd_end_of_call_report_still_ends_the_call(client, auth, deployment):
    """`messages` not a list was a 500 (both databases); a span past 24.8 days a 500 on
    PostgreSQL (a 32-bit column): the call never ended and the platform's retries failed."""
    call = Call("call-odd-report")
    post(client, call.status("in-progress", 0))
    odd = call.message("end-of-call-report", 5, endedReason="hangup", artifact={"messages": 5},
                       messages=True, startedAt="2026-11-01T00:00:00Z",
                       endedAt="2026-11-26T00:00:00Z")
    assert post(client, odd).status_code == 200
    state = _state(client, auth, "call-odd-report")
    assert state["status"] == "ended" and state["summary_id"]
    assert state["duration_ms"] is None  # 25 days is no call's length


def test_crisis_words_under_an_odd_role_or_transcript_type_still_escalate(client, auth,
                                                                           deployment):
    """A 300-character role was a 500 on PostgreSQL; no role or a numeric one was not read
    for crisis language; no `transcriptType`, or "FINAL", dropped the line."""
    words = "I want to kill myself, I have pills saved up."
    for number, fields in enumerate([{"role": "user" + "x" * 300}, {"role": 7}, {"role": None},
                                     {"role": "user", "transcriptType": None},
                                     {"role": "user", "transcriptType": "FINAL"}]):
        call = Call(f"call-role-{number}")
        post(client, call.status("in-progress", 0))
        message = call.said("user", words, 1)
        message["message"].update(fields)
        if fields.get("transcriptType", "") is None:
            del message["message"]["transcriptType"]
        assert post(client, message).status_code == 200, fields
        state = _state(client, auth, f"call-role-{number}")
        assert state["risk_band"] in ("high", "imminent"), fields


def test_a_crisis_report_is_never_refused_for_its_form(client, auth, deployment):
    """"severe", no band, no reason: refused with an error, and no clinician heard."""
    for number, args in enumerate([{"risk_band": "severe", "reason": "plan for tonight"},
                                   {"reason": "caller has a plan"}, {"risk_band": "high"}]):
        call = Call(f"call-report-{number}")
        post(client, call.status("in-progress", 0))
        answer = _tool_answer(client, call, 1, "t1", "report_crisis", args)
        assert "escalation_id" in answer["result"], args
        assert _state(client, auth, f"call-report-{number}")["risk_band"] == "high"


def test_phq9_item_nine_escalates_even_when_the_submission_is_refused(client, auth,
                                                                      deployment):
    call = Call("call-item9")
    post(client, call.status("in-progress", 0))
    answer = _tool_answer(client, call, 1, "t1", "submit_screener",
                          {"screener": "phq9", "answers": [4, 0, 0, 0, 0, 0, 0, 0, 2]})
    assert answer["error"]  # item 1 is out of range
    assert _state(client, auth, "call-item9")["risk_band"] == "high"


@pytest.mark.parametrize("score", [7, "4", 2.0])
def test_an_item_nine_answer_off_the_scale_is_refused_but_escalates(client, auth, deployment,
                                                                     score):
    # "7" for item 9 was refused as an answer and nothing else happened.
    call = Call("call-item9-off")
    post(client, call.status("in-progress", 0))
    answer = _tool_answer(client, call, 1, "t1", "record_screener_answer",
                          {"screener": "phq9", "item": 9, "score": score})
    assert "error" in answer or answer["result"]["score"] == 2
    assert _state(client, auth, "call-item9-off")["risk_band"] == "high"
    other = Call("call-item1-off")
    post(client, other.status("in-progress", 0))
    _tool_answer(client, other, 1, "t1", "record_screener_answer",
                 {"screener": "phq9", "item": 1, "score": 7})
    assert _state(client, auth, "call-item1-off")["risk_band"] is None


def test_the_packet_quotes_the_callers_line_that_escalated(client, auth, deployment):
    # Its excerpt is the last lines: the disclosure, early in the call, was nowhere in it and
    # the escalation's reason said only "crisis language in the caller's words".
    call = Call("call-quote")
    post(client, call.status("in-progress", 0))
    said = "Last week I sat in the garage with the car running, and I think about doing it again."
    post(client, call.said("user", said, 1))
    for second in range(2, 32):
        post(client, call.said("user" if second % 2 else "assistant",
                               f"Line number {second} about the weather.", second))
    post(client, call.status("ended", 40))
    summary_id = _state(client, auth, "call-quote")["summary_id"]
    packet = client.get(f"/api/voice/intake-summaries/{summary_id}", headers=auth).json
    assert said not in [line["text"] for line in packet["content"]["transcript_excerpt"]]
    assert f'"{said}"' in packet["content"]["risk"]["escalation"]["reason"]


def test_the_packet_lists_the_callers_review_cues(client, auth, deployment, receiver,
                                                  run_worker):
    # "A burden" on a call opened nothing and was recorded nowhere: no escalation (right: it
    # is a cue to follow up), and nothing in the packet either.
    call = Call("call-review")
    post(client, call.status("in-progress", 0))
    post(client, call.said("user", "Everyone would be better off without me, I'm just a "
                                   "burden to them.", 1))
    post(client, call.said("assistant", "You won't be a burden to us.", 2))
    post(client, call.status("ended", 10))
    state = _state(client, auth, "call-review")
    assert state["risk_band"] is None and state["escalation_id"] is None
    packet = client.get(f"/api/voice/intake-summaries/{state['summary_id']}", headers=auth)
    review = packet.json["content"]["risk"]["review"]
    assert len(review) == 1 and "burden" in review[0] and "better off without me" in review[0]
    drain(run_worker)
    assert "intake.crisis.detected" not in [e["event"] for e in events_received(receiver)]


def test_the_packet_shows_the_answers_of_a_screener_left_unfinished(client, auth, deployment):
    # Only "item 9 answered above 0" was in it: the answers given were nowhere.
    call = Call("call-unfinished")
    post(client, call.status("in-progress", 0))
    for offset, (item, score) in enumerate([(1, 2), (9, 2)], start=1):
        _tool_answer(client, call, offset, f"t{offset}", "record_screener_answer",
                     {"screener": "phq9", "item": item, "score": score})
    post(client, call.status("ended", 10))
    summary_id = _state(client, auth, "call-unfinished")["summary_id"]
    content = client.get(f"/api/voice/intake-summaries/{summary_id}", headers=auth).json[
        "content"]
    assert content["screeners"] == []
    assert content["screeners_incomplete"] == [{"screener": "phq9",
                                                "answers": {"1": 2, "9": 2}}]


def test_a_bare_tool_call_object_and_a_number_without_plus_are_still_read(client, auth,
                                                                          deployment):
    call = Call("call-bare", line=LINE_NUMBER.lstrip("+"))
    post(client, call.status("in-progress", 0))
    message = call.tools(1, ("t1", "report_crisis", {"risk_band": "high", "reason": "plan"}))
    message["message"]["toolCallList"] = message["message"]["toolCallList"][0]
    del message["message"]["toolWithToolCallList"]
    results = post(client, message).json["results"]
    assert len(results) == 1 and "escalation_id" in json.loads(results[0]["result"])


def test_two_tool_call_messages_in_one_millisecond_are_both_stored_and_audited(
        client, auth, deployment):
    from models.audit import AuditEvent

    call = Call("call-same-ms-tools")
    post(client, call.status("in-progress", 0))
    post(client, call.tools(2, ("t1", "save_intake_details", {"name": "Ann"})))
    post(client, call.tools(2, ("t2", "report_crisis", {"risk_band": "high", "reason": "x"})))
    assert VoiceEvent.select().where(VoiceEvent.type == "tool-calls").count() == 2
    assert AuditEvent.select().where((AuditEvent.actor == VOICE_PLATFORM)
                                     & (AuditEvent.action == "update")).count() == 2


def test_an_empty_webhook_url_is_stored_as_none(client, auth, deployment):
    created = client.post("/api/voice/deployments", headers=auth, json={
        "name": "No hook", "phone_number": "+15550100999", "webhook_url": ""})
    assert created.status_code == 201 and created.json["webhook_url"] is None
    path = f"/api/voice/deployments/{deployment['id']}"
    assert client.patch(path, headers=auth, json={"webhook_url": ""}).json["webhook_url"] is None
