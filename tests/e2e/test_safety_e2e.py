"""The safety floor's language model in the processes users run: gunicorn's workers (the model
loaded by the master before fork) and the RQ worker's forked job (loaded by the worker)."""

from __future__ import annotations

import pytest

from services.analysis.crisis import apply_safety_floor, detect_crisis
from tests.e2e.service import Client
from tests.services.crisis_blind import TUNING, split_blind_set

FACTOR = "reads as current suicide or self-harm risk"


def _only_the_model_raises() -> str:
    """A tuning-half statement that the lexicons and the word reader leave below high and the
    language model raises (training material: this shows the processes run the model)."""
    for statement in split_blind_set()[TUNING]:
        text = f"Patient: {statement['text']}"
        without = apply_safety_floor({"level": "low"}, detect_crisis(text, model_reader=False))
        if statement["escalate"] and without["level"] in ("low", "moderate") and \
                detect_crisis(text).level == "high":
            return statement["text"]
    raise AssertionError("no statement that only the language model raises")


def _only_the_second_model_raises() -> str:
    """A tuning-half statement that every other reader leaves below high and the second
    language model raises (found in this process with the second model left out here; the
    service under test runs as it is)."""
    candidates = [s["text"] for s in split_blind_set()[TUNING] if s["escalate"]]
    raised = [text for text in candidates
              if detect_crisis(f"Patient: {text}").level in ("high", "imminent")]
    for text in raised:
        without = apply_safety_floor({"level": "low"},
                                     detect_crisis(f"Patient: {text}", second_model=False))
        # A risk statement of its own, not a lexicon finding it only keeps from being doubted.
        if without["level"] in ("low", "moderate") and FACTOR in \
                detect_crisis(f"Patient: {text}").signals[0].factor:
            return text
    raise AssertionError("no statement that only the second model raises")


def _analysed_risk(clinic: Client, statement: str) -> dict:
    """The risk assessment the running service answers for one patient statement."""
    response = clinic.call("POST", "/api/therapy/analyze-session",
                           {"session_transcript": f"Patient: {statement}"})
    assert response.status_code == 200, response.text
    return response.json()["riskAssessment"]


def test_the_web_process_reads_with_the_language_model(clinic: Client) -> None:
    statement = _only_the_model_raises()
    risk = _analysed_risk(clinic, statement)
    assert risk["level"] == "high"
    assert any(FACTOR in factor for factor in risk["factors"])


def _workers_risk(clinic: Client, chunks: tuple[tuple[str, str], ...]) -> dict:
    """The risk assessment of a live clinical session of ``chunks`` (speaker, text), analysed
    by the worker once the session stops."""
    created = clinic.call("POST", "/api/therapy-sessions", {
        "patient_id": "pat-safety-e2e", "provider_id": "prov-e2e",
        "session_date": "2026-11-20T15:00:00Z"})
    assert created.status_code == 201, created.text
    session_id = created.json()["id"]
    started = clinic.call("POST", "/api/clinical/start", {"session_id": session_id})
    assert started.status_code == 201, started.text
    clinical_id = started.json()["clinical_session_id"]
    for speaker, text in chunks:
        chunk = clinic.call("POST", f"/api/clinical/{clinical_id}/transcript",
                            {"speaker": speaker, "text": text})
        assert chunk.status_code == 201, chunk.text
    assert clinic.call("POST", f"/api/clinical/{clinical_id}/stop").status_code == 202
    clinic.wait_for(f"/api/therapy-sessions/{session_id}",
                    lambda body: body.get("analysis_status") == "succeeded")
    analysis = clinic.call("GET", f"/api/therapy-sessions/{session_id}/analysis")
    assert analysis.status_code == 200
    return analysis.json()["riskAssessment"]


def test_the_workers_analysis_reads_with_the_language_model(clinic: Client) -> None:
    risk = _workers_risk(clinic, (("clinician", "How have things been this week?"),
                                  ("patient", _only_the_model_raises())))
    assert risk["level"] == "high"
    assert any(FACTOR in factor for factor in risk["factors"])


def test_a_disclosure_only_the_model_reads_is_imminent_with_a_time_set(clinic: Client) -> None:
    """Intent with a time is imminent, also where only the language model reads the intent."""
    timed = [s["text"] for s in split_blind_set()[TUNING] if s["escalate"]
             and [(signal.kind, signal.level) for signal in
                  detect_crisis(f"Patient: {s['text']}").signals] == [("risk_statement",
                                                                       "imminent")]]
    assert timed, "no tuning-half statement that only the trained readers raise, timed"
    risk = _analysed_risk(clinic, timed[0])
    assert risk["level"] == "imminent"
    assert any("with a time set" in factor for factor in risk["factors"])


def test_a_disclosure_both_trained_readers_agree_on_is_raised(clinic: Client) -> None:
    """Neither trained reader raises it alone, and the second model rates it just below its
    threshold; the running service raises it because both agree (a tuning-half statement)."""
    statement = ("There's a full bottle of my late husband's painkillers in my nightstand, and I "
                 "haven't thrown it out for a reason.")
    for readers in ({"trained_reader": False}, {"model_reader": False}):
        alone = apply_safety_floor({"level": "low"},
                                   detect_crisis(f"Patient: {statement}", **readers))
        assert alone["level"] == "low"
    risk = _analysed_risk(clinic, statement)
    assert risk["level"] == "high"
    assert any(FACTOR in factor for factor in risk["factors"])


def test_a_plan_both_trained_readers_read_as_ordinary_goes_to_review(clinic: Client) -> None:
    """An ordinary turn the lexicons raise as a plan, which both trained readers rate as
    ordinary talk, is answered `moderate` with a "needs review" factor, never low."""
    import json
    from pathlib import Path

    from services.analysis.crisis import REVIEW_LEVEL

    turns = json.loads((Path(__file__).parents[1] / "services" / "data" /
                        "ordinary_turns_eval.json").read_text(encoding="utf-8"))["turns"]
    doubted = [t for t in turns if detect_crisis(f"Patient: {t}", model_reader=False).level
               and apply_safety_floor({"level": "low"},
                                      detect_crisis(f"Patient: {t}"))["level"] == REVIEW_LEVEL]
    assert doubted, "no ordinary turn that both trained readers send to review"
    risk = _analysed_risk(clinic, doubted[0])
    assert risk["level"] == "moderate"
    assert any("reads as ordinary talk" in factor for factor in risk["factors"])


def test_an_old_attempt_no_reader_hears_as_current_goes_to_review(clinic: Client) -> None:
    """An attempt told with a past time and the present, which the lexicons raise and every
    trained reader reads as no current risk, is answered `moderate` with a "needs review"
    factor by the running service."""
    statement = ("Back in my twenties I took an overdose. I'm sixty now, happily retired, and "
                 "my only worry is my hip.")
    assert detect_crisis(f"Patient: {statement}", model_reader=False).level == "high"
    risk = _analysed_risk(clinic, statement)
    assert risk["level"] == "moderate"
    assert any(factor.startswith("Needs review") and "past, someone else's" in factor
               for factor in risk["factors"])


def test_the_web_process_reads_with_the_second_model(clinic: Client) -> None:
    statement = _only_the_second_model_raises()
    risk = _analysed_risk(clinic, statement)
    assert risk["level"] in ("high", "imminent")
    assert any(FACTOR in factor for factor in risk["factors"])


# A patient's monologue as speech-to-text writes it, with no punctuation: one sentence of
# thousands of words. Reading it once took minutes (the reader's work grew with the cube of a
# sentence's length); a web worker was then killed at gunicorn's timeout.
_SPOKEN = ("i keep thinking about dying", "my mom keeps the pills in the kitchen",
           "i drove past the bridge again", "i dont want to be here anymore",
           "work was fine i guess", "my sister called me on sunday", "i have not been sleeping",
           "sometimes i think everyone would be better off without me")


def _run_on(chars: int) -> str:
    said = " and ".join(_SPOKEN) + " and "
    return (said * (chars // len(said) + 1))[:chars].rsplit(" ", 1)[0]


def test_a_long_transcript_without_punctuation_is_analysed(clinic: Client) -> None:
    response = clinic.call("POST", "/api/therapy/analyze-session",
                           {"session_transcript": f"Patient: {_run_on(30_000)}"})
    assert response.status_code == 200, response.text
    assert response.json()["riskAssessment"]["level"] in ("high", "imminent")


def test_the_worker_analyses_a_live_session_spoken_without_punctuation(clinic: Client) -> None:
    risk = _workers_risk(clinic, (("patient", _run_on(30_000)),))
    assert risk["level"] in ("high", "imminent")


# Shapes no one speaks but anyone can send, at the transcript's limit: a run of points (the
# trailing-off pattern was tried from every point, the square of the run) and one word of
# 199,990 letters (the spelling corrector built every deletion of it).
UNUSUAL_SHAPES = {"points": "." * 199_990, "one word": "x" * 199_990}


@pytest.mark.parametrize("shape", UNUSUAL_SHAPES)
def test_unusual_shapes_are_analysed(clinic: Client, shape: str) -> None:
    response = clinic.call("POST", "/api/therapy/analyze-session",
                           {"session_transcript": f"Patient: {UNUSUAL_SHAPES[shape]}"})
    assert response.status_code == 200, response.text
    assert response.json()["riskAssessment"]["level"] == "low"
