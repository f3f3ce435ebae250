"""Screener scores (PHQ-9, PHQ-2, GAD-7, GAD-2, PCL-5, AUDIT, AUDIT-C) with severity bands,
and C-SSRS mentions."""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.analysis.rules.document import (
    ALL_ROLES,
    PCL5_PROBABLE_PTSD,
    Document,
    Sentence,
    anchor_words,
    dedupe,
)

# Characters around a screener name searched for its score.
SCORE_WINDOW_CHARS = 45

_NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
        " fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}


# ---------------------------------------------------------------------------------------------
# Screeners
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Screener:
    name: str
    maximum: int
    # (highest score in band, band label), ascending.
    bands: tuple[tuple[int, str], ...]


_SCREENERS = {
    "PHQ-9": _Screener("PHQ-9", 27, ((4, "minimal depression"), (9, "mild depression"),
                                     (14, "moderate depression"),
                                     (19, "moderately severe depression"),
                                     (27, "severe depression"))),
    "GAD-7": _Screener("GAD-7", 21, ((4, "minimal anxiety"), (9, "mild anxiety"),
                                     (14, "moderate anxiety"), (21, "severe anxiety"))),
    "PHQ-2": _Screener("PHQ-2", 6, ((2, "negative depression screen"),
                                    (6, "positive depression screen"))),
    "GAD-2": _Screener("GAD-2", 6, ((2, "negative anxiety screen"),
                                    (6, "positive anxiety screen"))),
    "PCL-5": _Screener("PCL-5", 80, ((PCL5_PROBABLE_PTSD - 1, "below the probable-PTSD cut-off"),
                                     (80, "probable PTSD; cut-off 33"))),
    "AUDIT": _Screener("AUDIT", 40, ((7, "low-risk drinking"), (15, "hazardous drinking"),
                                     (19, "harmful drinking"),
                                     (40, "possible alcohol dependence"))),
    "AUDIT-C": _Screener("AUDIT-C", 12, ((2, "negative alcohol screen"),
                                         (3, "positive alcohol screen for women"),
                                         (12, "positive alcohol screen"))),
}
_SCREENER_NAME_RE = re.compile(
    r"(?P<phq9>\bPHQ[\s-]?(?:9|nine)\b)|(?P<phq2>\bPHQ[\s-]?(?:2|two)\b)"
    r"|(?P<gad7>\bGAD[\s-]?(?:7|seven)\b)|(?P<gad2>\bGAD[\s-]?(?:2|two)\b)"
    r"|(?P<pcl5>\bPCL[\s-]?(?:5|five)\b)|(?P<auditc>\b(?-i:AUDIT)[\s-]?C\b)"
    r"|(?P<audit>\b(?-i:AUDIT)\b)|(?P<cssrs>\bC[\s-]?SSRS\b|\bColumbia\b)",
    re.IGNORECASE,
)
_SCREENER_GROUPS = {"phq9": "PHQ-9", "phq2": "PHQ-2", "gad7": "GAD-7", "gad2": "GAD-2",
                    "pcl5": "PCL-5", "auditc": "AUDIT-C", "audit": "AUDIT", "cssrs": "C-SSRS"}
_SCREENER_ANCHORS = anchor_words(
    "phq phq9 phq2 gad gad7 gad2 pcl pcl5 audit auditc ssrs cssrs columbia"
)
NUMBER = r"(?:\d{1,2}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"
# Numbers followed by a unit are durations, doses or dates, not scores.
_NOT_A_SCORE = (
    r"(?!\s*(?:weeks?|days?|months?|years?|mg|minutes?|mins?|hours?|hrs?|%|:\d|th\b|st\b"
    r"|nd\b|rd\b|times?|sessions?|items?|questions?|pm\b|am\b|o'clock))"
)
_SCORE_AFTER_RE = re.compile(
    # "went from 18 to 12"
    r"[^\d.?!;\n]{0,30}?\bfrom\s+(?P<prior>" + NUMBER + r")\s+(?:to|down\s+to|up\s+to)\s+"
    r"(?P<moved>" + NUMBER + r")\b" + _NOT_A_SCORE
    # "23 today, up from 15"
    + r"|[^\d.?!;\n]{0,30}?(?<![\w/])(?P<latest>" + NUMBER + r")\b" + _NOT_A_SCORE
    + r"[^\d.?!;\n]{0,25}?\b(?:up\s+|down\s+)?from\s+(?P<earlier>" + NUMBER + r")\b"
    + _NOT_A_SCORE
    # "14, and last time it was 17"
    + r"|[^\d.?!;\n]{0,30}?(?<![\w/])(?P<current>" + NUMBER + r")\b" + _NOT_A_SCORE
    + r"[^\d.?!;\n]{0,30}?\b(?:last\s+(?:time|month|visit|session)|previously|at\s+intake)\b"
    r"[^\d.?!;\n]{0,15}?(?<![\w/])(?P<before>" + NUMBER + r")\b" + _NOT_A_SCORE
    # "was 18 last time, today it's 14"
    + r"|[^\d.?!;\n]{0,30}?(?<![\w/])(?P<then>" + NUMBER + r")\b" + _NOT_A_SCORE
    + r"[^\d.?!;\n]{0,25}?\b(?:today|now|this\s+(?:time|week|visit))\b[^\d.?!;\n]{0,15}?"
    r"(?<![\w/])(?P<now>" + NUMBER + r")\b" + _NOT_A_SCORE
    # "was 14", "of 14/27"
    + r"|[^\d.?!;\n]{0,30}?(?<![\w/])(?P<score>" + NUMBER + r")\b"
    r"(?:\s*/\s*(?P<denominator>\d{1,2}))?" + _NOT_A_SCORE,
    re.IGNORECASE,
)
_SCORE_BEFORE_RE = re.compile(
    r"\b(?:scored?|got|had|was\s+at|came\s+in\s+at)\s+(?:a\s+|an\s+)?(?P<score>" + NUMBER
    + r")\s+(?:points?\s+)?on\s+(?:the\s+|her\s+|his\s+|their\s+|your\s+|my\s+|a\s+"
    r"|today's\s+|this\s+week's\s+)?$",
    re.IGNORECASE,
)
# A score said in the sentence after the instrument was named ("I have your PHQ-9 from the
# waiting room. You scored 14 today."; "… the GAD-7 you completed. Your total today is 16.").
_SCORE_NEXT_RE = re.compile(
    r"[^\d.?!;\n]{0,40}?\b(?:scored|score\s+(?:today\s+)?(?:was|is|of)|total\s+(?:today\s+)?"
    r"(?:was|is|of)|(?:came|comes)\s+(?:in|out)\s+at|added\s+up\s+to)\s+(?:a\s+|an\s+)?"
    r"(?P<score>" + NUMBER + r")\b" + _NOT_A_SCORE,
    re.IGNORECASE,
)
_PRIOR_SCORE_RE = re.compile(
    r"\b(?:last\s+(?:time|session|visit|month|week)|previous(?:ly)?|at\s+intake|baseline"
    r"|initially|used\s+to\s+be|ago|before)\b",
    re.IGNORECASE,
)
_CSSRS_RESULT_RE = re.compile(r"[^.?!\n]{0,40}?\b(negative|positive)\b", re.IGNORECASE)


@dataclass(frozen=True)
class ScreenerResult:
    name: str
    score: int
    prior: int | None

    @property
    def band(self) -> str:
        for highest, label in _SCREENERS[self.name].bands:
            if self.score <= highest:
                return label
        return ""

    @property
    def finding(self) -> str:
        text = f"{self.name} score {self.score} ({self.band})"
        return text if self.prior is None else f"{text}, previously {self.prior}"


def as_int(value: str) -> int:
    return int(value) if value.isdigit() else _NUMBER_WORDS[value.lower()]


def _score_after(doc: Document, end: int, limit: int, name: str) -> tuple[int, int | None] | None:
    """(score, earlier score) written after a screener name: "was 14", "from 18 to 12",
    "23 today, up from 15", "was 18 last time, today it's 14"."""
    match = _SCORE_AFTER_RE.match(doc.text, end, limit)
    if match is None:
        return None
    if match.group("moved"):
        return as_int(match.group("moved")), as_int(match.group("prior"))
    if match.group("latest"):
        return as_int(match.group("latest")), as_int(match.group("earlier"))
    if match.group("current"):
        return as_int(match.group("current")), as_int(match.group("before"))
    if match.group("now"):
        return as_int(match.group("now")), as_int(match.group("then"))
    denominator = match.group("denominator")
    if denominator and int(denominator) != _SCREENERS[name].maximum:
        return None  # "3/14" is a date, not a score out of the scale maximum
    return as_int(match.group("score")), None


def _score_near(doc: Document, sentence: Sentence, mention: re.Match[str],
                limit: int, name: str) -> tuple[int, int | None] | None:
    found = _score_after(doc, mention.end(), min(limit, mention.end() + SCORE_WINDOW_CHARS), name)
    if found is None:
        before = doc.text[max(sentence.start, mention.start() - SCORE_WINDOW_CHARS):mention.start()]
        score_before = _SCORE_BEFORE_RE.search(before)
        found = (as_int(score_before.group("score")), None) if score_before else None
    if found is None or not 0 <= found[0] <= _SCREENERS[name].maximum:
        return None
    return found


def _score_in_next_sentence(doc: Document, number: int,
                            name: str) -> tuple[int, int | None] | None:
    """The score stated in the sentence after the one naming the instrument, by the same
    speaker, when that sentence names no instrument of its own."""
    if number + 1 >= len(doc.sentences):
        return None
    sentence, following = doc.sentences[number], doc.sentences[number + 1]
    if following.role != sentence.role or \
            _SCREENER_NAME_RE.search(doc.text, following.start, following.end):
        return None
    match = _SCORE_NEXT_RE.match(doc.text, following.start, following.end)
    if match is None:
        return None
    score = as_int(match.group("score"))
    return (score, None) if 0 <= score <= _SCREENERS[name].maximum else None


@dataclass(frozen=True)
class _ScoreMention:
    score: int
    prior: int | None
    # Worded as an earlier result ("at intake", "last time").
    historical: bool


def _current_result(name: str, mentions: list[_ScoreMention]) -> ScreenerResult:
    """The session's current score is the last one not worded as historical; the earlier
    score is the one stated with it ("from 18 to 12") or the most recent other mention."""
    current_mentions = [m for m in mentions if not m.historical] or mentions
    current = current_mentions[-1]
    prior = current.prior
    if prior is None:
        others = [m.score for m in mentions if m is not current and m.score != current.score]
        prior = others[-1] if others else None
    return ScreenerResult(name, current.score, prior)


def find_screeners(doc: Document) -> tuple[list[ScreenerResult], list[str]]:
    """Scored screeners (one current result per instrument, in order of first mention) and
    C-SSRS mentions."""
    mentions: dict[str, list[_ScoreMention]] = {}
    cssrs: list[str] = []
    for number in doc.sentence_numbers(_SCREENER_ANCHORS, ALL_ROLES):
        sentence = doc.sentences[number]
        names = list(_SCREENER_NAME_RE.finditer(doc.text, sentence.start, sentence.end))
        for index, mention in enumerate(names):
            name = _SCREENER_GROUPS[mention.lastgroup or ""]
            limit = names[index + 1].start() if index + 1 < len(names) else sentence.end
            if name == "C-SSRS":
                result = _CSSRS_RESULT_RE.match(doc.text, mention.end(), limit)
                cssrs.append(f"C-SSRS screen {result.group(1).lower()}" if result
                             else "C-SSRS screening discussed")
                continue
            found = _score_near(doc, sentence, mention, limit, name)
            if found is None and index + 1 == len(names):
                found = _score_in_next_sentence(doc, number, name)
            if found is None:
                continue
            window = doc.text[max(sentence.start, mention.start() - SCORE_WINDOW_CHARS):limit]
            historical = found[1] is None and _PRIOR_SCORE_RE.search(window) is not None
            mentions.setdefault(name, []).append(_ScoreMention(found[0], found[1], historical))
    results = [_current_result(name, found) for name, found in mentions.items()]
    return results, dedupe(cssrs)
