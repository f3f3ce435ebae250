"""Softer risk indicators, and the risk assessment built from them and crisis detection."""

from __future__ import annotations

from services.analysis.crisis import IMMINENT, CrisisAssessment, apply_safety_floor
from services.analysis.rules.document import (
    PATIENT_SIDE,
    RELAPSE_TOLD,
    Document,
    Rule,
    dedupe,
    first_affirmed,
    make_rule,
)

# ---------------------------------------------------------------------------------------------
# Softer risk indicators
# ---------------------------------------------------------------------------------------------

_SOFT_RISK_RULES: tuple[Rule, ...] = (
    make_rule("hopelessness",
          r"\bhopeless\w*|\bwhat'?s\s+the\s+point\b|\bwhy\s+(?:even\s+)?bother\b"
          r"|\bgiv(?:e|ing)\s+up\s+on\s+(?:everything|life)",
          "hopeless hopelessness point bother everything life"),
    make_rule("hopelessness",
          r"\bno\s+hope\b|\b(?:nothing'?s?|things?)\s+(?:is\s+|are\s+)?(?:never\s+)?"
          r"(?:going\s+to|gonna|will)\s+(?:ever\s+)?(?:get|change)\s+(?:any\s+)?better"
          r"|\bno\s+future\b|\bdon'?t\s+see\s+(?:a|any)\s+(?:future|way\s+out|point)"
          r"|\bno\s+way\s+out\b",
          "hope better change future way point", negation_in_pattern=True),
    make_rule("worthlessness",
          r"\bworthless\b|\bI'?m\s+(?:such\s+)?(?:a\s+)?(?:burden|useless|failure|waste"
          r"|pathetic)\b(?![\"']?\s+(?:thoughts?|thinking|belief|story|voice))"
          r"|\bburden\s+(?:to|on)\s+(?:everyone|my\s+family|them|people|you)\b"
          r"|\bhate\s+myself\b",
          "worthless burden useless failure waste pathetic hate"),
    make_rule("substance",
          r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|several|a\s+lot\s+of)\s+"
          r"(?:drinks|beers|glasses\s+of\s+wine|shots)\s+(?:a|every|each|per)\s+(?:night|day)\b"
          r"|\b(?:a|one|two)\s+bottles?\s+of\s+wine\s+(?:a|every|each|per)\s+(?:night|day)\b"
          r"|\bdrinking\s+(?:every\s+(?:night|day)|heavily|daily)\b|\bblack(?:ed|ing)?\s+out\b"
          r"|\bblackouts?\b|" + RELAPSE_TOLD
          + r"|\busing\s+again\b|\baccidental(?:ly)?\s+overdos\w+"
          r"|\boverdos\w+\s+(?:by\s+accident|accidentally)\b",
          "drinks beers wine shots drinking black blacked blacking blackout blackouts relapse"
          " relapsed using accidental accidentally overdosed overdose"),
    make_rule("loss",
          r"\bpassed\s+away\b|\b(?:mom|mother|dad|father|husband|wife|partner|son|daughter|brother"
          r"|sister|friend|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|dog|cat|he"
          r"|she|they)\s+(?:just\s+|recently\s+|suddenly\s+)?died\b|\bdeath\s+of\s+my\b"
          r"|\bfuneral\b|\blost\s+my\s+(?:job|mom|mother|dad|father"
          r"|husband|wife|partner|son|daughter|brother|sister|best\s+friend|friend|baby|home)\b"
          r"|\blaid\s+off\b|\bgot\s+fired\b|\b(?:she|he)\s+left\s+me\b|\bbroke\s+up\s+with\s+me\b"
          r"|\bdivorce\b|\bmiscarriage\b|\bevicted\b",
          "passed died death funeral lost laid fired left broke divorce miscarriage evicted"),
    make_rule("isolation",
          r"\b(?:so|really|very|completely|totally)\s+(?:lonely|isolated|alone)\b"
          r"|\bno\s+one\s+to\s+talk\s+to\b|\bnobody\s+(?:cares|would\s+notice)\b"
          r"|\bno\s+one\s+(?:cares|would\s+notice)\b",
          "lonely isolated alone talk cares notice", negation_in_pattern=True),
    make_rule("firearm",
          r"\b(?:guns?|firearms?|rifles?|pistols?|handguns?|shotguns?)\b",
          "gun guns firearm firearms rifle rifles pistol pistols handgun handguns shotgun"
          " shotguns"),
    make_rule("cant_go_on",
          r"\bcan'?t\s+(?:go\s+on|keep\s+going|do\s+this|take\s+(?:it|this))\s+(?:like\s+this\s+)?"
          r"any\s?more\b|\btired\s+of\s+(?:life|everything|it\s+all)\b|\bdark\s+thoughts\b"
          r"|\bdon'?t\s+care\s+(?:what|if\s+anything)\s+happens\s+to\s+me\b",
          "anymore more life everything all dark happens", negation_in_pattern=True),
    make_rule("selfharm_history",
          r"\bused\s+to\s+(?:cut|self[- ]harm|hurt\s+myself|burn\s+myself)\b|\bhistory\s+of\s+"
          r"(?:self[- ]harm|cutting)\b|\b(?:stopped|quit)\s+(?:cutting|self[- ]harming)\b",
          # History stays history even when followed by "but not anymore".
          "cut cutting self harm harming hurt burn", post_negation=False),
    # Threatened or hurt by someone else, told as what they said or did ("He said if I ever try
    # to leave, he will kill me"); a bare "she'll kill me if I'm late" is an idiom.
    make_rule("threatened",
          r"\b(?:said|says|told\s+me|swore|threatened|threatens|threatening)\b[^.?!]{0,60}?"
          r"\b(?:kill|hurt|shoot|strangle|choke|stab)\s+me\b"
          r"|\b(?:he|she|they|partner|husband|wife|boyfriend|girlfriend|ex)\s+(?:\w+\s+)?"
          r"(?:hit|choked|strangled|beat|punched|kicked|slapped)\s+me\b",
          "kill hurt shoot strangle choke stab hit choked strangled beat punched kicked slapped"),
    make_rule("suicide_exposure",
          r"\b(?:killed|hanged|shot)\s+(?:himself|herself|themselves)\b|\b(?:died|death)\s+by\s+"
          r"suicide\b|\bcommitted\s+suicide\b|\btook\s+(?:his|her|their)\s+(?:own\s+)?life\b"
          r"|\btried\s+to\s+kill\s+(?:himself|herself|themselves)\b"
          r"|\b(?:attempted|attempts?)\s+suicide\b",
          "himself herself themselves suicide life"),
)
_SOFT_RISK_FACTORS = {
    "hopelessness": "Hopelessness expressed",
    "worthlessness": "Worthlessness or feeling like a burden expressed",
    "substance": "Heavy or escalating substance use",
    "loss": "Recent loss or major stressor",
    "isolation": "Social isolation",
    "firearm": "Firearm access mentioned (means-safety counselling advised)",
    "cant_go_on": "Expressed feeling unable to go on (no explicit suicidal statement)",
    "selfharm_history": "History of self-harm reported",
    "suicide_exposure": "Suicide or suicide attempt by someone close to the patient",
    "threatened": "Patient reports threats or violence from another person (safety planning "
                  "for the patient's own safety advised)",
}


def find_soft_risks(doc: Document) -> list[str]:
    found = first_affirmed(doc, _SOFT_RISK_RULES, PATIENT_SIDE)
    ordered = sorted(found.items(), key=lambda item: item[1][1].start())
    return [_SOFT_RISK_FACTORS[key] for key, _match in ordered]


# ---------------------------------------------------------------------------------------------
# Risk
# ---------------------------------------------------------------------------------------------

KIND_SUMMARY = {
    "wish_to_be_dead": "a wish to be dead",
    "suicidal_ideation": "suicidal ideation",
    "method": "a suicide method",
    "intent": "suicidal intent",
    "plan": "a suicide plan",
    "past_attempt": "a past suicide attempt",
    "means_access": "access to lethal means",
    "self_harm": "self-harm",
    "homicidal_ideation": "thoughts of harming others",
    "risk_statement": "a statement read as current suicide or self-harm risk",
}


def risk_assessment(assessment: CrisisAssessment, soft_risks: list[str]) -> dict:
    crisis_factors = [signal.factor for signal in assessment.signals]
    if assessment.level is not None:
        kinds = ", ".join(KIND_SUMMARY[signal.kind] for signal in assessment.signals)
        level = assessment.level
        action = ("same-day crisis evaluation is needed" if level == IMMINENT
                  else "safety assessment and safety planning are needed")
        summary = f"{level.capitalize()} risk: the patient disclosed {kinds}; {action}."
    elif soft_risks or assessment.review:
        # A review cue alone puts the floor at moderate: the summary says so itself (it began
        # "Low risk: no … risk indicators", then "Risk level raised from low to moderate").
        level = "moderate"
        cues = [*soft_risks, *(signal.factor.removeprefix("Needs review: ").split(" ('")[0]
                               for signal in assessment.review)]
        summary = ("Moderate risk: " + "; ".join(cue[0].lower() + cue[1:] for cue in cues)
                   + ", with no suicidal or homicidal statement of the patient's own; a "
                   "clinician should follow up.")
    else:
        level = "low"
        summary = "Low risk: no crisis language or other risk indicators were identified."
    risk = {"level": level, "summary": summary, "factors": dedupe(crisis_factors + soft_risks)}
    return apply_safety_floor(risk, assessment)
