"""Tests for services.analysis.rules: output shape, determinism, the corpus expectations in
transcripts/manifest.json, and targeted rules (screener bands, medications, tasks, ...)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from services.analysis.crisis import RISK_LEVELS, detect_crisis
from services.analysis.rules import analyze_transcript

CORPUS = Path(__file__).parent / "transcripts"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))["transcripts"]
RANK = {level: rank for rank, level in enumerate(RISK_LEVELS)}
PRIORITIES = ("low", "medium", "high", "urgent")
TOP_LEVEL_KEYS = {
    "aiTasks", "visitSummary", "differentialDiagnoses", "riskAssessment", "clinicalFindings",
    "treatmentPlan", "recommendations",
}
SUMMARY_KEYS = {"topicsDiscussed", "keyFindings", "decisionsMade", "nextSteps"}
TASK_KEYS = {"id", "title", "description", "assignee", "icon", "priority", "estimatedTime"}
STRING_LIST_KEYS = ("differentialDiagnoses", "clinicalFindings", "treatmentPlan", "recommendations")

FILLER_WORDS = 5_000
MAX_TRANSCRIPT_CHARS = 200_000


def _read(entry: dict) -> str:
    return (CORPUS / entry["file"]).read_text(encoding="utf-8")


def _analyze(entry: dict) -> dict:
    return analyze_transcript(_read(entry), entry.get("context"), entry.get("vitals"))


def _ids(entry: dict) -> str:
    return entry["file"]


def _contains_all(expected: list[str], actual: list[str]) -> list[str]:
    """Expected substrings that no item of actual contains."""
    return [text for text in expected if not any(text in item for item in actual)]


def _assert_shape(result: dict) -> None:
    assert set(result) == TOP_LEVEL_KEYS
    assert set(result["visitSummary"]) == SUMMARY_KEYS
    for key in SUMMARY_KEYS:
        assert all(isinstance(item, str) and item for item in result["visitSummary"][key])
    for key in STRING_LIST_KEYS:
        assert all(isinstance(item, str) and item for item in result[key])
    risk = result["riskAssessment"]
    assert set(risk) == {"level", "summary", "factors"}
    assert risk["level"] in RISK_LEVELS
    assert isinstance(risk["summary"], str) and risk["summary"]
    assert all(isinstance(item, str) and item for item in risk["factors"])
    tasks = result["aiTasks"]
    assert [task["id"] for task in tasks] == list(range(1, len(tasks) + 1))
    for task in tasks:
        assert set(task) == TASK_KEYS
        assert type(task["id"]) is int
        assert task["priority"] in PRIORITIES
        for key in TASK_KEYS - {"id"}:
            assert isinstance(task[key], str) and task[key], key


# ---------------------------------------------------------------------------------------------
# Shape and determinism
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("entry", MANIFEST, ids=_ids)
def test_shape_for_every_corpus_transcript(entry):
    result = _analyze(entry)
    _assert_shape(result)
    json.dumps(result)  # serialisable as the endpoint's response


@pytest.mark.parametrize(
    "transcript",
    ["", "   ", "Therapist: Hi.", "?!...", "Patient:\nTherapist:\n", "x" * 1000],
)
def test_shape_for_degenerate_input(transcript):
    result = analyze_transcript(transcript)
    _assert_shape(result)
    assert result["riskAssessment"]["level"] == "low"
    assert result["aiTasks"] == []


@pytest.mark.parametrize("entry", MANIFEST[::4], ids=_ids)
def test_same_input_gives_same_output(entry):
    first = _analyze(entry)
    second = _analyze(entry)
    assert first == second
    assert json.dumps(first, sort_keys=True) == json.dumps(second, sort_keys=True)


# ---------------------------------------------------------------------------------------------
# Corpus expectations
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("entry", MANIFEST, ids=_ids)
def test_risk_level_matches_manifest(entry):
    level = _analyze(entry)["riskAssessment"]["level"]
    assert RANK[entry["expect_min_level"]] <= RANK[level] <= RANK[entry["expect_max_level"]]


@pytest.mark.parametrize("entry", MANIFEST, ids=_ids)
def test_risk_never_below_crisis_floor(entry):
    transcript = _read(entry)
    assessment = detect_crisis(transcript)
    risk = analyze_transcript(transcript)["riskAssessment"]
    if assessment.level is not None:
        assert RANK[risk["level"]] >= RANK[assessment.level]
        assert [s.factor for s in assessment.signals] == risk["factors"][: len(assessment.signals)]


@pytest.mark.parametrize("entry", [e for e in MANIFEST if e["category"] == "crisis"], ids=_ids)
def test_crisis_puts_urgent_clinician_task_first(entry):
    result = _analyze(entry)
    first = result["aiTasks"][0]
    assert first["title"] == "Complete safety plan / crisis follow-up"
    assert (first["assignee"], first["priority"], first["icon"]) == ("clinician", "urgent", "alert")
    assert result["visitSummary"]["nextSteps"][0].endswith(first["title"])
    assert any("Stanley-Brown" in item for item in result["treatmentPlan"])


# Manifest key -> where in the result the expected substrings must appear.
EXPECTATION_TARGETS = {
    "expect_findings": lambda r: r["clinicalFindings"] + r["visitSummary"]["keyFindings"],
    "expect_clinical_findings": lambda r: r["clinicalFindings"],
    "expect_key_findings": lambda r: r["visitSummary"]["keyFindings"],
    "expect_task_titles": lambda r: [task["title"] for task in r["aiTasks"]],
    "expect_next_steps": lambda r: r["visitSummary"]["nextSteps"],
    "expect_decisions": lambda r: r["visitSummary"]["decisionsMade"],
    "expect_topics": lambda r: r["visitSummary"]["topicsDiscussed"],
    "expect_differentials": lambda r: r["differentialDiagnoses"],
    "expect_factors": lambda r: r["riskAssessment"]["factors"],
    "expect_recommendations": lambda r: r["recommendations"],
    "expect_treatment_plan": lambda r: r["treatmentPlan"],
}
EXPECTATION_CASES = [
    pytest.param(entry, key, id=f"{entry['file']}-{key}")
    for entry in MANIFEST
    for key in EXPECTATION_TARGETS
    if key in entry
]


@pytest.mark.parametrize(("entry", "key"), EXPECTATION_CASES)
def test_manifest_expectations(entry, key):
    actual = EXPECTATION_TARGETS[key](_analyze(entry))
    assert _contains_all(entry[key], actual) == [], actual


@pytest.mark.parametrize("entry", [e for e in MANIFEST if "expect_task_assignees" in e], ids=_ids)
def test_manifest_task_assignees(entry):
    assignees = {task["assignee"] for task in _analyze(entry)["aiTasks"]}
    assert set(entry["expect_task_assignees"]) <= assignees


@pytest.mark.parametrize("entry", [e for e in MANIFEST if e.get("expect_no_tasks")], ids=_ids)
def test_no_task_invented_without_homework_or_follow_up(entry):
    result = _analyze(entry)
    assert result["aiTasks"] == []
    assert result["visitSummary"]["nextSteps"] == []


@pytest.mark.parametrize("entry", [e for e in MANIFEST if e.get("expect_no_differentials")],
                         ids=_ids)
def test_no_differentials_without_support(entry):
    assert _analyze(entry)["differentialDiagnoses"] == []


@pytest.mark.parametrize("entry", [e for e in MANIFEST if "expect_no_task_titles" in e], ids=_ids)
def test_manifest_absent_tasks(entry):
    titles = [task["title"] for task in _analyze(entry)["aiTasks"]]
    for unwanted in entry["expect_no_task_titles"]:
        assert not any(unwanted in title for title in titles)


def test_next_steps_mirror_tasks():
    entry = next(e for e in MANIFEST if e["file"] == "depression_phq9_sertraline.txt")
    result = _analyze(entry)
    assert result["visitSummary"]["nextSteps"] == [
        f"{task['assignee'].capitalize()}: {task['title']}" for task in result["aiTasks"]
    ]


# ---------------------------------------------------------------------------------------------
# Screeners
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("score", "band"),
    [(0, "minimal"), (4, "minimal"), (5, "mild"), (9, "mild"), (10, "moderate"),
     (14, "moderate"), (15, "moderately severe"), (19, "moderately severe"), (20, "severe"),
     (27, "severe")],
)
def test_phq9_bands(score, band):
    result = analyze_transcript(f"Therapist: Your PHQ-9 today was {score}.")
    assert f"PHQ-9 score {score} ({band} depression)" in result["clinicalFindings"]


@pytest.mark.parametrize(
    ("score", "band"),
    [(0, "minimal"), (4, "minimal"), (5, "mild"), (9, "mild"), (10, "moderate"),
     (14, "moderate"), (15, "severe"), (21, "severe")],
)
def test_gad7_bands(score, band):
    result = analyze_transcript(f"Therapist: GAD7 score of {score} this week.")
    assert f"GAD-7 score {score} ({band} anxiety)" in result["visitSummary"]["keyFindings"]


@pytest.mark.parametrize(
    "text",
    ["Therapist: Your PHQ-9 was 28.", "Therapist: GAD-7 of 22 today.", "Therapist: PHQ-2 was 9."],
)
def test_out_of_range_scores_are_ignored(text):
    result = analyze_transcript(text)
    assert not any("score" in item for item in result["clinicalFindings"])


@pytest.mark.parametrize(
    ("text", "finding"),
    [
        ("Therapist: Her PHQ-9 today was 14.", "PHQ-9 score 14 (moderate depression)"),
        ("Therapist: You scored 18 on the PHQ 9.", "PHQ-9 score 18 (moderately severe depression)"),
        ("Therapist: Your PHQ-9 went from 18 to 12.",
         "PHQ-9 score 12 (moderate depression), previously 18"),
        ("Therapist: PHQ-9 was fourteen.", "PHQ-9 score 14 (moderate depression)"),
        ("Therapist: PHQ-2 was 4.", "PHQ-2 score 4 (positive depression screen)"),
        ("Therapist: PCL-5 of 41.", "PCL-5 score 41 (probable PTSD; cut-off 33)"),
        ("Therapist: AUDIT score 9.", "AUDIT score 9 (hazardous drinking)"),
        ("Note: C-SSRS negative.", "C-SSRS screen negative"),
        # The score in the sentence after the instrument's name was lost.
        ("Clinician: I have your PHQ-9 from the waiting room. You scored 14 today.",
         "PHQ-9 score 14 (moderate depression)"),
        ("Clinician: Let us start with the GAD-7 you completed. Your total today is 16.",
         "GAD-7 score 16 (severe anxiety)"),
    ],
)
def test_screener_phrasings(text, finding):
    result = analyze_transcript(text)
    assert finding in result["visitSummary"]["keyFindings"]


@pytest.mark.parametrize(
    "text",
    [
        "Therapist: Let's repeat the PHQ-9 in 2 weeks.",
        "Patient: My company had an audit, 3 days of it.",
        "Therapist: Please fill out the GAD-7 before next session.",
        # Another speaker's number, or another sentence's subject, is no score of it.
        "Clinician: I have your PHQ-9 here.\nPatient: I scored 14 on my math test.",
        "Clinician: Fill in the PHQ-9 at home. It takes 5 minutes.",
    ],
)
def test_screener_without_score_gives_no_score(text):
    assert not any("score" in item for item in analyze_transcript(text)["clinicalFindings"])


# ---------------------------------------------------------------------------------------------
# Medications
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "finding"),
    [
        ("Patient: I'm on sertraline 50 mg.", "Medication mentioned: sertraline 50 mg"),
        ("Patient: The Zoloft 100mg makes me sleepy.",
         "Medication mentioned: sertraline 100 mg (Zoloft)"),
        ("Patient: I take 50 milligrams of sertraline.", "Medication mentioned: sertraline 50 mg"),
        ("Patient: Adderall XR 20 mg in the morning.",
         "Medication mentioned: amphetamine salts 20 mg (Adderall)"),
        ("Patient: I take clonazepam 0.5 mg at night.", "Medication mentioned: clonazepam 0.5 mg"),
        ("Patient: The Wellbutrin helps.", "Medication mentioned: bupropion (Wellbutrin)"),
        ("Patient: Escitalopram helps more than citalopram did.",
         "Medication mentioned: citalopram"),
        # The dose in the answer to a question naming the drug was dropped.
        ("Clinician: Are you still taking the mirtazapine?\nPatient: Yes, 15 milligrams at "
         "night.", "Medication mentioned: mirtazapine 15 mg"),
        # A dose asked about is no dose taken.
        ("Clinician: How is the sertraline?\nPatient: Good. Should we go up to 100 mg?",
         "Medication mentioned: sertraline"),
    ],
)
def test_medications_with_dose(text, finding):
    assert finding in analyze_transcript(text)["clinicalFindings"]


def test_escitalopram_is_not_read_as_citalopram():
    findings = analyze_transcript("Patient: I take escitalopram 10 mg.")["clinicalFindings"]
    assert findings == ["Medication mentioned: escitalopram 10 mg"]


def test_planned_medication_change_creates_prescription_task():
    transcript = (
        "Patient: The sertraline 50 mg isn't doing much.\n"
        "Psychiatrist: Let's increase the sertraline to 100 mg.\n"
    )
    result = analyze_transcript(transcript)
    assert "Medication change discussed: increase sertraline to 100 mg" in (
        result["visitSummary"]["keyFindings"]
    )
    titles = [task["title"] for task in result["aiTasks"]]
    assert titles == ["Update sertraline prescription (increase)"]
    assert "Medication: increase sertraline to 100 mg" in result["treatmentPlan"]


def test_past_change_is_not_a_new_prescription():
    transcript = "Psychiatrist: Since we increased the lithium to 900 mg, how are you?"
    result = analyze_transcript(transcript)
    assert result["aiTasks"] == []


def test_side_effects_and_missed_doses_refer_back_to_the_drug():
    transcript = (
        "Therapist: How is the venlafaxine going?\n"
        "Patient: I get dizzy in the mornings, and I missed a few doses last week.\n"
    )
    findings = analyze_transcript(transcript)["visitSummary"]["keyFindings"]
    assert "Side effects discussed: venlafaxine (dizzy)" in findings
    assert "Adherence concern: venlafaxine (missed or skipped doses)" in findings


def test_clinician_asking_about_side_effects_is_not_a_report():
    transcript = "Therapist: Any nausea or headaches on the sertraline?\nPatient: None at all."
    findings = analyze_transcript(transcript)["visitSummary"]["keyFindings"]
    assert not any(item.startswith("Side effects") for item in findings)


# ---------------------------------------------------------------------------------------------
# Symptoms
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "finding"),
    [
        ("I've only been sleeping 4 hours.", "Sleep: about 4 hours per night (reduced)"),
        ("I'm not hungry most days.", "Appetite: decreased appetite or eating less"),
        ("My mood has been low.", "Mood: low or depressed mood reported"),
        ("I've been feeling anxious all week.", "Anxiety: anxious or worried mood reported"),
        ("I have no energy.", "Energy: low energy or fatigue"),
        ("I can't focus at work.", "Concentration: difficulty concentrating"),
        ("The nightmares are back.", "Sleep: nightmares"),
        ("I've been using fentanyl again.", "Substance use: drug use or relapse reported"),
    ],
)
def test_symptoms_from_patient_statements(text, finding):
    assert finding in analyze_transcript(f"Patient: {text}")["clinicalFindings"]


@pytest.mark.parametrize(
    "text",
    ["I'm not anxious at all.", "I don't feel down.", "No nightmares lately.",
     "I used to have panic attacks, but not anymore.",
     # Use that stopped is no use now ("drug use or relapse reported").
     "I stopped using fentanyl three months ago.", "I quit smoking weed in May."],
)
def test_negated_symptoms_are_not_findings(text):
    assert analyze_transcript(f"Patient: {text}")["clinicalFindings"] == []


def test_clinician_words_are_not_patient_symptoms():
    result = analyze_transcript("Therapist: Some people feel anxious or can't focus after a loss.")
    assert result["clinicalFindings"] == []


# ---------------------------------------------------------------------------------------------
# Tasks, decisions, topics
# ---------------------------------------------------------------------------------------------

def test_homework_and_follow_up_become_tasks():
    transcript = (
        "Therapist: For homework, please complete the thought record each evening.\n"
        "Therapist: Also fill out the PHQ-9 before next session.\n"
        "Therapist: I'll send a referral to psychiatry.\n"
        "Therapist: Let's schedule a follow-up in two weeks.\n"
    )
    tasks = analyze_transcript(transcript)["aiTasks"]
    summary = [(t["title"], t["assignee"], t["icon"]) for t in tasks]
    assert summary == [
        ("Complete thought record", "patient", "clipboard"),
        ("Complete PHQ-9 before next session", "patient", "clipboard"),
        ("Send referral to psychiatry", "clinician", "phone"),
        ("Schedule follow-up in two weeks", "care team", "calendar"),
    ]


@pytest.mark.parametrize(("transcript", "titles"), [
    # "see you" of a past day's rating was the follow-up ("on Tuesday"); the real one missed.
    ("Clinician: I see you rated urges a 4 on Tuesday.\nPatient: Tuesday was bad.\n"
     "Clinician: See you next week, same time.", ["Schedule follow-up next week"]),
    ("Clinician: I'd also like to see you weekly instead of every two weeks for now.",
     ["Schedule follow-up weekly"]),
    # "Contact patient's this": a time word taken for whom to call.
    ("Clinician: Your sister sounds worried. I'll call her this afternoon.", []),
    # The title was cut at "St" (a sentence end), and at "Dr".
    ("Clinician: I will send a referral to the bereavement group at St. Mark's next month.",
     ["Send referral to bereavement group at St. Mark's"]),
    ("Clinician: I'll send a referral to Dr. Patel for a med review.",
     ["Send referral to Dr. Patel"]),
])
def test_follow_ups_contacts_and_referrals_are_titled_as_said(transcript, titles):
    assert [t["title"] for t in analyze_transcript(transcript)["aiTasks"]] == titles


def test_what_the_clinician_hands_over_sends_and_asks_to_bring_are_tasks():
    """None of these was a task (a tester's substance-use session: 0 of 5 found)."""
    transcript = ("Clinician: I will give you a new naloxone kit before you leave today. I will "
                  "send the refill to your pharmacy. Bring the job application next week. "
                  "Same day next week.")
    tasks = [(t["title"], t["assignee"]) for t in analyze_transcript(transcript)["aiTasks"]]
    assert tasks == [("Give patient naloxone kit", "clinician"),
                     ("Send refill to pharmacy", "clinician"),
                     ("Bring job application to next session", "patient"),
                     ("Schedule follow-up next week", "care team")]


@pytest.mark.parametrize("text", ["Clinician: What did you bring today?",
                                  "Clinician: That can bring up a lot of feelings.",
                                  "Patient: I'll bring the forms."])
def test_bring_in_other_senses_is_no_task(text):
    assert analyze_transcript(text)["aiTasks"] == []


def test_activity_mentioned_without_assignment_is_not_homework():
    transcript = "Therapist: Thought records can be really useful for some people."
    assert analyze_transcript(transcript)["aiTasks"] == []


def test_patient_plans_are_not_clinician_tasks():
    transcript = (
        "Patient: I'll send a referral to my cousin for this clinic. I want to try journaling."
    )
    assert analyze_transcript(transcript)["aiTasks"] == []


def test_negated_homework_is_not_a_task():
    transcript = "Therapist: You don't need to do the thought record this week."
    assert analyze_transcript(transcript)["aiTasks"] == []


def test_decisions_are_extracted():
    transcript = (
        "Therapist: We agreed to increase sertraline to 100 mg, and I'll call your pharmacy.\n"
        "Therapist: The plan is to meet weekly until things settle.\n"
        "Therapist: Should we try a different approach?\n"
    )
    decisions = analyze_transcript(transcript)["visitSummary"]["decisionsMade"]
    assert decisions == ["Increase sertraline to 100 mg", "Meet weekly until things settle"]


def test_topics_in_order_of_first_mention():
    transcript = (
        "Patient: My boss yelled at me again. Then I got home and my husband and I argued about "
        "rent. I haven't slept well."
    )
    topics = analyze_transcript(transcript)["visitSummary"]["topicsDiscussed"]
    assert topics == ["Work stress", "Relationships", "Finances", "Sleep"]


# ---------------------------------------------------------------------------------------------
# Differentials
# ---------------------------------------------------------------------------------------------

def test_phq9_without_depressive_symptoms_has_no_differential():
    assert analyze_transcript("Therapist: Your PHQ-9 was 16.")["differentialDiagnoses"] == []


def test_phq9_with_depressive_symptoms_suggests_mdd():
    transcript = "Therapist: Your PHQ-9 was 16.\nPatient: My mood has been low for weeks."
    differentials = analyze_transcript(transcript)["differentialDiagnoses"]
    assert differentials == ["Major depressive disorder (consider; PHQ-9 16)"]


def test_existing_diagnosis_suppresses_duplicate_differential():
    transcript = "Therapist: Your PHQ-9 was 16.\nPatient: My mood has been low for weeks."
    context = {"diagnoses": ["Major depressive disorder, recurrent"], "session_id": "abc"}
    result = analyze_transcript(transcript, context)
    assert result["differentialDiagnoses"] == []
    assert "Existing diagnosis: Major depressive disorder, recurrent" in (
        result["visitSummary"]["keyFindings"]
    )


def test_nightmares_with_trauma_suggest_ptsd():
    transcript = "Patient: Since the assault I have nightmares almost every night."
    assert analyze_transcript(transcript)["differentialDiagnoses"] == [
        "PTSD (consider; nightmares with trauma history)"
    ]


# ---------------------------------------------------------------------------------------------
# Risk
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "factor"),
    [
        ("Honestly, what's the point.", "Hopelessness expressed"),
        ("I feel so hopeless about all of it.", "Hopelessness expressed"),
        ("I'm such a burden to my family.", "Worthlessness or feeling like a burden expressed"),
        ("I've been drinking every night since the layoff.", "Heavy or escalating substance use"),
        ("My dad passed away last month.", "Recent loss or major stressor"),
        # A threat to kill the patient read as no risk indicator but the firearm.
        ("He said if I ever try to leave, he will kill me. He has a gun in the closet.",
         "Patient reports threats or violence from another person (safety planning for the "
         "patient's own safety advised)"),
        ("He hit me again on Saturday.", "Patient reports threats or violence from another "
         "person (safety planning for the patient's own safety advised)"),
    ],
)
def test_soft_indicators_give_moderate_risk(text, factor):
    risk = analyze_transcript(f"Patient: {text}")["riskAssessment"]
    assert risk["level"] == "moderate"
    assert factor in risk["factors"]


def test_a_review_cue_alone_is_summarised_as_moderate_not_low():
    """The summary began "Low risk: no crisis language or other risk indicators were
    identified." beside the level `moderate` the review cue set."""
    risk = analyze_transcript("Patient: I've been giving some of my books away to friends.")[
        "riskAssessment"]
    assert risk["level"] == "moderate"
    assert risk["summary"].startswith("Moderate risk: patient said goodbyes or gave things away")
    assert "Low risk" not in risk["summary"] and "raised from" not in risk["summary"]


@pytest.mark.parametrize("text", ["My mom will kill me if she finds out.",
                                  "It really hit me that she was gone."])
def test_idioms_of_killing_and_hitting_are_no_threat(text):
    assert analyze_transcript(f"Patient: {text}")["riskAssessment"]["level"] == "low"


def test_denied_hopelessness_is_low_risk():
    risk = analyze_transcript("Patient: I don't feel hopeless anymore.")["riskAssessment"]
    assert risk["level"] == "low"
    assert risk["factors"] == []


# ---------------------------------------------------------------------------------------------
# Context and vital signs
# ---------------------------------------------------------------------------------------------

def test_out_of_range_vitals_become_findings():
    vitals = {"heart_rate": 110, "blood_pressure": "150/95", "spo2": 97, "temperature": 38.4}
    findings = analyze_transcript("Patient: Fine.", vital_signs=vitals)["clinicalFindings"]
    assert findings == [
        "Elevated heart rate (110 bpm)",
        "Elevated blood pressure (150/95 mmHg)",
        "Fever (38.4 C)",
    ]


def test_normal_or_malformed_vitals_add_nothing():
    normal = {"heart_rate": 72, "blood_pressure": "118/76", "respiratory_rate": 14}
    assert analyze_transcript("Patient: Fine.", vital_signs=normal)["clinicalFindings"] == []
    odd = {"heart_rate": "fast", "blood_pressure": 120, "spo2": None, "bmi": True}
    assert analyze_transcript("Patient: Fine.", vital_signs=odd)["clinicalFindings"] == []


def test_malformed_context_is_ignored():
    result = analyze_transcript("Patient: Fine.", {"diagnoses": 5, "patient_age": "old"})
    _assert_shape(result)
    assert result["visitSummary"]["keyFindings"] == []


# ---------------------------------------------------------------------------------------------
# Size (speed is measured in bench/analysis_overhead.py, not here)
# ---------------------------------------------------------------------------------------------

def _long_transcript(words: int) -> str:
    texts = [_read(e) for e in MANIFEST]
    parts: list[str] = []
    while sum(len(part.split()) for part in parts) < words:
        parts.append(texts[len(parts) % len(texts)])
    return "\n".join(parts)


def test_maximum_size_transcript():
    transcript = (_long_transcript(FILLER_WORDS) * 10)[:MAX_TRANSCRIPT_CHARS]
    result = analyze_transcript(transcript)
    _assert_shape(result)
    assert result["riskAssessment"]["level"] == "imminent"


def test_a_relapse_prevention_plan_and_a_thought_to_catch_are_no_findings():
    # A termination session: "relapse prevention plan" was reported as drug use or relapse
    # (with AUDIT/DAST screening recommended), the "I'm a failure" thoughts the patient learnt
    # to catch as worthlessness and a burden (moderate risk).
    result = analyze_transcript(
        "Clinician: What helped most?\n"
        "Patient: Learning to catch the \"I'm a failure\" thoughts, and the gym.\n"
        "Clinician: And if the old signs come back?\n"
        "Patient: Pull out my relapse prevention plan and call you to book a booster.")
    assert result["riskAssessment"]["level"] == "low"
    findings = " ".join(result["clinicalFindings"] + result["recommendations"]).lower()
    assert "substance" not in findings and "audit" not in findings


def test_relapse_told_is_still_a_finding():
    result = analyze_transcript("Clinician: How was the week?\nPatient: I relapsed on Saturday.")
    assert "Substance use: drug use or relapse reported" in result["clinicalFindings"]


def test_an_emergency_evaluation_today_is_an_urgent_task_not_homework():
    # It was "Complete assigned homework", medium, "1 week".
    tasks = analyze_transcript(
        "Clinician: I'd also like you to go for an emergency evaluation today at County "
        "Hospital, and I'll call ahead.\nPatient: Okay.")["aiTasks"]
    assert [(t["title"], t["priority"], t["estimatedTime"]) for t in tasks] == [
        ("Go for an emergency evaluation today", "urgent", "today")]


def test_the_er_as_a_step_of_a_safety_plan_is_no_task_for_today():
    tasks = analyze_transcript("Clinician: If things get worse this weekend, go to the "
                               "emergency room or call 988.\nPatient: Okay.")["aiTasks"]
    assert "Go for an emergency evaluation today" not in [t["title"] for t in tasks]


@pytest.mark.parametrize("transcript, expected, not_expected", [
    # "start prazosin" from the prescriber named beside a decision to continue it.
    ("Clinician: Please continue the prazosin Dr. Lee prescribed.\nPatient: Okay.",
     "Medication continued: prazosin", "Medication change discussed: start prazosin"),
    # A change made before the session was a change discussed in it.
    ("Clinician: How have you felt since we increased the lithium to 900?\nPatient: Steadier.",
     "Earlier medication change mentioned: increase lithium", "Medication change discussed"),
    # A change to ask the prescriber about is no decision (it made an "Update prescription"
    # task).
    ("Clinician: I'd like to talk with Dr. Ortiz about increasing the sertraline.\n"
     "Patient: Okay.", "Medication change to consider: increase sertraline",
     "Medication change discussed"),
])
def test_medication_changes_are_told_as_decided_made_before_or_to_consider(
        transcript, expected, not_expected):
    result = analyze_transcript(transcript)
    findings = result["visitSummary"]["keyFindings"]
    assert expected in findings and not any(not_expected in f for f in findings)
    assert not any(t["title"].startswith("Update") for t in result["aiTasks"])
