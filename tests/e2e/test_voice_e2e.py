"""A whole intake call against the real gunicorn and worker processes: the platform's signed
messages in, the clinic's receiver gets every event once, signed, in order — including one
retried on the real schedule after a 500."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest
import requests
from standardwebhooks import Webhook

from tests.e2e.service import Client, Service
from tests.fakes.voice_platform import Call, body_of, sign
from tests.fakes.webhook_receiver import Reply, WebhookReceiver

SECRET = "e2e-voice-platform-secret"
LINE = "+15550142000"
DELIVERY_TIMEOUT_S = 60


@pytest.fixture(scope="module")
def receiver() -> Iterator[WebhookReceiver]:
    with WebhookReceiver() as fake:
        yield fake


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory, receiver) -> Iterator[Service]:
    # Its own queue names: on PostgreSQL runs every e2e service shares one Redis database, and
    # another service's worker must not take this one's jobs.
    running = Service(tmp_path_factory.mktemp("voice-e2e"), extra_env={
        "VOICE_WEBHOOK_SECRET": SECRET, "ALLOW_PRIVATE_WEBHOOK_URLS": "true",
        "QUEUE_PREFIX": "voice-e2e-"}).start()
    try:
        yield running
    finally:
        running.stop()


def _post(service: Service, message: dict) -> requests.Response:
    body = body_of(message)
    stamp = str(int(time.time()))
    return requests.post(f"{service.base}/api/voice/webhook", data=body, timeout=30, headers={
        "Content-Type": "application/json", "service-voice-timestamp": stamp,
        "service-voice-signature": sign(SECRET, body, stamp)})


def _wait_for_events(receiver: WebhookReceiver, count: int) -> list[dict]:
    end = time.monotonic() + DELIVERY_TIMEOUT_S
    while time.monotonic() < end:
        delivered = [r for r in receiver.requests]
        if len({r.headers["webhook-id"] for r in delivered}) >= count:
            return [json.loads(r.body) for r in delivered]
        time.sleep(0.2)
    raise AssertionError(f"only {len(receiver.requests)} deliveries arrived")


def test_whole_intake_call(service: Service, clinic: Client, receiver: WebhookReceiver):
    created = clinic.call("POST", "/api/voice/deployments", {
        "name": "Harbor intake", "phone_number": LINE, "webhook_url": receiver.url})
    assert created.status_code == 201, created.text
    receiver.secrets = [created.json()["signing_secret"]]
    receiver.script(Reply(500))  # the first delivery fails once, then the 5 s retry succeeds

    call = Call("e2e-call-1", line=LINE)
    assistant = _post(service, call.message("assistant-request", 0))
    assert assistant.json()["assistant"]["metadata"]["deployment_id"] == created.json()["id"]
    answers = [_post(service, m) for m in [
        call.status("in-progress", 1),
        call.said("assistant", "Thanks for calling. What's your name?", 2),
        call.said("user", "Sam Ortiz.", 3),
        call.tools(4, ("t1", "save_intake_details", {"name": "Sam Ortiz"})),
        call.tools(5, ("t2", "submit_screener",
                       {"screener": "gad7", "answers": [2, 2, 2, 1, 1, 1, 1]})),
        call.tools(5, ("t2", "submit_screener",
                       {"screener": "gad7", "answers": [2, 2, 2, 1, 1, 1, 1]})),  # repeated
        call.status("ended", 181, endedReason="customer-ended-call"),
        call.report(182, duration_s=180),
    ]]
    assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
    assert answers[4].json() == answers[5].json()
    assert json.loads(answers[4].json()["results"][0]["result"])["severity"] == "moderate"

    events = _wait_for_events(receiver, 4)
    assert [e["event"] for e in events] == ["intake.started", "intake.started",
                                            "intake.screener.completed",
                                            "intake.summary.ready", "intake.completed"]
    assert all(r.service_signature_ok and r.standard_signature_ok for r in receiver.requests)
    Webhook(created.json()["signing_secret"]).verify(receiver.requests[-1].body,
                                                     receiver.requests[-1].headers)

    state = clinic.call("GET", "/api/voice/webhook/call/e2e-call-1").json()
    assert state["status"] == "ended" and state["duration_ms"] == 180_000
    assert state["screeners"][0]["score"] == 10
    transcript = clinic.call("GET", "/api/voice/webhook/call/e2e-call-1/transcript").json()
    assert [e["text"] for e in transcript["entries"]] == [
        "Thanks for calling. What's your name?", "Sam Ortiz."]
    packet = clinic.http.get(events[3]["handoff_packet_url"], timeout=30)
    assert packet.status_code == 200
    assert packet.json()["content"]["details"] == {"name": "Sam Ortiz"}
    deliveries = clinic.call(
        "GET", f"/api/voice/deployments/{created.json()['id']}/deliveries").json()
    assert sorted(d["status"] for d in deliveries) == ["succeeded"] * 4
    first = next(d for d in deliveries if d["event"] == "intake.started")
    assert [a["status_code"] for a in first["attempt_log"]] == [500, 200]
