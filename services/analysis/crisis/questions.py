"""Clinician turns: the screening question they ask, the findings they document, and whether
the patient's answer to a screening question is a plain "yes".

A clinician question about suicide or self-harm ("Any thoughts of ending your life?") is never
a signal itself, but a plainly affirmative answer ("Yeah, sometimes") is reported as the
asked-about kind. Clinician turns otherwise count only where they document the patient
("Patient reports active SI with a plan").
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from services.analysis.crisis.patterns import FIREARM, FIREARM_WORDS
from services.analysis.crisis.signals import (
    HOMICIDAL_IDEATION,
    INTENT,
    MAX_QUOTE_WORDS,
    MEANS_ACCESS,
    METHOD,
    PAST_ATTEMPT,
    PLAN,
    SELF_HARM,
    SUICIDAL_IDEATION,
    WISH_TO_BE_DEAD,
)
from services.analysis.transcript import CLAUSE_BOUNDARY_RE, prefix_negates

# Answer words inspected when deciding whether a reply to a screening question is a "yes".
ANSWER_WINDOW_WORDS = 6
_TOKEN_RE = re.compile(r"[a-z0-9]+")

_KIND_TOPIC = {
    WISH_TO_BE_DEAD: "a wish to be dead",
    SUICIDAL_IDEATION: "suicidal thoughts",
    METHOD: "a suicide method",
    INTENT: "intent to act on suicidal thoughts",
    PLAN: "a suicide plan",
    PAST_ATTEMPT: "past suicide attempts",
    MEANS_ACCESS: "access to lethal means",
    SELF_HARM: "self-harm",
    HOMICIDAL_IDEATION: "thoughts of harming others",
}

_SENTENCE_RE = re.compile(r"[^.!?\n]+[.!?]*")
_QUESTION_START_RE = re.compile(
    r"^\s*(?:have|has|do|does|did|are|is|was|were|would|will|could|any|how\s+often|when)\b",
    re.IGNORECASE,
)
# Priority order: the first topic a question matches is the kind a "yes" confirms. Each topic
# lists words one of which its pattern needs, so most questions skip the regex entirely.
_QUESTION_TOPICS: tuple[tuple[str, re.Pattern[str], frozenset[str]], ...] = tuple(
    (kind, re.compile(regex, re.IGNORECASE), frozenset(words.split()))
    for kind, regex, words in (
        (INTENT, r"\b(?:intend|intention|intent|act\s+on|going\s+to\s+(?:do|act))\b",
         "intend intention intent act"),
        (PLAN, r"\bplan(?:s|ned)?\b|\bwhen\s+and\s+where\b|\bworked\s+out\s+(?:the\s+)?details\b",
         "plan plans planned where details"),
        (METHOD, r"\bhow\s+(?:you\s+)?(?:would|might|could|'d)\s+(?:do|kill|end)\b|\bmethod\b",
         "how method"),
        (PAST_ATTEMPT, r"\b(?:tried|attempted)\s+to\s+(?:kill|end|take)\b|\battempt(?:ed|s)?\b"
                       r"|\bdone\s+anything\b.{0,40}\b(?:end\s+your\s+life|kill\s+yourself)",
         "tried attempted attempt attempts anything"),
        (MEANS_ACCESS, r"\baccess\s+to\b|\b(?:any|have|own|keep|are\s+there)\s+(?:\w+\s+){0,3}?"
                       + FIREARM + r"\b|\b" + FIREARM + r"\s+(?:in|at)\s+(?:the|your)\s+"
                       r"(?:home|house)\b|\bstockpil\w*|\bsaving\s+(?:up\s+)?(?:your\s+)?"
                       r"(?:pills|meds)",
         "access stockpile stockpiled stockpiling saving " + FIREARM_WORDS),
        (SUICIDAL_IDEATION, r"\b(?:kill|killing)\s+yourself\b|\bsuicid\w*|\b(?:end|ending|take"
                            r"|taking)\s+your\s+(?:own\s+)?life\b|\bending\s+it\b",
         "yourself suicide suicidal suicidality life ending"),
        (SELF_HARM, r"\b(?:hurt|harm|hurting|harming|cut|cutting|burn|burning|injur\w*)\s+"
                    r"yourself\b|\bself[- ]?harm",
         "yourself self selfharm"),
        (HOMICIDAL_IDEATION, r"\b(?:hurt|harm|kill|hurting|harming|killing)\s+(?:someone|anyone"
                             r"|anybody|others|other\s+people)\b|\bhomicid",
         "someone anyone anybody others other homicidal"),
        (WISH_TO_BE_DEAD, r"\bwish(?:ed)?\s+you\s+(?:were|was)\s+dead\b|\bbetter\s+off\s+dead\b"
                          r"|\bnot\s+wake\s+up\b|\bwant(?:ed)?\s+to\s+die\b"
                          r"|\b(?:want|wanted)\s+to\s+(?:live|be\s+alive)\b",
         "dead wake die live alive"),
    )
)
_QUESTION_WORDS = frozenset().union(*(words for _kind, _regex, words in _QUESTION_TOPICS))
# Kinds a question can be about without earlier context; "Do you have a plan?" alone is not
# a suicide question, but "Are there guns in the house?" is a standard screening item.
_CORE_QUESTION_KINDS = frozenset(
    {SELF_HARM, HOMICIDAL_IDEATION, SUICIDAL_IDEATION, WISH_TO_BE_DEAD, MEANS_ACCESS, PAST_ATTEMPT}
)
_AFFIRMATIVE_RE = re.compile(
    r"^\W*(?:(?:um+|uh+|well|honestly|i\s+mean|i\s+guess|hmm+|so|okay|ok|i\s+think|to\s+be\s+honest"
    r"|truthfully)\W+)*"
    r"(?:yes|yeah|yea|yep|yup|mm-?hmm|uh-?huh|sometimes|a\s+little|a\s+bit|kind\s+of|sort\s+of"
    r"|kinda|i\s+have|i\s+do|i\s+did|i\s+am|i've\s+had|lately|more\s+than\s+once|every\s+day"
    r"|a\s+lot|often|maybe|probably|i\s+think\s+so|not\s+gonna\s+lie|definitely|constantly"
    r"|all\s+the\s+time|once|twice|there\s+(?:is|are|was)|more\s+than\s+i'?d\s+like"
    r"|more\s+(?:often\s+)?than\s+i\s+(?:want|care)\s+to\s+admit|too\s+often|a\s+few\s+times"
    r"|(?:most|some)\s+(?:days|nights)|here\s+and\s+there|on\s+and\s+off|off\s+and\s+on"
    r"|now\s+and\s+then|every\s+(?:day|night))\b",
    re.IGNORECASE,
)
_DOCUMENTATION_RE = re.compile(r"\b(?:patient|client|pt)\b|^\s*(?:endorses|reports|denies|states"
                               r"|admits|discloses)\b", re.IGNORECASE)
_SECOND_PERSON_RE = re.compile(r"\b(?:you|your|you're|you've)\b", re.IGNORECASE)
# Turn-level pre-check for _DOCUMENTATION_RE, which anchors some words at a sentence start.
_DOCUMENTATION_WORD_RE = re.compile(
    r"\b(?:patient|client|pt|endorses|reports|denies|states|admits|discloses)\b", re.IGNORECASE
)


_BARE_PLAN_QUESTION_RE = re.compile(
    r"\b(?:do|did)\s+you\s+(?:have|make)\s+a\s+plan\s*\??\s*$", re.IGNORECASE
)


def question_kind(turn_text: str, context: bool) -> str | None:
    """The crisis topic of the clinician's last screening question in a turn, if any."""
    if _QUESTION_WORDS.isdisjoint(_TOKEN_RE.findall(turn_text.lower())):
        return None
    questions = [
        sentence for sentence in _SENTENCE_RE.findall(turn_text)
        if sentence.rstrip().endswith("?") or _QUESTION_START_RE.match(sentence)
    ]
    for question in reversed(questions):
        if _BARE_PLAN_QUESTION_RE.search(question):
            return PLAN  # "Do you have a plan?" with nothing after "plan" is a safety question
        tokens = frozenset(_TOKEN_RE.findall(question.lower()))
        kinds = [
            kind for kind, regex, words in _QUESTION_TOPICS
            if not words.isdisjoint(tokens) and regex.search(question)
        ]
        if not kinds:
            continue
        if context or any(kind in _CORE_QUESTION_KINDS for kind in kinds):
            return kinds[0]
        return None
    return None


_FILLER_CLAUSE_RE = re.compile(r"^\W*(?:(?:um+|uh+|hmm+|well|so|okay|ok|honestly|i\s+mean)\W*)*$",
                               re.IGNORECASE)


def affirmative_answer(answer: str) -> bool:
    """True when the first real clause of a reply is a plain "yes" ("Yeah, sometimes")."""
    clauses = (part for part in CLAUSE_BOUNDARY_RE.split(answer) if part)
    first_clause = next((part for part in clauses if not _FILLER_CLAUSE_RE.match(part)), "")
    if not _AFFIRMATIVE_RE.match(first_clause):
        return False
    words = first_clause.split()[:ANSWER_WINDOW_WORDS]
    return not prefix_negates(" ".join(words))


def documented_sentences(text: str) -> Iterator[str]:
    """The sentences of a clinician turn that document the patient ("Pt endorses SI"), not
    questions or words addressed to the patient."""
    if _DOCUMENTATION_WORD_RE.search(text) is None:
        return
    for sentence_match in _SENTENCE_RE.finditer(text):
        sentence = sentence_match.group(0)
        if sentence.rstrip().endswith("?") or _SECOND_PERSON_RE.search(sentence):
            continue
        if _DOCUMENTATION_RE.search(sentence):
            yield sentence


def _answer_quote(answer: str) -> str:
    """The start of an answer: its first sentence of two or more words, at most
    MAX_QUOTE_WORDS words ("Um... yeah, sometimes.")."""
    words: list[str] = []
    for word in answer.split():
        words.append(word)
        if len(words) >= MAX_QUOTE_WORDS or (len(words) > 1 and word[-1] in ".!?"):
            break
    return " ".join(words).strip(" ,;:-\"'")


def answer_factor(asked_kind: str, answer: str) -> str:
    """The factor text for a "yes" to a screening question about ``asked_kind``."""
    return f"Patient answered yes when asked about {_KIND_TOPIC[asked_kind]} " \
        f"('{_answer_quote(answer)}')"
