"""The FHIR R4 transaction Bundle built from an execution's analysis."""

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
