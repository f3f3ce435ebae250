"""The rules analyzer's entry point: read the transcript once, run every section, assemble
the analysis shape and apply the safety floor."""

from __future__ import annotations

from collections.abc import Mapping

from services.analysis.crisis import assess_turns
from services.analysis.rules.decisions import find_decisions, find_topics
from services.analysis.rules.document import PATIENT_SIDE, Document, dedupe, first_affirmed
from services.analysis.rules.medications import find_medications, medication_key_findings
from services.analysis.rules.plan import (
    SUPPORT_RULES,
    Facts,
    differentials,
    plan_and_recommendations,
)
from services.analysis.rules.risk import KIND_SUMMARY, find_soft_risks, risk_assessment
from services.analysis.rules.screeners import ScreenerResult, find_screeners
from services.analysis.rules.symptoms import find_symptoms
from services.analysis.rules.tasks import build_tasks, next_steps
from services.analysis.rules.vitals import context_strings, patient_age, vital_findings
from services.analysis.transcript import normalize_text, split_turns

# ---------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------

def analyze_transcript(transcript: str, clinical_context: dict | None = None,
                       vital_signs: dict | None = None) -> dict:
    """Deterministic analysis; returns exactly the analysis shape (all keys present).

    ``clinical_context`` may hold "diagnoses" and "medications" (lists of strings) and
    "patient_age"; other keys (session_id, template_id, ...) are ignored. ``vital_signs`` may
    hold heart_rate, blood_pressure ("150/95"), respiratory_rate, oxygen_saturation,
    temperature and bmi; only out-of-range values are reported.
    """
    text = normalize_text(transcript if isinstance(transcript, str) else "")
    context = clinical_context if isinstance(clinical_context, Mapping) else {}
    vitals = vital_signs if isinstance(vital_signs, Mapping) else {}
    turns = split_turns(text)
    doc = Document(turns)
    assessment = assess_turns(turns)
    screener_list, cssrs = find_screeners(doc)
    meds = find_medications(doc)
    symptoms, chronic_sleep_problem = find_symptoms(doc)
    tasks = build_tasks(doc, assessment, meds)
    facts = Facts(
        support=frozenset(first_affirmed(doc, SUPPORT_RULES, PATIENT_SIDE)),
        screeners={result.name: result for result in screener_list},
        symptoms=symptoms,
        chronic_sleep_problem=chronic_sleep_problem,
        soft_risks=find_soft_risks(doc),
        meds=meds,
        assessment=assessment,
        diagnoses=context_strings(context, "diagnoses"),
        age=patient_age(context),
        vitals=vital_findings(vitals),
        tasks=tasks,
    )
    plan, recommendations = plan_and_recommendations(facts)
    return {
        "aiTasks": tasks,
        "visitSummary": {
            "topicsDiscussed": find_topics(doc, meds),
            "keyFindings": _key_findings(facts, screener_list, cssrs),
            "decisionsMade": find_decisions(doc),
            "nextSteps": next_steps(tasks),
        },
        "differentialDiagnoses": differentials(facts),
        "riskAssessment": risk_assessment(assessment, facts.soft_risks),
        "clinicalFindings": _clinical_findings(facts, screener_list, context),
        "treatmentPlan": plan,
        "recommendations": recommendations,
    }


def _key_findings(facts: Facts, screeners: list[ScreenerResult], cssrs: list[str]) -> list[str]:
    findings = []
    if facts.assessment.level is not None:
        kinds = ", ".join(KIND_SUMMARY[s.kind] for s in facts.assessment.signals)
        findings.append(f"Crisis language detected ({kinds}); risk level {facts.assessment.level}")
    findings += [result.finding for result in screeners]
    findings += cssrs
    findings += medication_key_findings(facts.meds)
    findings += [f"Existing diagnosis: {diagnosis}" for diagnosis in facts.diagnoses]
    return dedupe(findings)


def _clinical_findings(facts: Facts, screeners: list[ScreenerResult],
                       context: Mapping) -> list[str]:
    findings = [result.finding for result in screeners]
    findings += [f"Medication mentioned: {med.label}" for med in facts.meds]
    findings += [
        f"Current medication (chart): {item}" for item in context_strings(context, "medications")
    ]
    findings += list(facts.symptoms.values())
    findings += facts.vitals
    return dedupe(findings)
