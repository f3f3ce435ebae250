"""POST /api/therapy/analyze-session and GET /api/therapy-sessions/{id}/analysis, through
the rules analyzer and through the real `openai` client talking to an OpenAI-compatible
server on 127.0.0.1."""

import pytest

from models.analyses import SessionAnalysis
from models.usage import UsageEvent
from tests.blueprints.test_errors import assert_error_shape
from tests.conftest import bearer
from tests.fakes.openai_server import Reply, fresh_analysis

URL = "/api/therapy/analyze-session"
CRISIS = ("Clinician: How has this week been?\n"
          "Patient: Honestly I've been thinking about killing myself. I have a plan to take "
          "all my pills on Friday.\n")
ORDINARY = ("Clinician: How did the thought record go?\n"
            "Patient: Better. My PHQ-9 today was 12 and I'm sleeping about six hours.\n"
            "Clinician: For homework, keep the thought record daily. Let's schedule a "
            "follow-up in two weeks.\n")


@pytest.fixture
def llm_app(make_app, fake_openai):
    return make_app(OPENAI_API_KEY="sk-test-key", OPENAI_BASE_URL=fake_openai.base_url,
                    OPENAI_MODEL="gpt-4o-mini", OPENAI_TIMEOUT_S=1.0)


@pytest.fixture
def llm_client(llm_app):
    return llm_app.test_client()


def _session(client, headers, **extra):
    body = {"patient_id": "pat-7", "provider_id": "prov-2",
            "session_date": "2026-11-20T15:00:00Z", **extra}
    response = client.post("/api/therapy-sessions", json=body, headers=headers)
    assert response.status_code == 201
    return response.json["id"]


SHAPE_KEYS = {"success", "aiTasks", "visitSummary", "differentialDiagnoses", "riskAssessment",
              "clinicalFindings", "treatmentPlan", "recommendations", "analysis_id", "provider",
              "model"}


def test_rules_analyzer_answers_the_full_shape_without_a_key(client, auth):
    response = client.post(URL, json={"session_transcript": ORDINARY}, headers=auth)
    assert response.status_code == 200
    body = response.json
    assert SHAPE_KEYS <= set(body)
    assert body["success"] is True and body["provider"] == "rules"
    assert set(body["visitSummary"]) == {"topicsDiscussed", "keyFindings", "decisionsMade",
                                         "nextSteps"}
    assert body["riskAssessment"]["level"] in ("low", "moderate")
    assert any("PHQ-9" in f for f in body["visitSummary"]["keyFindings"])
    assert body["aiTasks"] and all(isinstance(t["id"], int) for t in body["aiTasks"])


def test_rules_analyzer_raises_crisis_to_imminent(client, auth):
    body = client.post(URL, json={"session_transcript": CRISIS}, headers=auth).json
    assert body["riskAssessment"]["level"] == "imminent"
    assert body["riskAssessment"]["factors"]


def test_model_request_uses_fixed_temperature_format_and_model(llm_client, auth, fake_openai):
    response = llm_client.post(URL, json={"session_transcript": ORDINARY}, headers=auth)
    assert response.status_code == 200, response.json
    sent = fake_openai.requests[0]
    assert sent["temperature"] == 0.3
    assert sent["response_format"] == {"type": "json_object"}
    assert sent["model"] == "gpt-4o-mini"
    assert fake_openai.request_headers[0]["authorization"] == "Bearer sk-test-key"
    body = response.json
    assert body["provider"] == "openai" and body["model"] == "gpt-4o-mini"
    assert body["aiTasks"][0]["title"] == "Send sleep hygiene handout"


def test_identifiers_are_redacted_before_they_reach_the_model(llm_client, auth, fake_openai):
    transcript = ("Patient: You can call me at (555) 123-4567 or jane.doe@example.com. "
                  "My MRN 00123456, I live at 1234 Elm Street.\n" + ORDINARY)
    assert llm_client.post(URL, json={"session_transcript": transcript},
                           headers=auth).status_code == 200
    sent = str(fake_openai.requests[0]["messages"])
    for identifier in ("555) 123-4567", "jane.doe@example.com", "00123456", "1234 Elm Street"):
        assert identifier not in sent
    assert "[PHONE]" in sent and "[EMAIL]" in sent


def test_redaction_can_be_switched_off(make_app, fake_openai, org, make_token):
    app = make_app(OPENAI_API_KEY="k", OPENAI_BASE_URL=fake_openai.base_url,
                   ANALYSIS_REDACT_IDENTIFIERS=False)
    headers = bearer(make_token(org, "analysis:run"))
    app.test_client().post(URL, json={"session_transcript": "Patient: call (555) 123-4567"},
                           headers=headers)
    assert "(555) 123-4567" in str(fake_openai.requests[0]["messages"])


def test_template_guidance_is_sent_to_the_model(llm_client, auth, fake_openai):
    body = {"session_transcript": ORDINARY,
            "clinical_context": {"template_id": "tpl_builtin_birp"}}
    assert llm_client.post(URL, json=body, headers=auth).status_code == 200
    system = fake_openai.requests[0]["messages"][0]["content"]
    assert "Intervention" in system and "Response" in system


def test_model_cannot_lower_the_safety_floor(llm_client, auth, fake_openai):
    reply = fresh_analysis()
    reply["riskAssessment"] = {"level": "low", "summary": "No concerns.", "factors": []}
    fake_openai.script(Reply.json(reply))
    body = llm_client.post(URL, json={"session_transcript": CRISIS}, headers=auth).json
    assert body["riskAssessment"]["level"] == "imminent"
    assert body["riskAssessment"]["factors"]


@pytest.mark.parametrize("failure", [Reply.status(500), Reply.slow(3)], ids=["502", "504"])
def test_a_failed_model_still_answers_with_the_safety_floors_reading(llm_client, auth,
                                                                    fake_openai, failure):
    """The model down: the detector's reading of a crisis transcript was computed and thrown
    away, so the 502 said nothing of the plan for Friday."""
    fake_openai.script(failure)
    response = llm_client.post(URL, json={"session_transcript": CRISIS}, headers=auth)
    assert response.status_code in (502, 504) and response.json["success"] is False
    risk = response.json["riskAssessment"]
    assert risk["level"] == "imminent" and risk["factors"]
    assert risk["summary"].startswith("The analysis model failed")
    assert SessionAnalysis.select().count() == 0
    fake_openai.script(failure)
    calm = llm_client.post(URL, json={"session_transcript": ORDINARY}, headers=auth)
    assert calm.status_code in (502, 504) and "riskAssessment" not in calm.json


def test_unknown_model_risk_level_becomes_the_floor(llm_client, auth, fake_openai):
    reply = fresh_analysis()
    reply["riskAssessment"]["level"] = "somewhat worrying"
    fake_openai.script(Reply.json(reply))
    body = llm_client.post(URL, json={"session_transcript": ORDINARY}, headers=auth).json
    assert body["riskAssessment"]["level"] in ("low", "moderate", "high", "imminent")


def test_malformed_output_is_retried_once(llm_client, auth, fake_openai):
    fake_openai.script(Reply.text("this is not json"))
    response = llm_client.post(URL, json={"session_transcript": ORDINARY}, headers=auth)
    assert response.status_code == 200
    assert len(fake_openai.requests) == 2


def test_malformed_twice_is_502_and_stores_nothing(llm_client, auth, fake_openai):
    fake_openai.script(Reply.text("nope"), Reply.text("still nope"))
    response = llm_client.post(URL, json={"session_transcript": ORDINARY}, headers=auth)
    assert response.status_code == 502
    assert response.json["success"] is False and response.json["code"] == 502
    assert SessionAnalysis.select().count() == 0


def test_upstream_500_is_502(llm_client, auth, fake_openai):
    fake_openai.script(Reply.status(500))
    response = llm_client.post(URL, json={"session_transcript": ORDINARY}, headers=auth)
    assert response.status_code == 502 and response.json["success"] is False


def test_a_model_servers_retry_after_is_passed_on_with_the_502(llm_client, auth, fake_openai):
    fake_openai.script(Reply.status(429, headers={"Retry-After": "20"}))
    response = llm_client.post(URL, json={"session_transcript": ORDINARY}, headers=auth)
    assert response.status_code == 502 and response.json["success"] is False
    assert response.headers["Retry-After"] == "20"


def test_upstream_timeout_is_504(llm_client, auth, fake_openai):
    fake_openai.script(Reply.slow(3))
    response = llm_client.post(URL, json={"session_transcript": ORDINARY}, headers=auth)
    assert response.status_code == 504 and response.json["success"] is False


def test_an_answer_sent_slowly_past_the_timeout_is_504(llm_client, auth, fake_openai):
    """OPENAI_TIMEOUT_S (1 s here) bounds the whole call: a body sent in 8 parts 0.4 s apart,
    each gap within the timeout, was waited for to the end (3 s) and answered 200."""
    import time

    fake_openai.script(Reply.trickled(8, 0.4, then=Reply.json(fresh_analysis())))
    started = time.monotonic()
    response = llm_client.post(URL, json={"session_transcript": ORDINARY}, headers=auth)
    assert response.status_code == 504 and response.json["success"] is False
    assert time.monotonic() - started < 2.0
    assert SessionAnalysis.select().count() == 0


@pytest.mark.parametrize("body", [b"", b"<html>gateway</html>", b'{"id": "chatcmpl-x", "cho'])
def test_a_200_whose_json_body_does_not_decode_is_502(llm_client, auth, fake_openai, body):
    """Was 500 "internal error" with the decoder's traceback in the log."""
    fake_openai.script(Reply.raw_body(body))
    response = llm_client.post(URL, json={"session_transcript": ORDINARY}, headers=auth)
    assert_error_shape(response, 502)
    assert response.json["success"] is False
    assert response.json["message"].endswith("model server returned a body that is not JSON")
    assert SessionAnalysis.select().count() == 0


def test_analysis_is_stored_linked_and_metered(llm_client, auth, fake_openai):
    fake_openai.script(Reply.json(fresh_analysis(), usage=(300, 100)))
    session_id = _session(llm_client, auth)
    body = {"session_transcript": ORDINARY, "clinical_context": {"session_id": session_id}}
    analysis_id = llm_client.post(URL, json=body, headers=auth).json["analysis_id"]
    latest = llm_client.get(f"/api/therapy-sessions/{session_id}/analysis", headers=auth)
    assert latest.status_code == 200
    assert latest.json["analysis_id"] == analysis_id
    tokens = UsageEvent.get(UsageEvent.metric == "llm_tokens")
    assert tokens.quantity == 400
    assert tokens.details["provider"] == "openai" and tokens.details["model"] == "gpt-4o-mini"
    assert UsageEvent.select().where(UsageEvent.metric == "session_analyses").count() == 1


def test_session_without_analysis_is_404(client, auth):
    session_id = _session(client, auth)
    assert client.get(f"/api/therapy-sessions/{session_id}/analysis",
                      headers=auth).status_code == 404


@pytest.mark.parametrize("body, field", [
    ({}, "session_transcript"),
    ({"session_transcript": ""}, "session_transcript"),
    ({"session_transcript": "   "}, "session_transcript"),
    ({"session_transcript": 42}, "session_transcript"),
    ({"session_transcript": "x" * 200_001}, "session_transcript"),
    ({"session_transcript": "ok", "vital_signs": "high"}, "vital_signs"),
    ({"session_transcript": "ok", "surprise": 1}, "surprise"),
    ({"session_transcript": "ok", "clinical_context": {"session_id": 5}}, "clinical_context"),
    ({"session_transcript": "Patient: fine\u0000"}, "session_transcript"),
    ({"session_transcript": "ok", "clinical_context": {"notes": ["a\u0000"]}},
     "clinical_context"),
])
def test_bad_input_is_422_and_stores_nothing(client, auth, body, field):
    response = client.post(URL, json=body, headers=auth)
    assert response.status_code == 422
    assert field in response.json["errors"]["json"]
    assert SessionAnalysis.select().count() == 0


def test_another_organizations_session_cannot_be_linked(client, auth, other_org, make_token):
    other = bearer(make_token(other_org, "admin"))
    foreign = _session(client, other)
    body = {"session_transcript": ORDINARY, "clinical_context": {"session_id": foreign}}
    response = client.post(URL, json=body, headers=auth)
    assert response.status_code == 422
    # Nested as the body is, as every other field error (it was one dotted key).
    assert response.json["errors"]["json"] == {"clinical_context": {"session_id": [
        "No such therapy session for this organization."]}}
    unknown = client.post(URL, headers=auth, json={
        "session_transcript": ORDINARY, "clinical_context": {"template_id": "tpl_nope"}})
    assert unknown.json["errors"]["json"] == {"clinical_context": {"template_id": [
        "No such template for this organization."]}}
    assert client.get(f"/api/therapy-sessions/{foreign}/analysis",
                      headers=auth).status_code == 404


def test_analysis_needs_the_analysis_scope(client, org, make_token):
    headers = bearer(make_token(org, "sessions:read"))
    assert client.post(URL, json={"session_transcript": "x"}, headers=headers).status_code == 403


def test_listed_section_prompts_are_exactly_what_the_model_receives(llm_client, auth,
                                                                     fake_openai):
    listed = {t["id"]: t for t in llm_client.get("/api/therapy/templates?page_size=100",
                                                 headers=auth).json}
    body = {"session_transcript": ORDINARY,
            "clinical_context": {"template_id": "tpl_builtin_intake"}}
    assert llm_client.post(URL, json=body, headers=auth).status_code == 200
    system = fake_openai.requests[0]["messages"][0]["content"]
    prompts = [p["prompt"] for p in listed["tpl_builtin_intake"]["section_prompts"]]
    assert prompts and all(f"- {prompt}" in system for prompt in prompts)
