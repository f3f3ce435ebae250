"""SAFETY_MODEL_CHECK: the provider's moderation endpoint as a second opinion on the hosted
path, through POST /api/therapy/analyze-session, the real `openai` client and an
OpenAI-compatible server on 127.0.0.1 that answers the chat model with risk "low"."""

import logging

import pytest

from tests.fakes.openai_server import Reply

URL = "/api/therapy/analyze-session"
# Nothing the concept lexicons or phrase patterns read as crisis language.
QUIET = ("Clinician: How was the week?\n"
         "Patient: Quiet. I sorted some things out and called my brother, 555-123-4567.\n")
CRISIS = "Patient: I'm going to kill myself tonight. I have the pills ready.\n"
CHECK_FACTOR = "Safety model check (omni-moderation-latest)"


@pytest.fixture
def checked_client(make_app, fake_openai):
    app = make_app(OPENAI_API_KEY="sk-test-key", OPENAI_BASE_URL=fake_openai.base_url,
                   OPENAI_TIMEOUT_S=2.0, SAFETY_MODEL_CHECK=True, SAFETY_MODEL_THRESHOLD=0.5,
                   SAFETY_MODEL_TIMEOUT_S=0.5)
    return app.test_client()


def _risk(client, headers, transcript):
    response = client.post(URL, json={"session_transcript": transcript}, headers=headers)
    assert response.status_code == 200
    return response.json["riskAssessment"]


def _moderation_requests(fake):
    return [body for path, body in zip(fake.request_paths, fake.requests, strict=True)
            if path.endswith("/moderations")]


def test_flagged_intent_raises_low_to_high_with_a_factor_naming_the_check(
        checked_client, auth, fake_openai):
    fake_openai.script_moderation(Reply.moderation({"self-harm/intent": 0.91,
                                                    "self-harm": 0.74}))
    risk = _risk(checked_client, auth, QUIET)
    assert risk["level"] == "high"
    assert any(CHECK_FACTOR in f and "self-harm intent" in f for f in risk["factors"])
    sent = _moderation_requests(fake_openai)
    assert len(sent) == 1 and sent[0]["model"] == "omni-moderation-latest"
    # Only the patient's words leave, and their identifiers are redacted.
    assert "How was the week" not in sent[0]["input"]
    assert "[PHONE]" in sent[0]["input"] and "555-123-4567" not in sent[0]["input"]


def test_a_score_above_the_threshold_counts_even_when_not_flagged(make_app, fake_openai, auth):
    app = make_app(OPENAI_API_KEY="k", OPENAI_BASE_URL=fake_openai.base_url,
                   SAFETY_MODEL_CHECK=True, SAFETY_MODEL_THRESHOLD=0.3)
    fake_openai.script_moderation(Reply.moderation({"self-harm": 0.42}))
    risk = _risk(app.test_client(), auth, QUIET)
    assert risk["level"] == "high"
    assert any(CHECK_FACTOR in f and "(score 0.42)" in f for f in risk["factors"])


def test_nothing_flagged_leaves_the_level(checked_client, auth, fake_openai):
    fake_openai.script_moderation(Reply.moderation({"violence": 0.9, "self-harm": 0.2}))
    risk = _risk(checked_client, auth, QUIET)
    assert risk["level"] == "low"
    assert not any(CHECK_FACTOR in f for f in risk["factors"])


def test_the_check_never_lowers_the_detector_floor(checked_client, auth, fake_openai):
    fake_openai.script_moderation(Reply.moderation())
    assert _risk(checked_client, auth, CRISIS)["level"] == "imminent"


@pytest.mark.parametrize("failure", [
    Reply.status(500), Reply.status(429), Reply.status(200, "not json"),
    Reply.status(200, {"id": "modr-1", "results": []}),
    Reply.slow(2.0, then=Reply.moderation({"self-harm/intent": 0.99})),
], ids=["http-500", "http-429", "garbage", "no-results", "timeout"])
def test_a_failing_check_neither_lowers_nor_breaks_the_analysis(
        checked_client, auth, fake_openai, caplog, failure):
    fake_openai.script_moderation(failure, failure)
    with caplog.at_level(logging.WARNING, logger="services.analysis.moderation"):
        assert _risk(checked_client, auth, QUIET)["level"] == "low"
        assert _risk(checked_client, auth, CRISIS)["level"] == "imminent"
    warnings = [r.getMessage() for r in caplog.records if r.name.endswith("moderation")]
    assert len(warnings) == 2 and all("safety model check failed" in w for w in warnings)
    assert not any("kill" in w or "555" in w for w in warnings)


def test_a_check_answered_slowly_is_given_up_at_its_timeout(checked_client, auth, fake_openai):
    """SAFETY_MODEL_TIMEOUT_S (0.5 s here) bounds the whole call: an answer sent in 6 parts
    0.3 s apart, each gap within it, was waited for to the end and then counted."""
    import time

    fake_openai.script_moderation(Reply.trickled(
        6, 0.3, then=Reply.moderation({"self-harm/intent": 0.99})))
    started = time.monotonic()
    risk = _risk(checked_client, auth, QUIET)
    assert time.monotonic() - started < 1.2
    assert risk["level"] == "low" and not any(CHECK_FACTOR in f for f in risk["factors"])


def test_off_by_default(make_app, fake_openai, auth):
    app = make_app(OPENAI_API_KEY="k", OPENAI_BASE_URL=fake_openai.base_url)
    fake_openai.script_moderation(Reply.moderation({"self-harm/intent": 0.99}))
    assert _risk(app.test_client(), auth, QUIET)["level"] == "low"
    assert _moderation_requests(fake_openai) == []


def test_rules_analyzer_makes_no_check(make_app, auth):
    app = make_app(SAFETY_MODEL_CHECK=True)  # no model configured
    assert _risk(app.test_client(), auth, QUIET)["level"] == "low"
