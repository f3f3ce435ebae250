"""The analyzer drives the real openai client against FakeOpenAI over HTTP."""

import json
import socket
import time

import pytest

from services.analysis.llm import (
    LLMAnalysisError,
    LLMBadOutput,
    LLMSettings,
    LLMTimeout,
    LLMUpstreamError,
    analyze_with_llm,
    build_messages,
)
from tests.fakes.openai_server import FakeOpenAI, Reply, fresh_analysis

API_KEY = "sk-test-key-123"
SHORT_TIMEOUT_S = 0.5
SLOW_REPLY_S = 2.0

IDENTIFYING_TRANSCRIPT = (
    "Therapist: Let me confirm your details. "
    "Client: My DOB is 04/12/1987, MRN 00123456. I live at 1234 Elm Street. "
    "Call me on (555) 123-4567 or email jane.doe@example.com. "
    "Therapist: Your PHQ-9 score is 14 and you take 50 mg sertraline."
)
IDENTIFIERS = ("04/12/1987", "00123456", "1234 Elm Street", "(555) 123-4567", "jane.doe@example")
PLACEHOLDER_TEXT = ("[DOB]", "[RECORD_NUMBER]", "[ADDRESS]", "[PHONE]", "[EMAIL]")


@pytest.fixture
def fake_openai():
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture
def settings(fake_openai):
    return LLMSettings(api_key=API_KEY, base_url=fake_openai.base_url, timeout_s=5.0)


def _sent_text(fake: FakeOpenAI, index: int = 0) -> str:
    return json.dumps(fake.requests[index])


def _messages(fake: FakeOpenAI, index: int = 0) -> dict[str, str]:
    return {message["role"]: message["content"] for message in fake.requests[index]["messages"]}


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_valid_reply_is_normalised_with_usage(fake_openai, settings):
    fake_openai.script(
        Reply.json(fresh_analysis(), model="gpt-4o-mini-2024-07-18", usage=(321, 45))
    )

    analysis = analyze_with_llm(settings, "Client reports poor sleep.")

    assert analysis.result == fresh_analysis()
    assert analysis.model == "gpt-4o-mini-2024-07-18"
    assert (analysis.prompt_tokens, analysis.completion_tokens, analysis.total_tokens) == (
        321,
        45,
        366,
    )
    assert analysis.attempts == 1
    assert len(fake_openai.requests) == 1


def test_request_parameters_and_auth(fake_openai, settings):
    analyze_with_llm(settings, "Client reports poor sleep.")

    body = fake_openai.requests[0]
    assert body["model"] == "gpt-4o-mini"
    assert body["temperature"] == 0.3
    assert body["response_format"] == {"type": "json_object"}
    assert fake_openai.request_headers[0]["authorization"] == f"Bearer {API_KEY}"
    assert fake_openai.request_paths == ["/v1/chat/completions"]


def test_configured_model_is_sent(fake_openai):
    custom = LLMSettings(api_key=API_KEY, base_url=fake_openai.base_url, model="local-llama")
    analyze_with_llm(custom, "Client reports poor sleep.")
    assert fake_openai.requests[0]["model"] == "local-llama"


def test_base_url_without_v1_prefix_is_served(fake_openai):
    bare = LLMSettings(api_key=API_KEY, base_url=fake_openai.base_url.removesuffix("/v1"))
    analyze_with_llm(bare, "Client reports poor sleep.")
    assert fake_openai.request_paths == ["/chat/completions"]


def test_system_prompt_states_shape_and_template_guidance(fake_openai, settings):
    sections = [
        {"key": "subjective", "title": "Subjective", "guidance": "Client's own words on mood"},
        {"key": "plan", "title": "Plan", "guidance": "Homework and next appointment"},
    ]
    analyze_with_llm(settings, "Client reports poor sleep.", template_sections=sections)

    system = _messages(fake_openai)["system"]
    for key in ("aiTasks", "visitSummary", "riskAssessment", "estimatedTime", "JSON"):
        assert key in system
    for value in ("urgent", "imminent", "moderate"):
        assert value in system
    assert "Subjective: Client's own words on mood" in system
    assert "Plan: Homework and next appointment" in system


def test_system_prompt_has_no_template_section_without_template():
    messages = build_messages("transcript", None, None, None)
    assert [message["role"] for message in messages] == ["system", "user"]
    assert "note template" not in messages[0]["content"]
    assert "transcript" in messages[1]["content"]


def test_context_and_vitals_are_sent_as_json(fake_openai, settings):
    analyze_with_llm(
        settings,
        "Client reports poor sleep.",
        clinical_context={"diagnosis": "MDD", "medications": ["sertraline 50 mg"]},
        vital_signs={"bp": "120/80", "hr": 72},
    )
    user = _messages(fake_openai)["user"]
    assert "Client reports poor sleep." in user
    assert '"diagnosis": "MDD"' in user
    assert "sertraline 50 mg" in user
    assert '"bp": "120/80"' in user
    assert '"hr": 72' in user


def test_identifiers_never_leave_when_redacting(fake_openai, settings):
    context = {
        "patient_name": "Jane Doe",
        "Phone": "555-867-5309",
        "dateOfBirth": "1987-04-12",
        "notes": "Emergency contact at 12 Oak Rd, mom@example.org",
        "history": [{"email": "old@example.net", "summary": "Prior episode in 2019"}],
    }
    analysis = analyze_with_llm(settings, IDENTIFYING_TRANSCRIPT, clinical_context=context)

    sent = _sent_text(fake_openai)
    user = _messages(fake_openai)["user"]
    for secret in (*IDENTIFIERS, "Jane Doe", "867-5309", "1987-04-12", "12 Oak Rd", "mom@", "old@"):
        assert secret not in sent
    for placeholder in PLACEHOLDER_TEXT:
        assert placeholder in user
    assert "PHQ-9 score is 14" in user
    assert "50 mg sertraline" in user
    assert "Prior episode in 2019" in user
    assert analysis.redactions == {
        "phone": 1,
        "email": 2,
        "address": 2,
        "dob": 1,
        "record_number": 1,
    }


def test_redaction_can_be_disabled(fake_openai):
    plain = LLMSettings(api_key=API_KEY, base_url=fake_openai.base_url, redact=False)
    context = {"patient_name": "Jane Doe"}
    analysis = analyze_with_llm(plain, IDENTIFYING_TRANSCRIPT, clinical_context=context)

    user = _messages(fake_openai)["user"]
    for secret in (*IDENTIFIERS, "Jane Doe"):
        assert secret in user
    assert sum(analysis.redactions.values()) == 0


def test_malformed_then_valid_succeeds_on_second_attempt(fake_openai, settings):
    fake_openai.script(Reply.text("Sure! Here is the analysis: {oops", usage=(100, 10)))
    fake_openai.script(Reply.json(fresh_analysis(), usage=(100, 50)))

    analysis = analyze_with_llm(settings, "Client reports poor sleep.")

    assert analysis.attempts == 2
    assert len(fake_openai.requests) == 2
    assert fake_openai.requests[0] == fake_openai.requests[1]
    assert (analysis.prompt_tokens, analysis.completion_tokens, analysis.total_tokens) == (
        200,
        60,
        260,
    )


def test_malformed_twice_raises_bad_output(fake_openai, settings):
    fake_openai.script(Reply.text("not json"), Reply.json(["a", "list"]), Reply.json({}))

    with pytest.raises(LLMBadOutput):
        analyze_with_llm(settings, "Client reports poor sleep.")
    assert len(fake_openai.requests) == 2
    assert fake_openai.pending == 1


def test_empty_content_counts_as_bad_output(fake_openai, settings):
    fake_openai.script(Reply.text(""), Reply.text("   "))
    with pytest.raises(LLMBadOutput):
        analyze_with_llm(settings, "Client reports poor sleep.")


@pytest.mark.parametrize("status", [500, 503, 400, 401, 429])
def test_http_errors_raise_upstream_error_without_retry(fake_openai, settings, status):
    fake_openai.script(Reply.status(status))

    with pytest.raises(LLMUpstreamError) as excinfo:
        analyze_with_llm(settings, IDENTIFYING_TRANSCRIPT)

    assert excinfo.value.status_code == status
    assert len(fake_openai.requests) == 1
    for secret in IDENTIFIERS:
        assert secret not in str(excinfo.value)


def test_error_body_echoing_the_prompt_does_not_reach_the_message(fake_openai):
    plain = LLMSettings(api_key=API_KEY, base_url=fake_openai.base_url, redact=False)
    fake_openai.script(Reply.status(500, {"error": {"message": IDENTIFYING_TRANSCRIPT}}))

    with pytest.raises(LLMUpstreamError) as excinfo:
        analyze_with_llm(plain, IDENTIFYING_TRANSCRIPT)

    assert "jane.doe" not in str(excinfo.value)
    assert "04/12/1987" not in str(excinfo.value)
    assert excinfo.value.__cause__ is None


def test_non_completion_body_raises_upstream_error(fake_openai, settings):
    fake_openai.script(Reply.status(200, "<html>gateway</html>"))
    with pytest.raises(LLMUpstreamError):
        analyze_with_llm(settings, "Client reports poor sleep.")


def test_slow_reply_raises_timeout_without_retry(fake_openai):
    quick = LLMSettings(api_key=API_KEY, base_url=fake_openai.base_url, timeout_s=SHORT_TIMEOUT_S)
    fake_openai.script(Reply.slow(SLOW_REPLY_S))

    started = time.perf_counter()
    with pytest.raises(LLMTimeout):
        analyze_with_llm(quick, "Client reports poor sleep.")

    assert time.perf_counter() - started < SLOW_REPLY_S
    assert len(fake_openai.requests) == 1


def test_slow_reply_within_timeout_succeeds(fake_openai, settings):
    fake_openai.script(Reply.slow(0.1, then=Reply.json(fresh_analysis())))
    assert analyze_with_llm(settings, "Client reports poor sleep.").attempts == 1


def test_connection_refused_raises_upstream_error():
    refused = LLMSettings(api_key=API_KEY, base_url=f"http://127.0.0.1:{_closed_port()}/v1")
    with pytest.raises(LLMUpstreamError) as excinfo:
        analyze_with_llm(refused, IDENTIFYING_TRANSCRIPT)
    assert excinfo.value.status_code is None


@pytest.mark.parametrize(
    "wrap",
    [
        "```json\n{}\n```",
        "```\n{}\n```",
        "  ```JSON\n{}\n```  \n",
    ],
)
def test_fenced_json_is_accepted(fake_openai, settings, wrap):
    content = wrap.replace("{}", json.dumps(fresh_analysis(), indent=2))
    fake_openai.script(Reply.text(content))

    analysis = analyze_with_llm(settings, "Client reports poor sleep.")

    assert analysis.attempts == 1
    assert analysis.result == fresh_analysis()


def test_reply_is_normalised(fake_openai, settings):
    raw = {
        "aiTasks": [
            {"id": "1", "title": "Call GP", "priority": "High"},
            {"id": "2", "title": "Book session", "priority": "whenever"},
        ],
        "riskAssessment": {"level": "unclear"},
        "recommendations": "Sleep diary",
        "chainOfThought": "should be dropped",
    }
    fake_openai.script(Reply.json(raw))

    result = analyze_with_llm(settings, "Client reports poor sleep.").result

    assert [(task["id"], task["priority"]) for task in result["aiTasks"]] == [
        (1, "high"),
        (2, "medium"),
    ]
    assert result["riskAssessment"]["level"] is None
    assert result["recommendations"] == ["Sleep diary"]
    assert "chainOfThought" not in result


def test_exceptions_share_a_base():
    for error in (LLMBadOutput, LLMUpstreamError, LLMTimeout):
        assert issubclass(error, LLMAnalysisError)


def test_settings_repr_hides_the_api_key():
    assert API_KEY not in repr(LLMSettings(api_key=API_KEY, base_url=None))


def test_fake_server_records_and_resets(fake_openai, settings):
    fake_openai.script(Reply.text("x"))
    analyze_with_llm(settings, "Client reports poor sleep.")
    assert fake_openai.requests

    fake_openai.reset()

    assert fake_openai.requests == []
    assert fake_openai.request_headers == []
    assert fake_openai.pending == 0


def test_fake_server_stop_does_not_wait_for_slow_replies():
    fake = FakeOpenAI().start()
    quick = LLMSettings(api_key=API_KEY, base_url=fake.base_url, timeout_s=SHORT_TIMEOUT_S)
    fake.script(Reply.slow(60))
    with pytest.raises(LLMTimeout):
        analyze_with_llm(quick, "Client reports poor sleep.")

    started = time.perf_counter()
    fake.stop()
    assert time.perf_counter() - started < SLOW_REPLY_S


@pytest.mark.parametrize("empty", [{}, {"aiTasks": [], "riskAssessment": None},
                                   {"visitSummary": {"topicsDiscussed": []}, "note": "ok"}])
def test_an_object_with_none_of_the_analysis_fields_is_bad_output(fake_openai, settings, empty):
    """Stored, `{}` read as a finished analysis that found nothing, at `moderate` (the floor's
    level for an unknown one) with no reason given."""
    fake_openai.script(Reply.json(empty), Reply.json(empty))
    with pytest.raises(LLMBadOutput):
        analyze_with_llm(settings, "Client reports poor sleep.")
    assert len(fake_openai.requests) == 2


def test_an_object_with_only_a_risk_level_is_an_analysis(fake_openai, settings):
    fake_openai.script(Reply.json({"riskAssessment": {"level": "low"}}))
    analysis = analyze_with_llm(settings, "Client reports poor sleep.")
    assert analysis.result["riskAssessment"]["level"] == "low"
