"""Differential diagnoses, treatment plan and recommendations from the facts found."""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.analysis.crisis import HOMICIDAL_IDEATION, IMMINENT, CrisisAssessment
from services.analysis.rules.document import (
    ASSIGNEE_PATIENT,
    PCL5_PROBABLE_PTSD,
    Rule,
    dedupe,
    make_rule,
)
from services.analysis.rules.medications import ANTIDEPRESSANTS, Medication
from services.analysis.rules.screeners import ScreenerResult
from services.analysis.rules.symptoms import (
    DEPRESSIVE_CORE_KEYS,
    NEUROVEGETATIVE_KEYS,
    SLEEP_PROBLEM_KEYS,
    SUBSTANCE_KEYS,
)

# Standard cut-offs used by the differentials and recommendations.
PHQ9_CLINICAL_CUTOFF = 10
PHQ9_MEDICATION_REVIEW_CUTOFF = 15
GAD7_CLINICAL_CUTOFF = 10
AUDIT_HARMFUL_CUTOFF = 16
ULTRA_SHORT_SCREEN_CUTOFF = 3  # PHQ-2 and GAD-2
MINOR_AGE = 18
# Patient statements that support a differential beyond a screener score.
SUPPORT_RULES: tuple[Rule, ...] = (
    make_rule("trauma",
          r"\b(?:trauma\w*|assault\w*|abuse[d]?|abusive|combat|deploy\w*|accident|attack(?:ed)?"
          r"|raped?|molest\w*|violence|shooting|PTSD|convoy|IED)\b",
          "trauma traumatic traumatized assault assaulted abuse abused abusive combat deploy"
          " deployed deployment accident attack attacked rape raped molested violence shooting"
          " ptsd convoy ied"),
    make_rule("alcohol_problem",
          r"\b(?:blackouts?|blacked\s+out|withdrawal|shakes|can'?t\s+stop\s+drinking|cut\s+(?:back"
          r"|down)\s+on\s+(?:drinking|alcohol)|drink\s+in\s+the\s+morning|cravings?)\b",
          "blackout blackouts blacked withdrawal shakes drinking alcohol drink craving cravings"),
    make_rule("panic_disorder",
          r"\bpanic\s+attacks\b[^.?!]{0,80}\b(?:out\s+of\s+nowhere|for\s+no\s+reason|unexpected\w*"
          r"|another\s+one|next\s+one)|\b(?:worried|afraid|scared|terrified)\s+(?:about\s+|of\s+)?"
          r"(?:having\s+)?(?:another|the\s+next)\s+(?:panic\s+)?attack",
          "panic worried afraid scared terrified"),
)
# Existing diagnoses that make a "consider" differential redundant.
_DIAGNOSIS_SYNONYMS = {
    "mdd": re.compile(r"depress|\bMDD\b|F3[23]", re.IGNORECASE),
    "gad": re.compile(r"generali[sz]ed\s+anxiety|\bGAD\b|F41\.1", re.IGNORECASE),
    "ptsd": re.compile(r"PTSD|post-?traumatic|F43\.1", re.IGNORECASE),
    "aud": re.compile(r"alcohol|\bAUD\b|F10", re.IGNORECASE),
    "insomnia": re.compile(r"insomnia|G47\.0|F51\.0", re.IGNORECASE),
    "panic": re.compile(r"panic|F41\.0", re.IGNORECASE),
}


@dataclass(frozen=True)
class Facts:
    """Everything the derived sections are built from."""

    # Keys of SUPPORT_RULES found in the patient's statements.
    support: frozenset[str]
    screeners: dict[str, ScreenerResult]
    symptoms: dict[str, str]
    chronic_sleep_problem: bool
    soft_risks: list[str]
    meds: list[Medication]
    assessment: CrisisAssessment
    diagnoses: list[str]
    age: int | None
    vitals: list[str]
    tasks: list[dict]


def _already_diagnosed(facts: Facts, key: str) -> bool:
    return any(_DIAGNOSIS_SYNONYMS[key].search(diagnosis) for diagnosis in facts.diagnoses)


def _score(facts: Facts, name: str) -> int | None:
    result = facts.screeners.get(name)
    return None if result is None else result.score


def _depression_supported(facts: Facts) -> bool:
    keys = set(facts.symptoms)
    return bool(keys & DEPRESSIVE_CORE_KEYS) or len(keys & NEUROVEGETATIVE_KEYS) >= 2


def differentials(facts: Facts) -> list[str]:
    found = []
    phq9, phq2 = _score(facts, "PHQ-9"), _score(facts, "PHQ-2")
    if not _already_diagnosed(facts, "mdd") and _depression_supported(facts):
        if phq9 is not None and phq9 >= PHQ9_CLINICAL_CUTOFF:
            found.append(f"Major depressive disorder (consider; PHQ-9 {phq9})")
        elif phq9 is None and phq2 is not None and phq2 >= ULTRA_SHORT_SCREEN_CUTOFF:
            found.append(f"Depressive disorder (consider; positive PHQ-2 {phq2})")
    gad7, gad2 = _score(facts, "GAD-7"), _score(facts, "GAD-2")
    if not _already_diagnosed(facts, "gad"):
        if gad7 is not None and gad7 >= GAD7_CLINICAL_CUTOFF:
            found.append(f"Generalized anxiety disorder (consider; GAD-7 {gad7})")
        elif gad7 is None and gad2 is not None and gad2 >= ULTRA_SHORT_SCREEN_CUTOFF:
            found.append(f"Anxiety disorder (consider; positive GAD-2 {gad2})")
    if not _already_diagnosed(facts, "panic") and "panic_disorder" in facts.support:
        found.append("Panic disorder (consider; recurrent panic attacks with anticipatory worry)")
    pcl5 = _score(facts, "PCL-5")
    trauma = "flashbacks" in facts.symptoms or "trauma" in facts.support
    if not _already_diagnosed(facts, "ptsd"):
        if pcl5 is not None and pcl5 >= PCL5_PROBABLE_PTSD:
            found.append(f"PTSD (consider; PCL-5 {pcl5})")
        elif "nightmares" in facts.symptoms and trauma:
            found.append("PTSD (consider; nightmares with trauma history)")
    audit = _score(facts, "AUDIT")
    if not _already_diagnosed(facts, "aud"):
        if audit is not None and audit >= AUDIT_HARMFUL_CUTOFF:
            found.append(f"Alcohol use disorder (consider; AUDIT {audit})")
        elif "alcohol_heavy" in facts.symptoms and "alcohol_problem" in facts.support:
            found.append("Alcohol use disorder (consider; heavy use with loss-of-control signs)")
    if not _already_diagnosed(facts, "insomnia") and facts.chronic_sleep_problem:
        found.append("Insomnia disorder (consider; persistent sleep difficulty)")
    return found


def _crisis_plan(facts: Facts) -> tuple[list[str], list[str]]:
    assessment = facts.assessment
    if assessment.level is None:
        return [], []
    plan = [
        "Complete Stanley-Brown safety plan with the patient",
        "Means restriction counselling (firearms, stockpiled medication)",
        "Increase contact: crisis check-in within 24-72 hours",
    ]
    recommendations = [
        "Provide 988 Suicide & Crisis Lifeline information",
        "Document C-SSRS screening and risk formulation",
        "Consult supervisor or psychiatry about level of care",
    ]
    if assessment.level == IMMINENT:
        plan.insert(0, "Same-day crisis evaluation; do not end contact without a safety plan")
        recommendations.insert(0, "Arrange emergency evaluation if safety cannot be ensured")
    if any(signal.kind == HOMICIDAL_IDEATION for signal in assessment.signals):
        plan.append("Assess homicidal risk and duty-to-warn/protect obligations")
    if facts.age is not None and facts.age < MINOR_AGE:
        recommendations.append("Involve parent or guardian in safety planning (patient is a minor)")
    return plan, recommendations


def _screener_plan(facts: Facts) -> tuple[list[str], list[str]]:
    plan: list[str] = []
    recommendations: list[str] = []
    phq9 = _score(facts, "PHQ-9")
    if phq9 is not None and phq9 >= PHQ9_CLINICAL_CUTOFF:
        plan.append(
            "Evidence-based psychotherapy for depression (e.g. CBT, behavioural activation)"
        )
        recommendations.append("Repeat PHQ-9 in 2-4 weeks")
        if phq9 >= PHQ9_MEDICATION_REVIEW_CUTOFF:
            on_antidepressant = any(med.generic in ANTIDEPRESSANTS for med in facts.meds)
            recommendations.append(
                "Review antidepressant dose and adherence with prescriber" if on_antidepressant
                else "Consider psychiatric medication evaluation"
            )
    gad7 = _score(facts, "GAD-7")
    if gad7 is not None and gad7 >= GAD7_CLINICAL_CUTOFF:
        plan.append("CBT for anxiety (e.g. worry exposure, relaxation training)")
        recommendations.append("Repeat GAD-7 in 2-4 weeks")
    pcl5 = _score(facts, "PCL-5")
    if (pcl5 is not None and pcl5 >= PCL5_PROBABLE_PTSD) or "flashbacks" in facts.symptoms:
        plan.append("Consider trauma-focused therapy (CPT or PE)")
    return plan, recommendations


def _symptom_plan(facts: Facts) -> tuple[list[str], list[str]]:
    plan: list[str] = []
    recommendations: list[str] = []
    keys = set(facts.symptoms)
    if keys & SLEEP_PROBLEM_KEYS:
        plan.append("Sleep hygiene review; consider CBT-I")
    if keys & SUBSTANCE_KEYS:
        plan.append("Motivational interviewing for substance use")
        if "AUDIT" not in facts.screeners and "AUDIT-C" not in facts.screeners:
            recommendations.append("Screen with AUDIT (alcohol) or DAST-10 (drugs)")
    if facts.assessment.level is None and facts.soft_risks:
        recommendations.append("Re-screen suicide risk (C-SSRS) at the next visit")
    return plan, recommendations


def _medication_plan(facts: Facts) -> tuple[list[str], list[str]]:
    plan = [
        f"Medication: {change.phrase}"
        for med in facts.meds
        for change in med.changes
        if change.is_new_prescription
    ]
    recommendations = []
    if any(med.side_effects for med in facts.meds):
        recommendations.append("Review medication side effects with prescriber")
    if any(med.adherence for med in facts.meds):
        recommendations.append("Discuss adherence barriers (reminders, pill organiser)")
    return plan, recommendations


def plan_and_recommendations(facts: Facts) -> tuple[list[str], list[str]]:
    plan: list[str] = []
    recommendations: list[str] = []
    for part in (_crisis_plan, _screener_plan, _symptom_plan, _medication_plan):
        part_plan, part_recommendations = part(facts)
        plan += part_plan
        recommendations += part_recommendations
    plan += [
        f"Homework: {task['title']}" for task in facts.tasks
        if task["assignee"] == ASSIGNEE_PATIENT
    ]
    if facts.vitals:
        recommendations.append("Share abnormal vital signs with primary care")
    return dedupe(plan), dedupe(recommendations)
