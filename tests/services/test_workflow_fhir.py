"""The FHIR R4 transaction Bundle built from an execution's analysis."""

import pytest
from fhir.resources.R4B.bundle import Bundle

from services.analysis.rules import analyze_transcript
from services.workflows.fhir import build_bundle, screener_totals

TRANSCRIPT = ("Clinician: How has the week been?\n"
              "Patient: Tired. My PHQ-9 today was 14 and the GAD-7 was 9.\n"
              "Clinician: Let us schedule a follow-up in two weeks.")
AT = "2026-11-20T15:00:00Z"


def test_bundle_is_a_valid_transaction_with_every_resource():
    analysis = analyze_transcript(TRANSCRIPT)
    bundle = build_bundle("wfx_1", analysis, {"patient_id": "pat-1"}, AT)
    Bundle.model_validate(bundle)
    kinds = [e["resource"]["resourceType"] for e in bundle["entry"]]
    assert kinds.count("Task") == len(analysis["aiTasks"])
    assert kinds.count("Observation") == 2
    assert {"Encounter", "DocumentReference", "RiskAssessment"} <= set(kinds)
    encounter_url = bundle["entry"][0]["fullUrl"]
    assert all(e["resource"].get("encounter", {"reference": encounter_url})["reference"]
               == encounter_url for e in bundle["entry"][2:])


def test_same_execution_gives_the_same_conditional_creates():
    analysis = analyze_transcript(TRANSCRIPT)
    first = build_bundle("wfx_1", analysis, {}, AT)
    again = build_bundle("wfx_1", analysis, {}, "2026-11-21T15:00:00Z")
    other = build_bundle("wfx_2", analysis, {}, AT)
    conditions = [e["request"]["ifNoneExist"] for e in first["entry"]]
    assert conditions == [e["request"]["ifNoneExist"] for e in again["entry"]]
    assert not set(conditions) & {e["request"]["ifNoneExist"] for e in other["entry"]}


def test_screener_totals_from_input_win_and_out_of_range_is_dropped():
    analysis = analyze_transcript(TRANSCRIPT)
    totals = screener_totals(analysis, {"screeners": [{"screener": "PHQ-9", "score": 16},
                                                      {"screener": "gad7", "score": 40}]})
    assert totals == {"phq9": 16, "gad7": 9}


def test_a_phq2_total_is_an_observation_with_its_loinc_code():
    """PHQ-2 totals were dropped: only PHQ-9 and GAD-7 were sent."""
    analysis = analyze_transcript(TRANSCRIPT)
    inputs = {"screeners": [{"screener": "PHQ-2", "score": 4}, {"screener": "phq2", "score": 7},
                            {"screener": "GAD-2", "score": 3}]}
    assert screener_totals(analysis, inputs) == {"phq9": 14, "gad7": 9, "phq2": 4}
    bundle = build_bundle("wfx_1", analysis, inputs, AT)
    Bundle.model_validate(bundle)
    codes = {e["resource"]["code"]["coding"][0]["code"]: e["resource"]["valueInteger"]
             for e in bundle["entry"] if e["resource"]["resourceType"] == "Observation"}
    assert codes == {"44261-6": 14, "70274-6": 9, "55758-7": 4}


@pytest.mark.parametrize("body", [b"[]", b'"ok"', b'{"entry": {"x": 1}}',
                                  b'{"entry": [null, 3, {"response": []},'
                                  b' {"response": {"location": 7}}]}'])
def test_a_taken_transaction_whose_answer_names_no_resource_gives_none(body):
    # A 2xx whose body was no Bundle object raised AttributeError in the worker: the step was
    # retried as if the server had failed, and its error withheld.
    import requests

    from services.workflows.fhir import _created_resources

    response = requests.Response()
    response.status_code, response._content = 200, body
    assert _created_resources(response) == []


def test_the_resources_a_transaction_response_names():
    import json

    import requests

    from services.workflows.fhir import _created_resources

    response = requests.Response()
    response.status_code = 200
    response._content = json.dumps({"resourceType": "Bundle", "entry": [
        {"response": {"location": "Observation/42/_history/1"}},
        {"response": {"location": "Encounter/7"}}]}).encode()
    assert _created_resources(response) == [{"resourceType": "Observation", "id": "42"},
                                            {"resourceType": "Encounter", "id": "7"}]


def _answer(status: int, body: bytes, content_type: str = "application/fhir+json"):
    import requests

    response = requests.Response()
    response.status_code, response._content = status, body
    response.headers["Content-Type"] = content_type
    return response


OUTCOME = (b'{"resourceType": "OperationOutcome", "issue": [{"severity": "error", '
           b'"code": "processing", "diagnostics": "HAPI-0450: Failed to parse request body"}]}')


@pytest.mark.parametrize("status, body, content_type, expected", [
    # A 2xx that refuses (an error OperationOutcome) or is no FHIR at all counted as synced.
    (200, OUTCOME, "application/fhir+json", "answered 200 with an error: HAPI-0450"),
    (200, b"<html>Sign in</html>", "text/html", "no FHIR body (text/html)"),
    # A 4xx's reason was dropped: only "(400)" reached the clinic.
    (400, OUTCOME, "application/fhir+json", "refused the bundle (400): HAPI-0450"),
    (307, b"", "text/plain", "refused the bundle (307)"),
])
def test_answers_that_are_no_taken_transaction_are_refusals_that_say_why(
        status, body, content_type, expected):
    from services.workflows.fhir import _refusal

    assert expected in _refusal(_answer(status, body, content_type))


@pytest.mark.parametrize("body", [b"", b'{"resourceType": "Bundle", "type": '
                                       b'"transaction-response", "entry": []}',
                                  b'{"resourceType": "OperationOutcome", "issue": '
                                  b'[{"severity": "information", "code": "informational"}]}'])
def test_a_taken_transaction_is_no_refusal(body):
    from services.workflows.fhir import _refusal

    assert _refusal(_answer(200, body)) is None


def test_the_risk_assessment_carries_the_safety_floors_reasons():
    # The EHR got the model's "passive SI" alone, not the plan the floor found.
    analysis = analyze_transcript(TRANSCRIPT)
    analysis["riskAssessment"] = {"level": "high", "summary": "passive SI",
                                  "factors": ["Patient described a suicide plan ('a plan')"]}
    bundle = build_bundle("wfx_1", analysis, {"patient_id": "pat-1"}, AT)
    risk = next(e["resource"] for e in bundle["entry"]
                if e["resource"]["resourceType"] == "RiskAssessment")
    assert [n["text"] for n in risk["note"]] == [
        "passive SI", "Patient described a suicide plan ('a plan')"]
    import base64

    note = next(e["resource"] for e in bundle["entry"]
                if e["resource"]["resourceType"] == "DocumentReference")
    assert "suicide plan" in base64.b64decode(note["content"][0]["attachment"]["data"]).decode()


@pytest.mark.parametrize("patient_id", [{"a": 1}, ["pat-1"], True, " "])
def test_a_patient_id_that_is_no_identifier_is_not_sent_as_one(patient_id):
    bundle = build_bundle("wfx_1", analyze_transcript(TRANSCRIPT), {"patient_id": patient_id},
                          AT)
    assert bundle["entry"][0]["resource"]["subject"] == {"display": "Unidentified patient"}
