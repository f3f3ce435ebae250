"""Decisions ("we agreed ...", "the plan is to ...") and discussion topics."""

from __future__ import annotations

import re

from services.analysis.rules.document import (
    ALL_ROLES,
    Document,
    Rule,
    dedupe,
    make_rule,
    shorten,
    word_rule,
)
from services.analysis.rules.medications import Medication
from services.analysis.rules.tasks import clinician_matches
from services.analysis.transcript import is_negated

MAX_DECISION_CHARS = 140


# ---------------------------------------------------------------------------------------------
# Decisions and topics
# ---------------------------------------------------------------------------------------------

_DECISION_VERBS = (
    r"(?:increase|decrease|continue|start(?!\s+(?:by|with|off)\b)|stop|switch|keep(?!\s+an\s+eye)"
    r"|add|taper|hold|try"
    r"|reduce|move|begin|meet|schedule|use|revisit|pause|wait)"
)
# Agreements count from anyone in the room (partners in couples work agree on things too).
_AGREEMENT = make_rule(
    "agreement",
    r"\b(?:(?:you\s+and\s+I|we)\s+(?:both\s+|all\s+)?agreed(?:\s+(?:that|to|on))?"
    r"|we(?:'ve|\s+have)?\s+(?:both\s+)?decided(?:\s+(?:that|to|on))?)\s*",
    "agreed decided",
)
# Plans announced in the clinician's voice.
_DECISION = make_rule(
    "decision",
    r"\b(?:(?:the\s+)?plan\s+is\s+to|(?:the\s+)?decision\s+(?:is|was)\s+"
    r"to|agreed\s+to|we'?ll\s+(?:go\s+ahead\s+and\s+)?(?=" + _DECISION_VERBS + r")|we\s+(?:will"
    r"|are\s+going\s+to|'re\s+going\s+to)\s+(?=" + _DECISION_VERBS + r")|let'?s\s+(?:go\s+ahead"
    r"\s+and\s+)?(?=" + _DECISION_VERBS + r"))\s*",
    "agreed decided plan decision ll will going let",
)


# A decision ends where the sentence moves on to another action ("..., and I'll send ...").
_DECISION_END_RE = re.compile(
    r"[;:]|,?\s+(?:and|but|so|then)\s+(?:I|I'll|I'm|you|you'll|we|we'll|let's)\b", re.IGNORECASE
)


def _decision_matches(doc: Document) -> list[tuple[int, re.Match[str]]]:
    found = [
        (number, match)
        for number, match in doc.finditer(_AGREEMENT.regex, _AGREEMENT.anchors, ALL_ROLES)
        if not is_negated(doc.text, match.start())
    ]
    found += clinician_matches(doc, _DECISION)
    return sorted(found, key=lambda item: item[1].start())


def find_decisions(doc: Document) -> list[str]:
    decisions = []
    for number, match in _decision_matches(doc):
        sentence = doc.sentences[number]
        if doc.text[sentence.start:sentence.end].rstrip().endswith("?"):
            continue
        rest = _DECISION_END_RE.split(doc.text[match.end():sentence.end], maxsplit=1)[0]
        rest = rest.strip().rstrip(".!")
        if len(rest.split()) < 2:
            continue
        decisions.append(shorten(rest[0].upper() + rest[1:], MAX_DECISION_CHARS))
    return dedupe(decisions)


_TOPIC_RULES: tuple[Rule, ...] = (
    word_rule("Work stress",
               "at work|from work|to work|after work|my work|work stress|workload|workplace|job"
               "|jobs|boss|coworker|coworkers|co-worker|co-workers|deadline|deadlines|manager"
               "|office|laid off|layoffs|overtime|shift|shifts|career|promotion|got fired"
               "|performance review"),
    word_rule("Relationships",
               "partner|boyfriend|girlfriend|husband|wife|spouse|fiance|fiancee|marriage"
               "|married|relationship|relationships|dating|divorce|divorced|breakup|break up"
               "|broke up|separated|separation|couples|argument|arguments|arguing|fight|fights"
               "|fighting|communication"),
    word_rule("Family",
               "mom|mother|dad|father|parents|parent|sister|sisters|brother|brothers|sibling"
               "|siblings|kids|children|son|daughter|family|in-laws|grandmother|grandma"
               "|grandfather|grandpa|stepdad|stepmom"),
    word_rule("Sleep", "sleep|sleeping|slept|insomnia|nightmares|nightmare|bedtime|awake|naps"),
    make_rule("Grief and loss",
          r"\b(?:passed\s+away|died|death|funeral|grief|grieving|bereave\w*|miscarriage"
          r"|widow(?:ed|er)?|anniversary\s+of|lost\s+my\s+(?:mom|mother|dad|father|husband|wife"
          r"|son|daughter|brother|sister|partner|baby|best\s+friend))\b"
          r"|(?<!weight\s)(?<!hair\s)(?<!memory\s)(?<!hearing\s)(?<!blood\s)\bloss\b",
          "passed died death funeral grief grieving bereavement bereaved miscarriage widow"
          " widowed widower anniversary lost loss"),
    word_rule("Substance use",
               "drink|drinks|drinking|drank|alcohol|beer|beers|wine|vodka|whiskey|liquor|weed"
               "|cannabis|marijuana|edibles|vaping|cocaine|meth|heroin|fentanyl|opioids|opioid"
               "|sober|sobriety|relapse|relapsed|AA meeting|AA meetings|sponsor|using again"
               "|hungover|hangover|blackout|blackouts|cravings|craving"),
    word_rule("Trauma",
               "trauma|traumatic|abuse|abused|abusive|assault|assaulted|flashbacks|flashback"
               "|PTSD|combat|deployment|deployed|molested|violence|violent|car accident|PCL-5"
               "|PCL5"),
    word_rule("Anxiety",
               "anxiety|anxious|panic|panicky|worry|worries|worried|worrying|nervous|on edge"
               "|overwhelmed"),
    word_rule("Depression",
               "depression|depressed|depressive|low mood|hopeless|hopelessness|sad|sadness"
               "|empty|numb|PHQ-9|PHQ9|PHQ 9"),
    word_rule("Medication",
               "medication|medications|meds|prescription|prescribed|dose|doses|dosage|refill"
               "|refills|side effects|side effect|pharmacy"),
    word_rule("School",
               "school|class|classes|exam|exams|finals|midterm|midterms|college|university"
               "|grades|teacher|teachers|professor|semester|GPA"),
    word_rule("Finances",
               "money|rent|bills|debt|finances|financial|financially|paycheck|afford|mortgage"
               "|loan|loans|budget|evicted|eviction"),
    word_rule("Safety and suicide risk",
               "suicide|suicidal|kill myself|kill yourself|killing myself|self-harm|self harm"
               "|cutting myself|hurt myself|hurt yourself|hurting myself|safety plan"
               "|end my life|want to die|better off dead|988|crisis line"),
    word_rule("Attention and focus",
               "ADHD|attention|focus|focusing|concentrate|concentration|distracted|distractible"
               "|hyperactive|impulsive|procrastinating|procrastination"),
    word_rule("Anger", "anger|angry|rage|furious|irritable|irritability|temper"),
    word_rule("Self-esteem",
               "self-esteem|self esteem|worthless|confidence|self-worth|not good enough|failure"
               "|hate myself"),
    word_rule("Eating and appetite",
               "appetite|binge|binging|bingeing|purging|body image|calories|not eating"),
    word_rule("Loneliness and isolation", "lonely|loneliness|isolated|isolating|isolation"),
    word_rule("Pregnancy and postpartum",
               "pregnant|pregnancy|postpartum|newborn|breastfeeding"),
    word_rule("Physical health",
               "chronic pain|pain|surgery|cancer|diabetes|migraine|migraines|illness"
               "|blood pressure"),
)


def find_topics(doc: Document, meds: list[Medication]) -> list[str]:
    first: dict[str, int] = {}
    for rule in _TOPIC_RULES:
        for _number, match in doc.finditer(rule.regex, rule.anchors, ALL_ROLES):
            first[rule.key] = match.start()
            break
    if meds and "Medication" not in first:
        first["Medication"] = len(doc.text)
    return [topic for topic, _position in sorted(first.items(), key=lambda item: item[1])]
