"""The document the rules read: sentences with their speaker and a word index, so that each
rule's regex only runs on sentences holding one of its anchor words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from services.analysis.transcript import (
    ROLE_CLINICIAN,
    ROLE_COLLATERAL,
    ROLE_NOTE,
    ROLE_PATIENT,
    Turn,
    is_negated,
)

# A relapse told, as a pattern fragment for the rules that report substance use: not a
# "relapse prevention plan", its warning signs, or what is done "to prevent relapse".
RELAPSE_TOLD = (r"(?<!prevent\s)(?<!preventing\s)\brelaps(?:e|ed)\b"
                r"(?!\s+(?:prevention|plan|signs?|warning|signature|risk))")
PATIENT_SIDE = frozenset({ROLE_PATIENT, ROLE_NOTE, ROLE_COLLATERAL})
CLINICIAN_SIDE = frozenset({ROLE_CLINICIAN, ROLE_NOTE})
ALL_ROLES = frozenset({ROLE_PATIENT, ROLE_NOTE, ROLE_CLINICIAN, ROLE_COLLATERAL})

ASSIGNEE_PATIENT = "patient"

# Task descriptions quote the clinician's instruction; longer sentences are cut at a word.
MAX_DESCRIPTION_CHARS = 200
PCL5_PROBABLE_PTSD = 33
_TOKEN_RE = re.compile(r"[a-z0-9]+")
# Sentences end at . ! ? or a newline, but not inside "0.5" or after a title such as "Dr." or
# "St." ("the bereavement group at St. Mark's" was cut at "St").
_SENTENCE_RE = re.compile(
    r"(?:[^.!?\n]+|(?<=\bDr)\.|(?<=\bMr)\.|(?<=\bMrs)\.|(?<=\bMs)\.|(?<=\bProf)\."
    r"|(?<=\bSt)\.|(?<=\bMt)\.|(?<=\bJr)\.|(?<=\bSr)\."
    r"|[.!?](?![\s\"')]|$))+[.!?\"')]*"
)


# ---------------------------------------------------------------------------------------------
# Document model
# ---------------------------------------------------------------------------------------------

class Sentence(NamedTuple):
    # A tuple rather than a dataclass: thousands are built per transcript.
    start: int
    end: int
    role: str


# Every anchor word of every rule; filled by make_rule() and anchor_words() at import time.
# Only these words are indexed, which keeps building the index cheap.
_VOCABULARY: set[str] = set()


def anchor_words(words: str) -> frozenset[str]:
    anchors = frozenset(words.split())
    _VOCABULARY.update(anchors)
    return anchors


class Document:
    """The transcript as one text, split into sentences that remember their speaker role,
    with each sentence's lower-case words and an index from anchor words to sentences."""

    def __init__(self, turns: list[Turn]) -> None:
        parts: list[str] = []
        sentences: list[Sentence] = []
        offset = 0
        for turn in turns:
            for match in _SENTENCE_RE.finditer(turn.text):
                sentences.append(Sentence(offset + match.start(), offset + match.end(), turn.role))
            parts.append(turn.text)
            offset += len(turn.text) + 1
        self.text = "\n".join(parts)
        self.sentences = sentences
        lowered = self.text.lower()
        self.tokens = [
            frozenset(_TOKEN_RE.findall(lowered, sentence.start, sentence.end))
            for sentence in sentences
        ]
        index: dict[str, list[int]] = {}
        for number, tokens in enumerate(self.tokens):
            for word in tokens.intersection(_VOCABULARY):
                index.setdefault(word, []).append(number)
        self._index = index

    def sentence_numbers(self, anchors: frozenset[str], roles: frozenset[str]) -> list[int]:
        found: set[int] = set()
        for word in anchors:
            found.update(self._index.get(word, ()))
        return sorted(n for n in found if self.sentences[n].role in roles)

    def sentence_text(self, number: int) -> str:
        sentence = self.sentences[number]
        return self.text[sentence.start:sentence.end].strip()

    def finditer(
        self, regex: re.Pattern[str], anchors: frozenset[str], roles: frozenset[str]
    ) -> Iterator[tuple[int, re.Match[str]]]:
        """Matches of regex in the sentences (of the given roles) holding an anchor word."""
        for number in self.sentence_numbers(anchors, roles):
            sentence = self.sentences[number]
            for match in regex.finditer(self.text, sentence.start, sentence.end):
                yield number, match


@dataclass(frozen=True)
class Rule:
    """A regex that only runs on sentences containing one of its anchor words."""

    key: str
    regex: re.Pattern[str]
    anchors: frozenset[str]
    # The phrase itself carries the negation ("can't sleep"), so skip the negation check.
    negation_in_pattern: bool = False
    # Also honour note-style denials after the phrase ("SI: denies", "..., but not anymore").
    post_negation: bool = True


def make_rule(key: str, pattern: str, anchors: str, negation_in_pattern: bool = False,
          post_negation: bool = True) -> Rule:
    return Rule(key, re.compile(pattern, re.IGNORECASE), anchor_words(anchors),
                 negation_in_pattern, post_negation)


def word_rule(key: str, phrases: str) -> Rule:
    """A rule matching any of the "|"-separated literal phrases as whole words."""
    options = [phrase.strip() for phrase in phrases.split("|") if phrase.strip()]
    body = "|".join(r"\s+".join(map(re.escape, option.split())) for option in options)
    # The longest word of a phrase is the rarest one ("work" in "at work").
    anchors = " ".join(max(_TOKEN_RE.findall(option.lower()), key=len) for option in options)
    return make_rule(key, rf"\b(?:{body})\b", anchors)


def _affirmed(doc: Document, rule: Rule, match: re.Match[str]) -> bool:
    if rule.negation_in_pattern:
        return True
    return not is_negated(doc.text, match.start(), match.end() if rule.post_negation else None)


def first_affirmed(
    doc: Document, rules: tuple[Rule, ...], roles: frozenset[str]
) -> dict[str, tuple[int, re.Match[str]]]:
    """For each rule key, the earliest affirmed (non-negated) match."""
    found: dict[str, tuple[int, re.Match[str]]] = {}
    for rule in rules:
        for number, match in doc.finditer(rule.regex, rule.anchors, roles):
            if _affirmed(doc, rule, match):
                previous = found.get(rule.key)
                if previous is None or match.start() < previous[1].start():
                    found[rule.key] = (number, match)
                break
    return found


def shorten(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "..."


def dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(item for item in items if item))
