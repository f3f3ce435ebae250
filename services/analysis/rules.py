"""Built-in, deterministic session analysis, used when no hosted model is configured.

``analyze_transcript`` reads a transcript with fixed rules and returns the same JSON shape the
hosted model produces (see ``services.analysis.shape``). The same input always gives the same
output. What it looks for:

* risk: crisis language from ``services.analysis.crisis`` ("high"/"imminent"), otherwise "moderate"
  for softer indicators (hopelessness, worthlessness, heavy substance use, recent loss,
  isolation, firearm access, exposure to suicide), otherwise "low"; the safety floor is
  applied last;
* screener scores (PHQ-9, PHQ-2, GAD-7, GAD-2, PCL-5, AUDIT, AUDIT-C) with standard severity
  bands, and C-SSRS mentions;
* psychiatric medications (generic or brand name) with dose, changes, side effects and
  adherence problems;
* sleep, appetite, mood, anxiety, energy, concentration, trauma and substance findings from
  the patient's own statements (negation-aware);
* homework, follow-ups, referrals and other clinician commitments as tasks and next steps;
* decisions ("we agreed ...", "the plan is to ...") and discussion topics;
* differential diagnoses only where a screener score or a specific symptom pattern supports
  them, plus treatment-plan items and recommendations derived from all of the above.

Who said what matters: symptoms come from patient turns (and unlabelled text), tasks and
decisions from clinician turns (and unlabelled text). Nothing here logs transcript text.

Speed: the text is split into sentences once, with a word index per sentence. Each rule lists
anchor words, and its regex only runs on sentences containing one of them.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple

from services.analysis.crisis import (
    HOMICIDAL_IDEATION,
    IMMINENT,
    CrisisAssessment,
    apply_safety_floor,
    assess_turns,
)
from services.analysis.transcript import (
    ROLE_CLINICIAN,
    ROLE_NOTE,
    ROLE_PATIENT,
    Turn,
    is_negated,
    normalize_text,
    split_turns,
)

PATIENT_SIDE = frozenset({ROLE_PATIENT, ROLE_NOTE})
CLINICIAN_SIDE = frozenset({ROLE_CLINICIAN, ROLE_NOTE})
ALL_ROLES = frozenset({ROLE_PATIENT, ROLE_NOTE, ROLE_CLINICIAN})

ASSIGNEE_PATIENT = "patient"
ASSIGNEE_CLINICIAN = "clinician"
ASSIGNEE_CARE_TEAM = "care team"

# Task descriptions quote the clinician's instruction; longer sentences are cut at a word.
MAX_DESCRIPTION_CHARS = 200
MAX_DECISION_CHARS = 140
MAX_CONTEXT_ITEMS = 20
# Characters around a screener name searched for its score.
SCORE_WINDOW_CHARS = 45

# Standard cut-offs used by the differentials and recommendations.
PHQ9_CLINICAL_CUTOFF = 10
PHQ9_MEDICATION_REVIEW_CUTOFF = 15
GAD7_CLINICAL_CUTOFF = 10
PCL5_PROBABLE_PTSD = 33
AUDIT_HARMFUL_CUTOFF = 16
ULTRA_SHORT_SCREEN_CUTOFF = 3  # PHQ-2 and GAD-2
MINOR_AGE = 18

# Sleep durations (hours per night) outside this range are reported as reduced/increased.
SHORT_SLEEP_HOURS = 6
LONG_SLEEP_HOURS = 10

# Vital-sign limits for an adult at rest.
HEART_RATE_HIGH = 100
HEART_RATE_LOW = 50
SYSTOLIC_HIGH = 140
DIASTOLIC_HIGH = 90
SYSTOLIC_LOW = 90
DIASTOLIC_LOW = 60
RESPIRATORY_RATE_HIGH = 20
RESPIRATORY_RATE_LOW = 12
SPO2_LOW = 92
FEVER_CELSIUS = 38.0
FEVER_FAHRENHEIT = 100.4
# Temperatures above this are taken to be Fahrenheit.
CELSIUS_FAHRENHEIT_SPLIT = 50
BMI_HIGH = 30.0
BMI_LOW = 18.5

_NUMBER_WORDS = {
    word: value
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
        " fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
_TOKEN_RE = re.compile(r"[a-z0-9]+")
# Sentences end at . ! ? or a newline, but not inside "0.5" or after a title such as "Dr.".
_SENTENCE_RE = re.compile(
    r"(?:[^.!?\n]+|(?<=\bDr)\.|(?<=\bMr)\.|(?<=\bMrs)\.|(?<=\bMs)\.|(?<=\bProf)\."
    r"|[.!?](?![\s\"')]|$))+[.!?\"')]*"
)


# ---------------------------------------------------------------------------------------------
# Document model
# ---------------------------------------------------------------------------------------------

class _Sentence(NamedTuple):
    # A tuple rather than a dataclass: thousands are built per transcript.
    start: int
    end: int
    role: str


# Every anchor word of every rule; filled by _rule() and _anchor_words() at import time.
# Only these words are indexed, which keeps building the index cheap.
_VOCABULARY: set[str] = set()


def _anchor_words(words: str) -> frozenset[str]:
    anchors = frozenset(words.split())
    _VOCABULARY.update(anchors)
    return anchors


class _Document:
    """The transcript as one text, split into sentences that remember their speaker role,
    with each sentence's lower-case words and an index from anchor words to sentences."""

    def __init__(self, turns: list[Turn]) -> None:
        parts: list[str] = []
        sentences: list[_Sentence] = []
        offset = 0
        for turn in turns:
            for match in _SENTENCE_RE.finditer(turn.text):
                sentences.append(_Sentence(offset + match.start(), offset + match.end(), turn.role))
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
class _Rule:
    """A regex that only runs on sentences containing one of its anchor words."""

    key: str
    regex: re.Pattern[str]
    anchors: frozenset[str]
    # The phrase itself carries the negation ("can't sleep"), so skip the negation check.
    negation_in_pattern: bool = False
    # Also honour note-style denials after the phrase ("SI: denies", "..., but not anymore").
    post_negation: bool = True


def _rule(key: str, pattern: str, anchors: str, negation_in_pattern: bool = False,
          post_negation: bool = True) -> _Rule:
    return _Rule(key, re.compile(pattern, re.IGNORECASE), _anchor_words(anchors),
                 negation_in_pattern, post_negation)


def _word_rule(key: str, phrases: str) -> _Rule:
    """A rule matching any of the "|"-separated literal phrases as whole words."""
    options = [phrase.strip() for phrase in phrases.split("|") if phrase.strip()]
    body = "|".join(r"\s+".join(map(re.escape, option.split())) for option in options)
    # The longest word of a phrase is the rarest one ("work" in "at work").
    anchors = " ".join(max(_TOKEN_RE.findall(option.lower()), key=len) for option in options)
    return _rule(key, rf"\b(?:{body})\b", anchors)


def _affirmed(doc: _Document, rule: _Rule, match: re.Match[str]) -> bool:
    if rule.negation_in_pattern:
        return True
    return not is_negated(doc.text, match.start(), match.end() if rule.post_negation else None)


def _first_affirmed(
    doc: _Document, rules: tuple[_Rule, ...], roles: frozenset[str]
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


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "..."


def _dedupe(items: list[str]) -> list[str]:
    return list(dict.fromkeys(item for item in items if item))


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
_SCREENER_ANCHORS = _anchor_words(
    "phq phq9 phq2 gad gad7 gad2 pcl pcl5 audit auditc ssrs cssrs columbia"
)
_NUMBER = r"(?:\d{1,2}|" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")"
# Numbers followed by a unit are durations, doses or dates, not scores.
_NOT_A_SCORE = (
    r"(?!\s*(?:weeks?|days?|months?|years?|mg|minutes?|mins?|hours?|hrs?|%|:\d|th\b|st\b"
    r"|nd\b|rd\b|times?|sessions?|items?|questions?|pm\b|am\b|o'clock))"
)
_SCORE_AFTER_RE = re.compile(
    # "went from 18 to 12"
    r"[^\d.?!;\n]{0,30}?\bfrom\s+(?P<prior>" + _NUMBER + r")\s+(?:to|down\s+to|up\s+to)\s+"
    r"(?P<moved>" + _NUMBER + r")\b" + _NOT_A_SCORE
    # "23 today, up from 15"
    + r"|[^\d.?!;\n]{0,30}?(?<![\w/])(?P<latest>" + _NUMBER + r")\b" + _NOT_A_SCORE
    + r"[^\d.?!;\n]{0,25}?\b(?:up\s+|down\s+)?from\s+(?P<earlier>" + _NUMBER + r")\b"
    + _NOT_A_SCORE
    # "14, and last time it was 17"
    + r"|[^\d.?!;\n]{0,30}?(?<![\w/])(?P<current>" + _NUMBER + r")\b" + _NOT_A_SCORE
    + r"[^\d.?!;\n]{0,30}?\b(?:last\s+(?:time|month|visit|session)|previously|at\s+intake)\b"
    r"[^\d.?!;\n]{0,15}?(?<![\w/])(?P<before>" + _NUMBER + r")\b" + _NOT_A_SCORE
    # "was 18 last time, today it's 14"
    + r"|[^\d.?!;\n]{0,30}?(?<![\w/])(?P<then>" + _NUMBER + r")\b" + _NOT_A_SCORE
    + r"[^\d.?!;\n]{0,25}?\b(?:today|now|this\s+(?:time|week|visit))\b[^\d.?!;\n]{0,15}?"
    r"(?<![\w/])(?P<now>" + _NUMBER + r")\b" + _NOT_A_SCORE
    # "was 14", "of 14/27"
    + r"|[^\d.?!;\n]{0,30}?(?<![\w/])(?P<score>" + _NUMBER + r")\b"
    r"(?:\s*/\s*(?P<denominator>\d{1,2}))?" + _NOT_A_SCORE,
    re.IGNORECASE,
)
_SCORE_BEFORE_RE = re.compile(
    r"\b(?:scored?|got|had|was\s+at|came\s+in\s+at)\s+(?:a\s+|an\s+)?(?P<score>" + _NUMBER
    + r")\s+(?:points?\s+)?on\s+(?:the\s+|her\s+|his\s+|their\s+|your\s+|my\s+|a\s+"
    r"|today's\s+|this\s+week's\s+)?$",
    re.IGNORECASE,
)
_PRIOR_SCORE_RE = re.compile(
    r"\b(?:last\s+(?:time|session|visit|month|week)|previous(?:ly)?|at\s+intake|baseline"
    r"|initially|used\s+to\s+be|ago|before)\b",
    re.IGNORECASE,
)
_CSSRS_RESULT_RE = re.compile(r"[^.?!\n]{0,40}?\b(negative|positive)\b", re.IGNORECASE)


@dataclass(frozen=True)
class _ScreenerResult:
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


def _as_int(value: str) -> int:
    return int(value) if value.isdigit() else _NUMBER_WORDS[value.lower()]


def _score_after(doc: _Document, end: int, limit: int, name: str) -> tuple[int, int | None] | None:
    """(score, earlier score) written after a screener name: "was 14", "from 18 to 12",
    "23 today, up from 15", "was 18 last time, today it's 14"."""
    match = _SCORE_AFTER_RE.match(doc.text, end, limit)
    if match is None:
        return None
    if match.group("moved"):
        return _as_int(match.group("moved")), _as_int(match.group("prior"))
    if match.group("latest"):
        return _as_int(match.group("latest")), _as_int(match.group("earlier"))
    if match.group("current"):
        return _as_int(match.group("current")), _as_int(match.group("before"))
    if match.group("now"):
        return _as_int(match.group("now")), _as_int(match.group("then"))
    denominator = match.group("denominator")
    if denominator and int(denominator) != _SCREENERS[name].maximum:
        return None  # "3/14" is a date, not a score out of the scale maximum
    return _as_int(match.group("score")), None


def _score_near(doc: _Document, sentence: _Sentence, mention: re.Match[str],
                limit: int, name: str) -> tuple[int, int | None] | None:
    found = _score_after(doc, mention.end(), min(limit, mention.end() + SCORE_WINDOW_CHARS), name)
    if found is None:
        before = doc.text[max(sentence.start, mention.start() - SCORE_WINDOW_CHARS):mention.start()]
        score_before = _SCORE_BEFORE_RE.search(before)
        found = (_as_int(score_before.group("score")), None) if score_before else None
    if found is None or not 0 <= found[0] <= _SCREENERS[name].maximum:
        return None
    return found


@dataclass(frozen=True)
class _ScoreMention:
    score: int
    prior: int | None
    # Worded as an earlier result ("at intake", "last time").
    historical: bool


def _current_result(name: str, mentions: list[_ScoreMention]) -> _ScreenerResult:
    """The session's current score is the last one not worded as historical; the earlier
    score is the one stated with it ("from 18 to 12") or the most recent other mention."""
    current_mentions = [m for m in mentions if not m.historical] or mentions
    current = current_mentions[-1]
    prior = current.prior
    if prior is None:
        others = [m.score for m in mentions if m is not current and m.score != current.score]
        prior = others[-1] if others else None
    return _ScreenerResult(name, current.score, prior)


def _find_screeners(doc: _Document) -> tuple[list[_ScreenerResult], list[str]]:
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
            if found is None:
                continue
            window = doc.text[max(sentence.start, mention.start() - SCORE_WINDOW_CHARS):limit]
            historical = found[1] is None and _PRIOR_SCORE_RE.search(window) is not None
            mentions.setdefault(name, []).append(_ScoreMention(found[0], found[1], historical))
    results = [_current_result(name, found) for name, found in mentions.items()]
    return results, _dedupe(cssrs)


# ---------------------------------------------------------------------------------------------
# Medications
# ---------------------------------------------------------------------------------------------

# Generic name -> brand names and other spellings.
_MEDICATIONS: dict[str, tuple[str, ...]] = {
    "sertraline": ("Zoloft",),
    "fluoxetine": ("Prozac",),
    "escitalopram": ("Lexapro",),
    "citalopram": ("Celexa",),
    "paroxetine": ("Paxil",),
    "fluvoxamine": ("Luvox",),
    "bupropion": ("Wellbutrin",),
    "venlafaxine": ("Effexor",),
    "desvenlafaxine": ("Pristiq",),
    "duloxetine": ("Cymbalta",),
    "mirtazapine": ("Remeron",),
    "trazodone": ("Desyrel",),
    "vortioxetine": ("Trintellix",),
    "amitriptyline": ("Elavil",),
    "nortriptyline": ("Pamelor",),
    "quetiapine": ("Seroquel",),
    "aripiprazole": ("Abilify",),
    "risperidone": ("Risperdal",),
    "olanzapine": ("Zyprexa",),
    "lurasidone": ("Latuda",),
    "ziprasidone": ("Geodon",),
    "clozapine": ("Clozaril",),
    "haloperidol": ("Haldol",),
    "cariprazine": ("Vraylar",),
    "lithium": ("Lithobid",),
    "lamotrigine": ("Lamictal",),
    "divalproex": ("Depakote", "valproate", "valproic acid"),
    "carbamazepine": ("Tegretol",),
    "oxcarbazepine": ("Trileptal",),
    "topiramate": ("Topamax",),
    "gabapentin": ("Neurontin",),
    "pregabalin": ("Lyrica",),
    "clonazepam": ("Klonopin",),
    "lorazepam": ("Ativan",),
    "alprazolam": ("Xanax",),
    "diazepam": ("Valium",),
    "buspirone": ("Buspar",),
    "hydroxyzine": ("Vistaril", "Atarax"),
    "propranolol": ("Inderal",),
    "prazosin": ("Minipress",),
    "clonidine": ("Kapvay",),
    "guanfacine": ("Intuniv", "Tenex"),
    "methylphenidate": ("Ritalin", "Concerta"),
    "dexmethylphenidate": ("Focalin",),
    "amphetamine salts": ("Adderall", "mixed amphetamine salts", "amphetamine"),
    "lisdexamfetamine": ("Vyvanse",),
    "atomoxetine": ("Strattera",),
    "zolpidem": ("Ambien",),
    "melatonin": (),
    "naltrexone": ("Vivitrol", "Revia"),
    "buprenorphine": ("Suboxone", "Subutex"),
    "methadone": (),
    "acamprosate": ("Campral",),
    "disulfiram": ("Antabuse",),
    "varenicline": ("Chantix",),
}
_ANTIDEPRESSANTS = frozenset(
    "sertraline fluoxetine escitalopram citalopram paroxetine fluvoxamine bupropion venlafaxine"
    " desvenlafaxine duloxetine mirtazapine vortioxetine amitriptyline nortriptyline".split()
)
_BRAND_NAMES = {
    brand.lower(): brand
    for brands in _MEDICATIONS.values()
    for brand in brands
    if brand[0].isupper()
}
_MED_ALIASES = {
    alias.lower(): generic
    for generic, brands in _MEDICATIONS.items()
    for alias in (generic, *brands)
}


def _alias_patterns() -> dict[str, re.Pattern[str]]:
    """First word of an alias -> regex for the aliases starting with it (longest first), so a
    sentence is only searched for the medications whose first word it contains."""
    grouped: dict[str, list[str]] = {}
    for alias in sorted(_MED_ALIASES, key=len, reverse=True):
        grouped.setdefault(alias.split()[0], []).append(r"\s+".join(map(re.escape, alias.split())))
    return {
        word: re.compile(r"\b(?:" + "|".join(options) + r")\b", re.IGNORECASE)
        for word, options in grouped.items()
    }


_MED_PATTERNS = _alias_patterns()
_MED_ANCHORS = _anchor_words(" ".join(_MED_PATTERNS))
_UNIT = r"(?P<unit>mg|mcg|milligrams?|micrograms?)\b"
_DOSE_AFTER_RE = re.compile(
    r"\s*(?:\([A-Za-z]+\)\s*)?,?\s*(?:(?:ER|XR|XL|SR|CR|IR)\s+)?"
    r"(?:(?:at|is|was|of|now|currently|on|to|up\s+to)\s+)*"
    r"(?:from\s+(?P<from>\d+(?:\.\d+)?)\s*(?:mg|mcg|milligrams?)?\s+(?:to|up\s+to|down\s+to)\s+)?"
    r"(?P<dose>\d+(?:\.\d+)?)\s*" + _UNIT,
    re.IGNORECASE,
)
_DOSE_BEFORE_RE = re.compile(
    r"(?P<dose>\d+(?:\.\d+)?)\s*" + _UNIT + r"\s+(?:of\s+)?(?:(?:her|his|my|your|the)\s+)?$",
    re.IGNORECASE,
)
_START_MED_RE = re.compile(
    r"\b(?:start(?:ing)?|begin(?:ning)?|trial\s+of|add(?:ing)?|try(?:ing)?)\s+"
    r"(?:(?:you|her|him|them)\s+)?(?:on\s+)?(?:(?:a|the|some|low[- ]dose)\s+)?"
    r"(?P<med>[A-Za-z][\w-]*)",
    re.IGNORECASE,
)
_PAST_CHANGE_WORDS = frozenset({"came", "began", "went"})
_TARGET_DOSE_RE = re.compile(r"\bto\s+(?P<dose>\d+(?:\.\d+)?)\s*" + _UNIT, re.IGNORECASE)
_DOSE_WINDOW_CHARS = 40
# A sentence without a medication name refers to one named this many sentences earlier.
MED_REFERENCE_SENTENCES = 3
_MED_PRONOUN_WORDS = frozenset("it dose dosage medication meds one".split())
# Words one of which every change, side-effect or adherence phrase below contains.
_CHANGE_WORDS = frozenset(
    "increase increased increasing increases up bump bumped bumping raise raising titrate"
    " titrating decrease decreased decreasing reduce reduced reducing lower lowering taper"
    " tapering tapered cut switch switched switching cross change changing changed stop"
    " stopped stopping discontinue discontinued discontinuing came come coming wean weaning"
    " quit start starting begin initiate initiating add adding trial prescribe prescribed"
    " prescribing put started continue continuing continued stay keep remain same go".split()
)
_SIDE_EFFECT_WORDS = frozenset(
    "side nausea nauseous nauseated dizzy dizziness headache headaches sexual weight gained"
    " drowsy drowsiness sedated sedation sedating groggy jittery dry tremor tremors shaky"
    " shaking shakes rash upset stomach vivid restless restlessness emotional feel feeling"
    " missed missing forget forgot forgetting ran haven havent not stopped skipped skipping"
    " skip".split()
)
_MED_PRONOUN_RE = re.compile(
    r"\b(?:it|the\s+dose|your\s+dose|the\s+dosage|the\s+medication|your\s+medication"
    r"|the\s+meds|your\s+meds|that\s+one)\b",
    re.IGNORECASE,
)

_MED_CHANGES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (change, re.compile(pattern, re.IGNORECASE))
    for change, pattern in (
        ("increase", r"\b(?:increas\w*|up\s+(?:the|your|her|his)\s+dose|bump\w*\s+(?:\w+\s+)?up"
                     r"|rais(?:e|ing)\s+(?:the|your|her|his)?\s*dose|titrat\w+\s+up"
                     r"|go\s+up\s+to)\b"),
        ("decrease", r"\b(?:decreas\w*|reduc\w*|lower(?:ing)?\s+(?:the|your|her|his)?\s*dose"
                     r"|taper\w*|cut\s+(?:back|down)|go\s+down\s+to)\b"),
        ("switch", r"\b(?:switch\w*|cross[- ]taper\w*|chang\w+\s+(?:you\s+|her\s+|him\s+)?"
                   r"(?:over\s+)?(?:to|from))\b"),
        ("stop", r"\b(?:stop\s+(?:the|taking|your|her|his)|stopp(?:ed|ing)\s+(?:the|taking|it|your"
                 r"|her|his)|discontinu\w*|came\s+off|come\s+off|coming\s+off|wean\w*\s+off"
                 r"|quit\s+(?:taking|the))\b"),
        ("start", r"\b(?:start(?:ing)?\s+(?:you\s+|her\s+|him\s+|them\s+)?on|we'?ll\s+start"
                  r"|(?:going|like)\s+to\s+start|let'?s\s+start|begin|initiat\w+|add(?:ing)?"
                  r"|trial\s+of|prescrib\w+|put\s+(?:you|her|him|them)\s+on"
                  r"|(?:just|recently)\s+started|started\s+(?:on\s+)?(?:it\s+)?(?:last|this|two"
                  r"|three|a\s+few|recently))\b"),
        ("continue", r"\b(?:continu\w*|stay\s+on|keep\s+(?:taking|you\s+on|her\s+on|him\s+on)"
                     r"|remain\s+on|same\s+dose)\b"),
    )
)
_SIDE_EFFECT_RE = re.compile(
    r"\b(?P<effect>side[- ]effects?|nause\w*|dizz\w*|headaches?|sexual\s+side\s+effects?"
    r"|weight\s+gain|gained\s+(?:\d+|a\s+few|some)\s+pounds|drows\w*|sedat\w*|groggy|jittery"
    r"|dry\s+mouth|tremors?|shak\w+|rash|upset\s+stomach|stomach\s+(?:upset|issues|problems)"
    r"|vivid\s+dreams|restless\w*|emotional\s+blunting|feel(?:ing)?\s+(?:numb|flat|like\s+a"
    r"\s+zombie))\b",
    re.IGNORECASE,
)
_ADHERENCE_RE = re.compile(
    r"\b(?:miss(?:ed|ing)\s+(?:a\s+few\s+|some\s+|several\s+|a\s+couple\s+(?:of\s+)?|a\s+)?doses?"
    r"|forg(?:o|e)t(?:ting)?\s+to\s+take|forgot\s+(?:it|them|my\s+\w+)|ran\s+out"
    r"|haven'?t\s+been\s+taking|not\s+been\s+taking|stopped\s+taking\s+(?:it|them)\s+on\s+my\s+own"
    r"|skipp\w+\s+(?:doses?|it|them|a\s+few))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Change:
    kind: str  # increase, decrease, switch, stop, start, continue
    phrase: str  # "increase sertraline to 100 mg"
    # Worded in the past ("we increased ..."): history, not a new prescribing decision.
    historical: bool
    by_clinician: bool

    @property
    def is_new_prescription(self) -> bool:
        return self.by_clinician and not self.historical and self.kind != "continue"


@dataclass
class _Medication:
    generic: str
    brand: str | None
    dose: str | None
    changes: list[_Change]
    side_effects: list[str]
    adherence: bool

    @property
    def label(self) -> str:
        text = self.generic if self.dose is None else f"{self.generic} {self.dose}"
        return text if self.brand is None else f"{text} ({self.brand})"


def _format_dose(match: re.Match[str]) -> str:
    unit = match.group("unit").lower()
    unit = "mcg" if unit.startswith(("mc", "micro")) else "mg"
    return f"{match.group('dose')} {unit}"


def _dose_near(doc: _Document, sentence: _Sentence, start: int, end: int) -> str | None:
    after = _DOSE_AFTER_RE.match(doc.text, end, min(sentence.end, end + _DOSE_WINDOW_CHARS))
    if after is not None and after.group("from") is None:
        return _format_dose(after)
    before = _DOSE_BEFORE_RE.search(
        doc.text[max(sentence.start, start - _DOSE_WINDOW_CHARS):start]
    )
    if before is not None:
        return _format_dose(before)
    return None


def _change_phrase(doc: _Document, sentence: _Sentence, change: str, generic: str) -> str:
    target = _TARGET_DOSE_RE.search(doc.text, sentence.start, sentence.end)
    phrase = f"{change} {generic}"
    if target is not None and change in ("increase", "decrease", "start", "switch"):
        phrase += f" to {_format_dose(target)}"
    return phrase


def _starts_medication(doc: _Document, sentence: _Sentence, generic: str) -> re.Match[str] | None:
    """ "starting naltrexone", "a trial of buspirone": a start named right before the drug."""
    for match in _START_MED_RE.finditer(doc.text, sentence.start, sentence.end):
        word = match.group("med").lower()
        if any(alias.split()[0] == word for alias, name in _MED_ALIASES.items() if name == generic):
            return match
    return None


def _sentence_changes(doc: _Document, sentence: _Sentence, generic: str) -> list[_Change]:
    changes = []
    for kind, regex in _MED_CHANGES:
        match = regex.search(doc.text, sentence.start, sentence.end)
        if match is None and kind == "start":
            match = _starts_medication(doc, sentence, generic)
        if match is None or is_negated(doc.text, match.start()):
            continue
        first_word = match.group(0).split()[0].lower()
        changes.append(_Change(
            kind=kind,
            phrase=_change_phrase(doc, sentence, kind, generic),
            historical=first_word.endswith("ed") or first_word in _PAST_CHANGE_WORDS,
            by_clinician=sentence.role in CLINICIAN_SIDE,
        ))
    return changes


def _medication_mentions(doc: _Document) -> tuple[dict[str, _Medication], dict[int, list[str]]]:
    """Medications by generic name (first-mention order) and the generics named per sentence."""
    meds: dict[str, _Medication] = {}
    by_sentence: dict[int, list[str]] = {}
    for number in doc.sentence_numbers(_MED_ANCHORS, ALL_ROLES):
        sentence = doc.sentences[number]
        matches = sorted(
            (match for word in sorted(doc.tokens[number] & _MED_ANCHORS)
             for match in _MED_PATTERNS[word].finditer(doc.text, sentence.start, sentence.end)),
            key=lambda match: match.start(),
        )
        for match in matches:
            alias = " ".join(match.group(0).lower().split())
            generic = _MED_ALIASES[alias]
            brand = _BRAND_NAMES.get(alias)
            med = meds.setdefault(generic, _Medication(generic, brand, None, [], [], False))
            med.brand = med.brand or brand
            med.dose = med.dose or _dose_near(doc, sentence, match.start(), match.end())
            names = by_sentence.setdefault(number, [])
            if generic not in names:
                names.append(generic)
    return meds, by_sentence


def _referenced_medications(number: int,
                            by_sentence: dict[int, list[str]]) -> tuple[list[str], bool]:
    """Medications a sentence talks about: those it names, else those named shortly before
    ("How's the sertraline?" / "Some nausea, and I missed a few doses"). The flag tells
    whether the sentence names them itself."""
    if number in by_sentence:
        return by_sentence[number], True
    for earlier in range(number - 1, max(-1, number - 1 - MED_REFERENCE_SENTENCES), -1):
        if earlier in by_sentence:
            return by_sentence[earlier], False
    return [], False


def _note_sentence(doc: _Document, number: int, med: _Medication, named: bool) -> None:
    """Record changes, side effects and adherence problems stated in one sentence."""
    sentence = doc.sentences[number]
    tokens = doc.tokens[number]
    refers = named or (
        not tokens.isdisjoint(_MED_PRONOUN_WORDS)
        and _MED_PRONOUN_RE.search(doc.text, sentence.start, sentence.end) is not None
    )
    if refers and not tokens.isdisjoint(_CHANGE_WORDS):
        known = {change.phrase for change in med.changes}
        med.changes.extend(
            change for change in _sentence_changes(doc, sentence, med.generic)
            if change.phrase not in known
        )
    if sentence.role not in PATIENT_SIDE or tokens.isdisjoint(_SIDE_EFFECT_WORDS):
        return  # a clinician asking about nausea is not a report of nausea
    for effect in _SIDE_EFFECT_RE.finditer(doc.text, sentence.start, sentence.end):
        term = " ".join(effect.group("effect").lower().split())
        if term not in med.side_effects and not is_negated(doc.text, effect.start()):
            med.side_effects.append(term)
    adherence = _ADHERENCE_RE.search(doc.text, sentence.start, sentence.end)
    if adherence is not None and not is_negated(doc.text, adherence.start()):
        med.adherence = True


def _find_medications(doc: _Document) -> list[_Medication]:
    meds, by_sentence = _medication_mentions(doc)
    if not meds:
        return []
    last = min(len(doc.sentences), max(by_sentence) + MED_REFERENCE_SENTENCES + 1)
    for number in range(min(by_sentence), last):
        generics, named = _referenced_medications(number, by_sentence)
        for generic in generics:
            _note_sentence(doc, number, meds[generic], named)
    return list(meds.values())


def _medication_key_findings(meds: list[_Medication]) -> list[str]:
    findings = []
    for med in meds:
        findings.extend(
            f"Medication continued: {med.generic}" if change.kind == "continue"
            else f"Medication change discussed: {change.phrase}"
            for change in med.changes
        )
        if med.side_effects:
            findings.append(
                f"Side effects discussed: {med.generic} ({', '.join(med.side_effects)})"
            )
        if med.adherence:
            findings.append(f"Adherence concern: {med.generic} (missed or skipped doses)")
    return findings


# ---------------------------------------------------------------------------------------------
# Symptoms (patient statements)
# ---------------------------------------------------------------------------------------------

_INTENSITY = r"(?:(?:really|so|pretty|very|super|kind\s+of|kinda|a\s+bit|a\s+little|extremely)\s+)?"
_SYMPTOM_RULES: tuple[_Rule, ...] = (
    _rule("sleep_hours",
          r"\b(?:sleep(?:ing)?|slept|getting|get)\b[^.?!\d\n]{0,25}?(?<![\w-])(?P<hours>" + _NUMBER
          + r")(?:\s*(?:-|to|or)\s*\w+)?\s+hours?\b"
          r"|(?<![\w-])(?P<hours_of>" + _NUMBER + r")(?:\s*(?:-|to|or)\s*\w+)?\s+hours?\s+"
          r"(?:of\s+sleep|a\s+night|per\s+night|each\s+night|every\s+night)\b",
          "hours hour"),
    _rule("sleep_onset",
          r"\bcan'?t\s+(?:fall|get\s+to)\s+(?:a)?sleep|\b(?:trouble|difficulty|hard\s+time"
          r"|problems?)\s+(?:falling|getting\s+to)\s+(?:a)?sleep|\bl(?:ie|ying)\s+awake"
          r"|\btakes?\s+(?:me\s+)?(?:hours|forever|a\s+long\s+time)\s+to\s+fall\s+asleep",
          "sleep asleep awake",
          negation_in_pattern=True),
    _rule("sleep_waking",
          r"\b(?:wak(?:e|es|ing)|woke)\s+up\s+(?:at\s+(?:\d|two|three|four|five)|in\s+the\s+middle\s+of\s+the"
          r"\s+night|several\s+times|a\s+lot|constantly|every\s+(?:hour|night|couple))"
          r"|\bcan'?t\s+stay\s+asleep|\b(?:trouble|difficulty)\s+staying\s+asleep",
          "wake wakes waking woke asleep", negation_in_pattern=True),
    _rule("insomnia",
          r"\binsomnia\b|\bcan'?t\s+sleep\b|\b(?:haven'?t|not)\s+been\s+sleeping\b"
          r"|\bsleep\s+(?:has\s+been|is|'s\s+been)\s+" + _INTENSITY
          + r"(?:terrible|awful|bad|poor|rough|a\s+mess|horrible)|\bbarely\s+sleep\w*"
          r"|\bup\s+all\s+night\b",
          "insomnia sleep sleeping night", negation_in_pattern=True),
    _rule("hypersomnia",
          r"\bsleep(?:ing)?\s+(?:all\s+day|too\s+much|way\s+too\s+much|(?:1[0-6]|ten|eleven|twelve"
          r"|fourteen)\s+hours)",
          "sleep sleeping"),
    _rule("nightmares", r"\bnightmares?\b|\bbad\s+dreams\b|\bnight\s+terrors\b",
          "nightmare nightmares bad night"),
    _rule("sleep_better",
          r"\bsleep(?:ing)?\s+(?:has\s+been\s+|is\s+|'s\s+)?(?:a\s+lot\s+|much\s+|a\s+little\s+)?"
          r"(?:better|improved)\b",
          "sleep sleeping"),
    _rule("appetite_down",
          r"\bnot\s+(?:very\s+|really\s+)?hungry\b|\bno\s+appetite\b|\b(?:lost|losing|lose)\s+my"
          r"\s+appetite\b|\bappetite\s+(?:is|has\s+been|'s\s+been|'s)\s+(?:gone|low|poor|down"
          r"|bad|terrible|nonexistent)|\b(?:haven'?t|not)\s+been\s+eating\b|\bskipp\w+\s+meals"
          r"|\bforg(?:e|o)t\s+to\s+eat\b|\bbarely\s+eat\w*|\b(?:lost|dropped)\s+(?:\d+|a\s+few|some"
          r"|a\s+lot\s+of)\s+(?:pounds|lbs|kilos|weight)\b",
          "hungry appetite eating meals eat pounds lbs kilos weight", negation_in_pattern=True),
    _rule("appetite_up",
          r"\beating\s+(?:all\s+the\s+time|way\s+more|more\s+than\s+usual|a\s+lot\s+more"
          r"|constantly)|\bstress[- ]eating\b|\bbinge\w*|\bappetite\s+(?:is|has\s+been)\s+(?:up"
          r"|increased|huge)|\bgained\s+(?:\d+|a\s+lot\s+of|some)\s+(?:pounds|lbs|weight)"
          r"|\bover-?eat\w*|\bemotional\s+eating\b",
          "eating binge binged bingeing binging binges appetite gained overeat overeating eat"),
    _rule("mood_low",
          r"\bmood\s+(?:has\s+been|is|was|'s\s+been|'s)\s+" + _INTENSITY
          + r"(?:low|down|bad|terrible|awful|depressed|flat|dark|rough)\b"
          r"|\bfe(?:el|eling|els|lt)\s+" + _INTENSITY
          + r"(?:down|depressed|sad|low|empty|numb|hopeless|miserable|blue|flat)\b"
          r"|\bI'?ve\s+been\s+" + _INTENSITY + r"(?:depressed|sad|down)\b"
          r"|\bcry(?:ing)?\s+(?:a\s+lot|all\s+the\s+time|every\s+day|constantly|at\s+night)"
          r"|\bcan'?t\s+stop\s+crying\b",
          "mood down depressed sad low empty numb hopeless miserable blue flat crying cry"),
    _rule("mood_better",
          r"\bmood\s+(?:has\s+been|is|'s\s+been|'s)\s+"
          r"(?:a\s+lot\s+|much\s+|a\s+bit\s+|somewhat\s+)?"
          r"(?:better|improved|good|stable|more\s+stable|brighter)\b"
          r"|\bfe(?:el|eling)\s+(?:a\s+lot\s+|much\s+|a\s+little\s+|a\s+bit\s+|so\s+much\s+)?"
          r"better\b",
          "better improved good stable brighter"),
    _rule("anhedonia",
          r"\b(?:lost|losing|no)\s+interest\b|\bdon'?t\s+enjoy\s+(?:anything|things|much)"
          r"|\bnothing\s+(?:is\s+fun|feels\s+good|brings\s+me\s+joy|interests\s+me)"
          r"|\bstopped\s+(?:doing|enjoying)\s+(?:things|the\s+things|anything)"
          r"|\bcan'?t\s+enjoy\b|\bdon'?t\s+care\s+about\s+(?:anything|things)",
          "interest enjoy enjoying fun good joy interests things anything",
          negation_in_pattern=True),
    _rule("irritability",
          r"\birritab\w+|\bsnap(?:ping|ped)?\s+at\b|\bshort[- ]tempered\b"
          r"|\b(?:angry|mad)\s+all\s+the\s+time\b|\b(?:lose|losing|lost)\s+my\s+temper\b",
          "irritable irritability snap snapping snapped short angry mad lose losing lost"),
    _rule("anxious",
          r"\bfe(?:el|eling|els|lt)\s+" + _INTENSITY
          + r"(?:anxious|nervous|worried|panicky|on\s+edge|tense|overwhelmed)\b"
          r"|\bI'?m\s+" + _INTENSITY + r"(?:anxious|nervous|worried)\b"
          r"|\banxiety\s+(?:has\s+been|is|'s\s+been|'s)\s+" + _INTENSITY
          + r"(?:bad|high|through\s+the\s+roof|worse|terrible|awful|up)\b"
          r"|\bworr(?:y|ying|ied)\s+(?:all\s+the\s+time|constantly|about\s+everything|nonstop)"
          r"|\bracing\s+thoughts\b|\bcan'?t\s+stop\s+worrying\b",
          "anxious nervous worried panicky edge tense overwhelmed anxiety worry worrying racing"),
    _rule("panic",
          r"\bpanic\s+attacks?\b|\bheart\s+(?:was\s+|starts\s+|started\s+|keeps\s+)?(?:racing"
          r"|pounding)\b|\bthought\s+I\s+was\s+(?:dying|having\s+a\s+heart\s+attack)",
          "panic heart dying"),
    _rule("panic", r"\b(?:couldn'?t|can'?t)\s+breathe\b", "breathe", negation_in_pattern=True),
    _rule("fatigue",
          r"\bno\s+energy\b|\blow\s+energy\b|\b(?:exhausted|drained|wiped\s+out)\b"
          r"|\btired\s+all\s+the\s+time\b|\b(?:always|constantly|so)\s+tired\b|\bfatigue[d]?\b"
          r"|\bdead\s+tired\b|\b(?:can'?t|hard\s+to)\s+get\s+out\s+of\s+bed\b|\bno\s+motivation\b",
          "energy exhausted drained wiped tired fatigue fatigued bed motivation",
          negation_in_pattern=True),
    _rule("concentration",
          r"\bcan'?t\s+(?:focus|concentrate|think\s+straight)\b|\b(?:trouble|difficulty|hard\s+time"
          r"|problems?|hard)\s+(?:to\s+)?(?:focus|focusing|concentrat\w+|paying\s+attention)\b"
          r"|\b(?:easily\s+)?distracted\b|\bbrain\s+fog\b|\bmind\s+(?:keeps\s+)?wander\w*"
          r"|\blosing\s+(?:focus|track)\b|\bforgetful\b|\bzon(?:e|ing)\s+out\b",
          "focus focusing concentrate concentrating concentration straight attention distracted"
          " fog wander wandering wanders track forgetful zone zoning", negation_in_pattern=True),
    _rule("flashbacks",
          r"\bflashbacks?\b|\bintrusive\s+(?:memories|images|thoughts)\b|\bkeep\s+reliving\b"
          r"|\bhypervigilan\w+|\bjumpy\b|\bstartl\w+",
          "flashback flashbacks intrusive keep hypervigilant hypervigilance jumpy startle"
          " startled startles"),
    _rule("alcohol_heavy",
          r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|several|a\s+few|a\s+lot\s+of)\s+"
          r"(?:drinks|beers|glasses\s+of\s+wine|shots)\s+(?:a|every|each|per)\s+(?:night|day"
          r"|evening)\b|\b(?:a|one|two)\s+bottles?\s+of\s+wine\s+(?:a|every|each|per)\s+(?:night"
          r"|day)\b|\bdrinking\s+(?:every\s+(?:night|day)|daily|heavily|a\s+lot|more)\b"
          r"|\bblack(?:ed|ing)?\s+out\b|\bblackouts?\b|\bdrink\s+(?:every\s+(?:night|day)"
          r"|in\s+the\s+morning)\b",
          "drinks beers wine shots drinking black blacked blacking blackout blackouts drink"),
    _rule("drug_use",
          r"\b(?:using|used|smoking|smoked|taking|took|doing|did|relapsed\s+on|shooting)\s+"
          r"(?:weed|cannabis|marijuana|pot|cocaine|coke|meth|heroin|fentanyl|opioids|oxy\w*"
          r"|percs?|xanax\s+bars?|molly|mdma|acid|shrooms|crack)\b|\brelaps(?:e|ed)\b"
          r"|\busing\s+again\b",
          "weed cannabis marijuana pot cocaine coke meth heroin fentanyl opioids oxy oxycodone"
          " oxycontin oxys percs perc xanax molly mdma acid shrooms crack relapse relapsed"
          " using"),
    _rule("cravings", r"\bcravings?\b|\bcraving\b", "craving cravings"),
    _rule("sobriety",
          r"\bsober\s+(?:for\s+)?(?:\d+|\w+)\s+(?:days|weeks|months|years)\b|\b(?:\d+|\w+)\s+"
          r"(?:days|weeks|months|years)\s+sober\b|\bsobriety\b|\bstayed\s+sober\b",
          "sober sobriety"),
)
_SYMPTOM_FINDINGS = {
    "sleep_onset": "Sleep: difficulty falling asleep",
    "sleep_waking": "Sleep: night-time or early waking",
    "insomnia": "Sleep: poor sleep / insomnia reported",
    "hypersomnia": "Sleep: excessive sleep reported",
    "nightmares": "Sleep: nightmares",
    "sleep_better": "Sleep: improvement reported",
    "appetite_down": "Appetite: decreased appetite or eating less",
    "appetite_up": "Appetite: increased appetite or overeating",
    "mood_low": "Mood: low or depressed mood reported",
    "mood_better": "Mood: improvement reported",
    "anhedonia": "Mood: loss of interest or enjoyment (anhedonia)",
    "irritability": "Mood: irritability",
    "anxious": "Anxiety: anxious or worried mood reported",
    "panic": "Anxiety: panic symptoms",
    "fatigue": "Energy: low energy or fatigue",
    "concentration": "Concentration: difficulty concentrating",
    "flashbacks": "Trauma: re-experiencing or hyperarousal (flashbacks, intrusive memories)",
    "alcohol_heavy": "Substance use: heavy or escalating alcohol use",
    "drug_use": "Substance use: drug use or relapse reported",
    "cravings": "Substance use: cravings",
    "sobriety": "Substance use: sobriety or abstinence reported",
}
_SLEEP_PROBLEM_KEYS = frozenset({"sleep_onset", "sleep_waking", "insomnia"})
_DEPRESSIVE_CORE_KEYS = frozenset({"mood_low", "anhedonia"})
_NEUROVEGETATIVE_KEYS = frozenset(
    {"sleep_onset", "sleep_waking", "insomnia", "hypersomnia", "appetite_down", "appetite_up",
     "fatigue", "concentration"}
)
_SUBSTANCE_KEYS = frozenset({"alcohol_heavy", "drug_use", "cravings"})


def _sleep_hours_finding(match: re.Match[str]) -> str:
    hours = _as_int(match.group("hours") or match.group("hours_of"))
    if hours < SHORT_SLEEP_HOURS:
        return f"Sleep: about {hours} hours per night (reduced)"
    if hours >= LONG_SLEEP_HOURS:
        return f"Sleep: about {hours} hours per night (increased)"
    return f"Sleep: about {hours} hours per night"


def _find_symptoms(doc: _Document) -> tuple[dict[str, str], bool]:
    """Symptom key -> finding text (in order of first mention), and whether a sleep problem
    is described as long-standing ("for three months", "every night") where it is reported."""
    found = _first_affirmed(doc, _SYMPTOM_RULES, PATIENT_SIDE)
    ordered = sorted(found.items(), key=lambda item: item[1][1].start())
    findings = {}
    for key, (_number, match) in ordered:
        if key == "sleep_hours":
            findings[key] = _sleep_hours_finding(match)
        else:
            findings[key] = _SYMPTOM_FINDINGS[key]
    last = len(doc.sentences) - 1
    chronic_sleep = any(
        _CHRONIC_RE.search(doc.text, doc.sentences[max(number - 1, 0)].start,
                           doc.sentences[min(number + 1, last)].end)
        for key, (number, _match) in found.items()
        if key in _SLEEP_PROBLEM_KEYS
    )
    return findings, chronic_sleep


# ---------------------------------------------------------------------------------------------
# Softer risk indicators
# ---------------------------------------------------------------------------------------------

_SOFT_RISK_RULES: tuple[_Rule, ...] = (
    _rule("hopelessness",
          r"\bhopeless\w*|\bwhat'?s\s+the\s+point\b|\bwhy\s+(?:even\s+)?bother\b"
          r"|\bgiv(?:e|ing)\s+up\s+on\s+(?:everything|life)",
          "hopeless hopelessness point bother everything life"),
    _rule("hopelessness",
          r"\bno\s+hope\b|\b(?:nothing'?s?|things?)\s+(?:is\s+|are\s+)?(?:never\s+)?"
          r"(?:going\s+to|gonna|will)\s+(?:ever\s+)?(?:get|change)\s+(?:any\s+)?better"
          r"|\bno\s+future\b|\bdon'?t\s+see\s+(?:a|any)\s+(?:future|way\s+out|point)"
          r"|\bno\s+way\s+out\b",
          "hope better change future way point", negation_in_pattern=True),
    _rule("worthlessness",
          r"\bworthless\b|\bI'?m\s+(?:such\s+)?(?:a\s+)?(?:burden|useless|failure|waste"
          r"|pathetic)\b|\bburden\s+(?:to|on)\s+(?:everyone|my\s+family|them|people|you)\b"
          r"|\bhate\s+myself\b",
          "worthless burden useless failure waste pathetic hate"),
    _rule("substance",
          r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|several|a\s+lot\s+of)\s+"
          r"(?:drinks|beers|glasses\s+of\s+wine|shots)\s+(?:a|every|each|per)\s+(?:night|day)\b"
          r"|\b(?:a|one|two)\s+bottles?\s+of\s+wine\s+(?:a|every|each|per)\s+(?:night|day)\b"
          r"|\bdrinking\s+(?:every\s+(?:night|day)|heavily|daily)\b|\bblack(?:ed|ing)?\s+out\b"
          r"|\bblackouts?\b|\brelaps(?:e|ed)\b|\busing\s+again\b|\baccidental(?:ly)?\s+overdos\w+"
          r"|\boverdos\w+\s+(?:by\s+accident|accidentally)\b",
          "drinks beers wine shots drinking black blacked blacking blackout blackouts relapse"
          " relapsed using accidental accidentally overdosed overdose"),
    _rule("loss",
          r"\bpassed\s+away\b|\b(?:mom|mother|dad|father|husband|wife|partner|son|daughter|brother"
          r"|sister|friend|grandma|grandmother|grandpa|grandfather|aunt|uncle|cousin|dog|cat|he"
          r"|she|they)\s+(?:just\s+|recently\s+|suddenly\s+)?died\b|\bdeath\s+of\s+my\b"
          r"|\bfuneral\b|\blost\s+my\s+(?:job|mom|mother|dad|father"
          r"|husband|wife|partner|son|daughter|brother|sister|best\s+friend|friend|baby|home)\b"
          r"|\blaid\s+off\b|\bgot\s+fired\b|\b(?:she|he)\s+left\s+me\b|\bbroke\s+up\s+with\s+me\b"
          r"|\bdivorce\b|\bmiscarriage\b|\bevicted\b",
          "passed died death funeral lost laid fired left broke divorce miscarriage evicted"),
    _rule("isolation",
          r"\b(?:so|really|very|completely|totally)\s+(?:lonely|isolated|alone)\b"
          r"|\bno\s+one\s+to\s+talk\s+to\b|\bnobody\s+(?:cares|would\s+notice)\b"
          r"|\bno\s+one\s+(?:cares|would\s+notice)\b",
          "lonely isolated alone talk cares notice", negation_in_pattern=True),
    _rule("firearm",
          r"\b(?:guns?|firearms?|rifles?|pistols?|handguns?|shotguns?)\b",
          "gun guns firearm firearms rifle rifles pistol pistols handgun handguns shotgun"
          " shotguns"),
    _rule("cant_go_on",
          r"\bcan'?t\s+(?:go\s+on|keep\s+going|do\s+this|take\s+(?:it|this))\s+(?:like\s+this\s+)?"
          r"any\s?more\b|\btired\s+of\s+(?:life|everything|it\s+all)\b|\bdark\s+thoughts\b"
          r"|\bdon'?t\s+care\s+(?:what|if\s+anything)\s+happens\s+to\s+me\b",
          "anymore more life everything all dark happens", negation_in_pattern=True),
    _rule("selfharm_history",
          r"\bused\s+to\s+(?:cut|self[- ]harm|hurt\s+myself|burn\s+myself)\b|\bhistory\s+of\s+"
          r"(?:self[- ]harm|cutting)\b|\b(?:stopped|quit)\s+(?:cutting|self[- ]harming)\b",
          # History stays history even when followed by "but not anymore".
          "cut cutting self harm harming hurt burn", post_negation=False),
    _rule("suicide_exposure",
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
}


def _find_soft_risks(doc: _Document) -> list[str]:
    found = _first_affirmed(doc, _SOFT_RISK_RULES, PATIENT_SIDE)
    ordered = sorted(found.items(), key=lambda item: item[1][1].start())
    return [_SOFT_RISK_FACTORS[key] for key, _match in ordered]


# ---------------------------------------------------------------------------------------------
# Tasks and next steps (clinician statements)
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _TaskTemplate:
    title: str
    assignee: str
    icon: str
    priority: str
    estimated_time: str


# Activities that are homework only when the sentence also assigns them (see _HOMEWORK_CUE).
_HOMEWORK_RULES: tuple[tuple[_Rule, _TaskTemplate], ...] = (
    (_rule("thought_record",
           r"\bthought\s+(?:record|log|diary|journal)s?\b|\bABC\s+(?:worksheet|sheet)\b"
           r"|\bcognitive\s+distortions?\s+(?:worksheet|log)\b",
           "thought abc cognitive"),
     _TaskTemplate("Complete thought record", ASSIGNEE_PATIENT, "clipboard", "medium",
                   "15 min")),
    (_rule("sleep_diary",
           r"\bsleep\s+(?:diary|log|journal|tracker)\b|\btrack(?:ing)?\s+(?:your\s+)?sleep\b",
           "sleep track tracking"),
     _TaskTemplate("Keep a sleep diary", ASSIGNEE_PATIENT, "moon", "medium", "5 min/day")),
    (_rule("mood_log",
           r"\bmood\s+(?:log|diary|tracker|chart|journal)\b|\btrack(?:ing)?\s+(?:your\s+)?mood\b"
           r"|\brate\s+(?:your\s+)?mood\b",
           "mood track tracking rate"),
     _TaskTemplate("Track mood daily", ASSIGNEE_PATIENT, "clipboard", "low", "5 min/day")),
    (_rule("relaxation",
           r"\bbreathing\s+(?:exercise|practice|technique)s?\b|\bbox\s+breathing\b"
           r"|\bdiaphragmatic\s+breathing\b|\b4-7-8\b|\bprogressive\s+muscle\s+relaxation\b"
           r"|\brelaxation\s+(?:exercise|practice|recording|technique)s?\b|\bgrounding\s+"
           r"(?:exercise|technique|skill)s?\b|\b5-4-3-2-1\b|\bmindfulness\s+(?:practice|exercise"
           r"|meditation)s?\b|\bmeditat\w+|\bbody\s+scan\b|\bbreathing\b",
           "breathing box diaphragmatic 4 progressive relaxation grounding 5 mindfulness meditate"
           " meditation meditating body"),
     _TaskTemplate("Practise relaxation or breathing exercise", ASSIGNEE_PATIENT, "heart",
                   "medium", "10 min/day")),
    (_rule("exposure",
           r"\bexposures?\b|\bfear\s+(?:ladder|hierarchy)\b",
           "exposure exposures fear"),
     _TaskTemplate("Complete exposure practice", ASSIGNEE_PATIENT, "activity", "medium",
                   "20 min")),
    (_rule("activation",
           r"\bbehaviou?ral\s+activation\b|\bactivity\s+(?:schedule|log|scheduling)\b"
           r"|\bpleasant\s+activit\w+|\benjoyable\s+activit\w+|\b(?:go\s+for|take)\s+a\s+walk\b"
           r"|\bwalk(?:ing)?\s+(?:every|each|\d+|three|twice)\b",
           "behavioral behavioural activity pleasant enjoyable go take walk walking"),
     _TaskTemplate("Schedule pleasant activities", ASSIGNEE_PATIENT, "activity", "medium",
                   "30 min")),
    (_rule("journaling",
           r"\bjournal(?:ing)?\b|\bwrite\s+(?:down|about|a\s+letter)\b|\bgratitude\s+(?:list"
           r"|journal)\b|\bworry\s+(?:time|log|list)\b",
           "journal journaling write gratitude worry"),
     _TaskTemplate("Journaling exercise", ASSIGNEE_PATIENT, "book", "low", "15 min")),
    (_rule("reading",
           r"\bread\s+(?:the\s+|this\s+|that\s+)?(?:chapter|handout|worksheet|article|book"
           r"|pages?)\b|\b(?:review|look\s+over|go\s+over)\s+(?:the\s+)?(?:handout|worksheet"
           r"|materials?)\b",
           "read review look go"),
     _TaskTemplate("Review handout or reading", ASSIGNEE_PATIENT, "book", "low", "20 min")),
    (_rule("self_monitoring",
           r"\btrack(?:ing)?\s+(?:your\s+|the\s+)?(?:drinks|drinking|use|cravings|urges|spending"
           r"|meals|food)\b|\b(?:drink|drinking|craving|urge)\s+(?:log|diary|tracker)\b"
           r"|\bcount(?:ing)?\s+(?:your\s+)?drinks\b",
           "track tracking drink drinking craving urge count counting"),
     _TaskTemplate("Keep a self-monitoring log (drinks, cravings or urges)", ASSIGNEE_PATIENT,
                   "clipboard", "medium", "5 min/day")),
    (_rule("medication_adherence",
           r"\btake\s+(?:your|the|it|them)\s+(?:\w+\s+)?(?:medication|meds|pills?|dose)?\s*"
           r"(?:every|each|daily|consistently|as\s+prescribed|at\s+the\s+same\s+time)\b"
           r"|\bset\s+(?:a|an)\s+(?:alarm|reminder)\b",
           "take set"),
     _TaskTemplate("Take medication as prescribed", ASSIGNEE_PATIENT, "pill", "medium",
                   "daily")),
)
# Unmistakable assignments ("I'd like you to ...", "for homework ..."), used when the
# activity itself is not one of the recognised ones above.
_ASSIGNMENT = _rule(
    "assignment",
    r"\bhomework\b|\bI'?d\s+(?:also\s+)?like\s+(?:you|both\s+of\s+you)(?:\s+(?:both|two|all))?\s+to\s+"
    r"(?!(?:tell|talk|share|say|describe|think|come|see|meet|call|return|schedule|answer"
    r"|consider|know|feel|remember|understand|hear|bring)\b)|\bI\s+want\s+you(?:\s+both)?\s+to\s+"
    r"(?!(?:know|feel|remember|understand|hear|tell|talk|think)\b)|\b(?:can|could|would)\s+you\s+"
    r"(?:try|keep|practi[cs]e|complete|fill|start|use|write|track)\b[^.?!]{0,60}\b(?:this\s+week"
    r"|each|every|daily|nightly|before)\b",
    "homework like want can could would",
)
_HOMEWORK_CUE = _rule(
    "homework_cue",
    r"\bhomework\b|\bthis\s+(?:coming\s+)?week\b|\bbefore\s+(?:our\s+|your\s+)?next\s+(?:session"
    r"|time|visit|appointment)\b|\bbetween\s+(?:now\s+and|sessions)\b|\b(?:every|each)\s+(?:day"
    r"|night|morning|evening)\b|\bdaily\b|\bnightly\b|\bI'?d\s+like\s+you\s+to\b"
    r"|\bI\s+want\s+you\s+to\b|\b(?:can|could|would)\s+you\s+(?:try|practi[cs]e|do|keep"
    r"|complete|fill|start|use)\b|\btry\s+(?:to\s+)?(?:practi[cs]e|do|use|keep|write|track"
    r"|notice|fill|complete|the)\b|\bfor\s+next\s+time\b|\bassignment\b|\bat\s+home\b"
    r"|\b(?:once|twice|three\s+times|\w+\s+times)\s+a\s+(?:day|week)\b|\bkeep\s+(?:a|an|the"
    r"|your)\b|\bfill\s+(?:out|in)\b|\bcomplete\b|\bpractice\b|\bpractise\b",
    "homework",
)
_SCREENER_TASK = _rule(
    "screener_task",
    r"\b(?:fill\s+out|complete|do|take)\s+(?:the\s+|a\s+|another\s+|your\s+)?(?P<what>PHQ[\s-]?9"
    r"|PHQ[\s-]?2|GAD[\s-]?7|GAD[\s-]?2|PCL[\s-]?5|AUDIT(?:[\s-]?C)?|questionnaire|screener"
    r"|survey|forms?)\b",
    "phq phq9 phq2 gad gad7 gad2 pcl pcl5 audit auditc questionnaire screener survey form forms",
)
_FOLLOW_UP = _rule(
    "follow_up",
    r"\b(?:schedule|book|set\s+up|see\s+you|meet|follow[- ]?up|check[- ]?in|come\s+back"
    r"|next\s+(?:session|appointment|visit))\b[^.?!]{0,60}?\b(?P<when>(?:in|within|after)\s+"
    r"(?:a|one|two|three|four|five|six|eight|\d+|a\s+couple\s+(?:of\s+)?|a\s+few)\s*(?:weeks?"
    r"|days?|months?)|next\s+(?:week|month|monday|tuesday|wednesday|thursday|friday)|tomorrow"
    r"|on\s+(?:monday|tuesday|wednesday|thursday|friday|saturday))\b",
    "weeks week days day months month tomorrow monday tuesday wednesday thursday friday"
    " saturday",
)
# A referral is a task only when someone commits to making it ("I'll send a referral to ...",
# "Refer to psychiatry" in a plan), not when the text says the patient was self-referred.
_REFERRAL = _rule(
    "referral",
    r"(?:\b(?:I'll|I\s+will|I'm\s+going\s+to|I'd\s+like\s+to|I\s+want\s+to|let\s+me|we'll"
    r"|we\s+will|we're\s+going\s+to|going\s+to|plan\s+to|will)\s+(?:\w+\s+){0,2}?"
    r"(?:refer|send\s+(?:a|the|in\s+a)\s+referral|put\s+in\s+(?:a\s+)?referral"
    r"|(?:make|place|submit)\s+(?:a\s+)?referral)"
    r"|(?:^|(?<=[.!?:\n])|(?<=[.!?:\n]\s))\s*(?:plan:\s*)?refer(?:ral)?)"
    r"(?:\s+(?:you|her|him|them))?[^.?!]{0,30}?\b(?:to|for)\s+"
    r"(?:(?:a|an|the|your|our)\s+)?(?P<to>[A-Za-z][\w/-]*(?:\s+(?!(?:so|and|for|to|who|next"
    r"|this|today|because|about|if|as|that|soon|when)\b)[A-Za-z][\w/-]*){0,3})",
    "refer referral",
)
_CONTACT = _rule(
    "contact",
    r"\b(?:I'll|I\s+will|I'm\s+going\s+to|let\s+me|I'd\s+like\s+to|I\s+want\s+to|I\s+need\s+to"
    r"|I\s+plan\s+to)\s+(?:call|reach\s+out\s+to|contact|email|message|talk\s+(?:to|with)"
    r"|speak\s+(?:to|with)|coordinate\s+with|consult\s+with|check\s+(?:in\s+)?with|loop\s+in"
    r"|let)\s+(?P<who>(?:your|her|his|the|their|our)\s+(?:primary\s+care\s+(?:doctor|provider"
    r"|physician)|[A-Za-z][\w-]*(?:\s+(?:team|doctor|provider|physician|nurse|psychiatrist"
    r"|therapist|counsel+or|prescriber|worker|manager|line|clinic))?)|Dr\.?\s+[A-Za-z]+)",
    "call reach contact email message talk speak coordinate consult check loop let",
)
_SEND = _rule(
    "send",
    r"\b(?:I'll|I\s+will|let\s+me|I'm\s+going\s+to)\s+(?:send|email|give|print)\s+you\s+"
    r"(?:a\s+|the\s+|some\s+|that\s+|this\s+)?(?:copy\s+of\s+(?:the\s+)?)?"
    r"(?P<what>worksheet|handout"
    r"|link|information|info|resources?|list|recording|app|materials?|article)\b",
    "send email give print",
)
_POSSESSIVE_RE = re.compile(r"^(?:your|her|his|their)\s+", re.IGNORECASE)
_LABS = _rule(
    "labs",
    r"\b(?:order|check|draw|get)\s+(?:a\s+|some\s+|your\s+|her\s+|his\s+)?"
    r"(?P<what>labs?|blood\s*work"
    r"|(?:lithium|TSH|thyroid|CBC|CMP|metabolic|A1c|lipid|valproate|depakote)\s+(?:level|panel"
    r"|labs?|tests?)s?|EKG|ECG)\b",
    "labs lab bloodwork blood lithium tsh thyroid cbc cmp metabolic a1c lipid valproate depakote"
    " ekg ecg",
)
_SAFETY_PLAN_TASK = _rule(
    "safety_plan",
    r"\b(?:let'?s|we'?ll|we\s+will|we\s+should|going\s+to|want\s+to)\s+(?:\w+\s+){0,3}?"
    r"(?:review|update|go\s+over|complete|write|revisit|work\s+on)\s+(?:your\s+|the\s+|a\s+)?"
    r"safety\s+plan\b",
    "safety",
)

_TASK_FOLLOW_UP = _TaskTemplate("Schedule follow-up", ASSIGNEE_CARE_TEAM, "calendar", "medium",
                                "5 min")
_TASK_REFERRAL = _TaskTemplate("Send referral", ASSIGNEE_CLINICIAN, "phone", "medium", "15 min")
_TASK_CONTACT = _TaskTemplate("Contact", ASSIGNEE_CLINICIAN, "phone", "medium", "10 min")
_TASK_SEND = _TaskTemplate("Send", ASSIGNEE_CLINICIAN, "book", "low", "5 min")
_TASK_LABS = _TaskTemplate("Order labs", ASSIGNEE_CLINICIAN, "clipboard", "medium", "10 min")
_TASK_HOMEWORK = _TaskTemplate("Complete assigned homework", ASSIGNEE_PATIENT, "book", "medium",
                               "1 week")
_TASK_SCREENER = _TaskTemplate("Complete questionnaire before next session", ASSIGNEE_PATIENT,
                               "clipboard", "low", "5 min")
_TASK_SAFETY_PLAN = _TaskTemplate("Review safety plan", ASSIGNEE_CLINICIAN, "alert", "high",
                                  "20 min")
_TASK_PRESCRIPTION = _TaskTemplate("Update prescription", ASSIGNEE_CLINICIAN, "pill", "medium",
                                   "10 min")
_TASK_CRISIS = _TaskTemplate("Complete safety plan / crisis follow-up", ASSIGNEE_CLINICIAN,
                             "alert", "urgent", "30 min")
_CRISIS_DESCRIPTIONS = {
    IMMINENT: "Imminent-risk language detected. Do not end contact without a safety plan; "
              "arrange same-day crisis evaluation (988 or emergency services if needed) and "
              "means restriction.",
    "high": "Crisis language detected. Complete a Stanley-Brown safety plan, counsel on means "
            "restriction and schedule a check-in within 24-72 hours.",
}
_SCREENER_NAME_CLEAN = {"PHQ": "PHQ-", "GAD": "GAD-", "PCL": "PCL-"}


@dataclass(frozen=True)
class _Task:
    template: _TaskTemplate
    title: str
    description: str
    start: int  # position in the transcript, for ordering


def _task(template: _TaskTemplate, description: str, start: int, title: str | None = None) -> _Task:
    return _Task(template, title or template.title, _clip(description, MAX_DESCRIPTION_CHARS),
                 start)


def _clinician_matches(doc: _Document, rule: _Rule) -> Iterator[tuple[int, re.Match[str]]]:
    for number, match in doc.finditer(rule.regex, rule.anchors, CLINICIAN_SIDE):
        if not is_negated(doc.text, match.start()):
            yield number, match


def _homework_tasks(doc: _Document) -> list[_Task]:
    tasks = []
    assigned: set[int] = set()
    for rule, template in _HOMEWORK_RULES:
        for number, match in _clinician_matches(doc, rule):
            sentence = doc.sentences[number]
            if _HOMEWORK_CUE.regex.search(doc.text, sentence.start, sentence.end):
                tasks.append(_task(template, doc.sentence_text(number), match.start()))
                assigned.add(number)
                break
    # An explicit assignment with no recognised activity still becomes a (generic) task.
    for number, match in _clinician_matches(doc, _ASSIGNMENT):
        if number not in assigned:
            tasks.append(_task(_TASK_HOMEWORK, doc.sentence_text(number), match.start()))
            assigned.add(number)
    return tasks


def _screener_task_title(what: str) -> str:
    name = what.upper().replace(" ", "").replace("-", "")
    for prefix, clean in _SCREENER_NAME_CLEAN.items():
        if name.startswith(prefix):
            return f"Complete {clean}{name[len(prefix):]} before next session"
    if name.startswith("AUDIT"):
        return f"Complete {'AUDIT-C' if name.endswith('C') else 'AUDIT'} before next session"
    return _TASK_SCREENER.title


def _scheduling_tasks(doc: _Document) -> list[_Task]:
    tasks = []
    for number, match in _clinician_matches(doc, _SCREENER_TASK):
        title = _screener_task_title(match.group("what"))
        tasks.append(_task(_TASK_SCREENER, doc.sentence_text(number), match.start(), title))
        break
    for _number, match in _clinician_matches(doc, _FOLLOW_UP):
        when = " ".join(match.group("when").split())
        tasks.append(_task(_TASK_FOLLOW_UP, f"Follow-up {when}", match.start(),
                           f"Schedule follow-up {when}"))
        break
    return tasks


def _clinician_action_tasks(doc: _Document) -> list[_Task]:
    tasks = []
    for number, match in _clinician_matches(doc, _REFERRAL):
        target = " ".join(match.group("to").split())
        tasks.append(_task(_TASK_REFERRAL, doc.sentence_text(number), match.start(),
                           f"Send referral to {target}"))
    for number, match in _clinician_matches(doc, _CONTACT):
        who = _POSSESSIVE_RE.sub("patient's ", " ".join(match.group("who").split()))
        tasks.append(_task(_TASK_CONTACT, doc.sentence_text(number), match.start(),
                           f"Contact {who}"))
    for number, match in _clinician_matches(doc, _SEND):
        tasks.append(_task(_TASK_SEND, doc.sentence_text(number), match.start(),
                           f"Send {match.group('what').lower()} to patient"))
    for number, match in _clinician_matches(doc, _LABS):
        what = " ".join(match.group("what").split())
        tasks.append(_task(_TASK_LABS, doc.sentence_text(number), match.start(),
                           f"Order labs ({what})"))
    for number, match in _clinician_matches(doc, _SAFETY_PLAN_TASK):
        tasks.append(_task(_TASK_SAFETY_PLAN, doc.sentence_text(number), match.start()))
        break
    return tasks


def _prescription_tasks(meds: list[_Medication]) -> list[_Task]:
    tasks = []
    for med in meds:
        new = [change for change in med.changes if change.is_new_prescription]
        if new:
            tasks.append(_task(_TASK_PRESCRIPTION, f"Medication change discussed: {new[0].phrase}.",
                               0, f"Update {med.generic} prescription ({new[0].kind})"))
    return tasks


def _build_tasks(doc: _Document, assessment: CrisisAssessment,
                 meds: list[_Medication]) -> list[dict]:
    found = (
        _homework_tasks(doc) + _scheduling_tasks(doc) + _clinician_action_tasks(doc)
    )
    found.sort(key=lambda task: task.start)
    found += _prescription_tasks(meds)
    if assessment.level is not None:
        # The crisis task below already covers safety planning.
        found = [task for task in found if task.template is not _TASK_SAFETY_PLAN]
        found.insert(0, _task(_TASK_CRISIS, _CRISIS_DESCRIPTIONS[assessment.level], -1))
    tasks: list[dict] = []
    seen: set[str] = set()
    for task in found:
        if task.title.lower() in seen:
            continue
        seen.add(task.title.lower())
        tasks.append({
            "id": len(tasks) + 1,
            "title": task.title,
            "description": task.description,
            "assignee": task.template.assignee,
            "icon": task.template.icon,
            "priority": task.template.priority,
            "estimatedTime": task.template.estimated_time,
        })
    return tasks


def _next_steps(tasks: list[dict]) -> list[str]:
    return [f"{task['assignee'].capitalize()}: {task['title']}" for task in tasks]


# ---------------------------------------------------------------------------------------------
# Decisions and topics
# ---------------------------------------------------------------------------------------------

_DECISION_VERBS = (
    r"(?:increase|decrease|continue|start(?!\s+(?:by|with|off)\b)|stop|switch|keep(?!\s+an\s+eye)"
    r"|add|taper|hold|try"
    r"|reduce|move|begin|meet|schedule|use|revisit|pause|wait)"
)
# Agreements count from anyone in the room (partners in couples work agree on things too).
_AGREEMENT = _rule(
    "agreement",
    r"\b(?:(?:you\s+and\s+I|we)\s+(?:both\s+|all\s+)?agreed(?:\s+(?:that|to|on))?"
    r"|we(?:'ve|\s+have)?\s+(?:both\s+)?decided(?:\s+(?:that|to|on))?)\s*",
    "agreed decided",
)
# Plans announced in the clinician's voice.
_DECISION = _rule(
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


def _decision_matches(doc: _Document) -> list[tuple[int, re.Match[str]]]:
    found = [
        (number, match)
        for number, match in doc.finditer(_AGREEMENT.regex, _AGREEMENT.anchors, ALL_ROLES)
        if not is_negated(doc.text, match.start())
    ]
    found += _clinician_matches(doc, _DECISION)
    return sorted(found, key=lambda item: item[1].start())


def _find_decisions(doc: _Document) -> list[str]:
    decisions = []
    for number, match in _decision_matches(doc):
        sentence = doc.sentences[number]
        if doc.text[sentence.start:sentence.end].rstrip().endswith("?"):
            continue
        rest = _DECISION_END_RE.split(doc.text[match.end():sentence.end], maxsplit=1)[0]
        rest = rest.strip().rstrip(".!")
        if len(rest.split()) < 2:
            continue
        decisions.append(_clip(rest[0].upper() + rest[1:], MAX_DECISION_CHARS))
    return _dedupe(decisions)


_TOPIC_RULES: tuple[_Rule, ...] = (
    _word_rule("Work stress",
               "at work|from work|to work|after work|my work|work stress|workload|workplace|job"
               "|jobs|boss|coworker|coworkers|co-worker|co-workers|deadline|deadlines|manager"
               "|office|laid off|layoffs|overtime|shift|shifts|career|promotion|got fired"
               "|performance review"),
    _word_rule("Relationships",
               "partner|boyfriend|girlfriend|husband|wife|spouse|fiance|fiancee|marriage"
               "|married|relationship|relationships|dating|divorce|divorced|breakup|break up"
               "|broke up|separated|separation|couples|argument|arguments|arguing|fight|fights"
               "|fighting|communication"),
    _word_rule("Family",
               "mom|mother|dad|father|parents|parent|sister|sisters|brother|brothers|sibling"
               "|siblings|kids|children|son|daughter|family|in-laws|grandmother|grandma"
               "|grandfather|grandpa|stepdad|stepmom"),
    _word_rule("Sleep", "sleep|sleeping|slept|insomnia|nightmares|nightmare|bedtime|awake|naps"),
    _rule("Grief and loss",
          r"\b(?:passed\s+away|died|death|funeral|grief|grieving|bereave\w*|miscarriage"
          r"|widow(?:ed|er)?|anniversary\s+of|lost\s+my\s+(?:mom|mother|dad|father|husband|wife"
          r"|son|daughter|brother|sister|partner|baby|best\s+friend))\b"
          r"|(?<!weight\s)(?<!hair\s)(?<!memory\s)(?<!hearing\s)(?<!blood\s)\bloss\b",
          "passed died death funeral grief grieving bereavement bereaved miscarriage widow"
          " widowed widower anniversary lost loss"),
    _word_rule("Substance use",
               "drink|drinks|drinking|drank|alcohol|beer|beers|wine|vodka|whiskey|liquor|weed"
               "|cannabis|marijuana|edibles|vaping|cocaine|meth|heroin|fentanyl|opioids|opioid"
               "|sober|sobriety|relapse|relapsed|AA meeting|AA meetings|sponsor|using again"
               "|hungover|hangover|blackout|blackouts|cravings|craving"),
    _word_rule("Trauma",
               "trauma|traumatic|abuse|abused|abusive|assault|assaulted|flashbacks|flashback"
               "|PTSD|combat|deployment|deployed|molested|violence|violent|car accident|PCL-5"
               "|PCL5"),
    _word_rule("Anxiety",
               "anxiety|anxious|panic|panicky|worry|worries|worried|worrying|nervous|on edge"
               "|overwhelmed"),
    _word_rule("Depression",
               "depression|depressed|depressive|low mood|hopeless|hopelessness|sad|sadness"
               "|empty|numb|PHQ-9|PHQ9|PHQ 9"),
    _word_rule("Medication",
               "medication|medications|meds|prescription|prescribed|dose|doses|dosage|refill"
               "|refills|side effects|side effect|pharmacy"),
    _word_rule("School",
               "school|class|classes|exam|exams|finals|midterm|midterms|college|university"
               "|grades|teacher|teachers|professor|semester|GPA"),
    _word_rule("Finances",
               "money|rent|bills|debt|finances|financial|financially|paycheck|afford|mortgage"
               "|loan|loans|budget|evicted|eviction"),
    _word_rule("Safety and suicide risk",
               "suicide|suicidal|kill myself|kill yourself|killing myself|self-harm|self harm"
               "|cutting myself|hurt myself|hurt yourself|hurting myself|safety plan"
               "|end my life|want to die|better off dead|988|crisis line"),
    _word_rule("Attention and focus",
               "ADHD|attention|focus|focusing|concentrate|concentration|distracted|distractible"
               "|hyperactive|impulsive|procrastinating|procrastination"),
    _word_rule("Anger", "anger|angry|rage|furious|irritable|irritability|temper"),
    _word_rule("Self-esteem",
               "self-esteem|self esteem|worthless|confidence|self-worth|not good enough|failure"
               "|hate myself"),
    _word_rule("Eating and appetite",
               "appetite|binge|binging|bingeing|purging|body image|calories|not eating"),
    _word_rule("Loneliness and isolation", "lonely|loneliness|isolated|isolating|isolation"),
    _word_rule("Pregnancy and postpartum",
               "pregnant|pregnancy|postpartum|newborn|breastfeeding"),
    _word_rule("Physical health",
               "chronic pain|pain|surgery|cancer|diabetes|migraine|migraines|illness"
               "|blood pressure"),
)


def _find_topics(doc: _Document, meds: list[_Medication]) -> list[str]:
    first: dict[str, int] = {}
    for rule in _TOPIC_RULES:
        for _number, match in doc.finditer(rule.regex, rule.anchors, ALL_ROLES):
            first[rule.key] = match.start()
            break
    if meds and "Medication" not in first:
        first["Medication"] = len(doc.text)
    return [topic for topic, _position in sorted(first.items(), key=lambda item: item[1])]


# ---------------------------------------------------------------------------------------------
# Context and vital signs
# ---------------------------------------------------------------------------------------------

def _context_strings(context: Mapping, key: str) -> list[str]:
    value = context.get(key)
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        return []
    items = [" ".join(str(item).split()) for item in value if isinstance(item, str | int)]
    return _dedupe([item[:MAX_DESCRIPTION_CHARS] for item in items])[:MAX_CONTEXT_ITEMS]


def _patient_age(context: Mapping) -> int | None:
    value = context.get("patient_age", context.get("age"))
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        match = re.match(r"\s*(-?\d+(?:\.\d+)?)", value)
        return float(match.group(1)) if match else None
    return None


def _vital(vitals: Mapping, *keys: str) -> float | None:
    for key in keys:
        if key in vitals:
            return _number(vitals[key])
    return None


def _blood_pressure(vitals: Mapping) -> tuple[float, float] | None:
    value = vitals.get("blood_pressure", vitals.get("bloodPressure", vitals.get("bp")))
    if isinstance(value, str):
        match = re.match(r"\s*(\d{2,3})\s*/\s*(\d{2,3})", value)
        if match:
            return float(match.group(1)), float(match.group(2))
    systolic = _vital(vitals, "systolic", "systolic_bp")
    diastolic = _vital(vitals, "diastolic", "diastolic_bp")
    if systolic is not None and diastolic is not None:
        return systolic, diastolic
    return None


def _fmt(value: float) -> str:
    return str(int(value)) if value.is_integer() else str(value)


def _vital_findings(vitals: Mapping) -> list[str]:
    findings = []
    heart_rate = _vital(vitals, "heart_rate", "heartRate", "hr", "pulse")
    if heart_rate is not None and heart_rate > HEART_RATE_HIGH:
        findings.append(f"Elevated heart rate ({_fmt(heart_rate)} bpm)")
    elif heart_rate is not None and heart_rate < HEART_RATE_LOW:
        findings.append(f"Low heart rate ({_fmt(heart_rate)} bpm)")
    pressure = _blood_pressure(vitals)
    if pressure is not None:
        systolic, diastolic = pressure
        reading = f"{_fmt(systolic)}/{_fmt(diastolic)} mmHg"
        if systolic >= SYSTOLIC_HIGH or diastolic >= DIASTOLIC_HIGH:
            findings.append(f"Elevated blood pressure ({reading})")
        elif systolic < SYSTOLIC_LOW or diastolic < DIASTOLIC_LOW:
            findings.append(f"Low blood pressure ({reading})")
    breathing = _vital(vitals, "respiratory_rate", "respiratoryRate", "rr")
    if breathing is not None and not RESPIRATORY_RATE_LOW <= breathing <= RESPIRATORY_RATE_HIGH:
        findings.append(f"Abnormal respiratory rate ({_fmt(breathing)}/min)")
    spo2 = _vital(vitals, "oxygen_saturation", "oxygenSaturation", "spo2", "SpO2", "o2_sat")
    if spo2 is not None and spo2 < SPO2_LOW:
        findings.append(f"Low oxygen saturation ({_fmt(spo2)}%)")
    temperature = _vital(vitals, "temperature", "temp", "temperature_c", "temperature_f")
    if temperature is not None:
        fahrenheit = temperature > CELSIUS_FAHRENHEIT_SPLIT
        if temperature >= (FEVER_FAHRENHEIT if fahrenheit else FEVER_CELSIUS):
            findings.append(f"Fever ({_fmt(temperature)} {'F' if fahrenheit else 'C'})")
    bmi = _vital(vitals, "bmi", "BMI")
    if bmi is not None and (bmi >= BMI_HIGH or bmi < BMI_LOW):
        findings.append(f"BMI outside healthy range ({_fmt(bmi)})")
    return findings


# ---------------------------------------------------------------------------------------------
# Differentials, plan and recommendations
# ---------------------------------------------------------------------------------------------

_CHRONIC_RE = re.compile(
    r"\bfor\s+(?:\w+\s+)?(?:months|years)\b|\b(?:three|3|four|4|six|6|several|a\s+few|many)\s+"
    r"(?:months|years)\b|\bmost\s+nights\b|\bevery\s+night\b|\bsince\s+(?:last\s+)?(?:spring"
    r"|summer|fall|autumn|winter|january|february|march|april|may|june|july|august|september"
    r"|october|november|december)\b",
    re.IGNORECASE,
)
# Patient statements that support a differential beyond a screener score.
_SUPPORT_RULES: tuple[_Rule, ...] = (
    _rule("trauma",
          r"\b(?:trauma\w*|assault\w*|abuse[d]?|abusive|combat|deploy\w*|accident|attack(?:ed)?"
          r"|raped?|molest\w*|violence|shooting|PTSD|convoy|IED)\b",
          "trauma traumatic traumatized assault assaulted abuse abused abusive combat deploy"
          " deployed deployment accident attack attacked rape raped molested violence shooting"
          " ptsd convoy ied"),
    _rule("alcohol_problem",
          r"\b(?:blackouts?|blacked\s+out|withdrawal|shakes|can'?t\s+stop\s+drinking|cut\s+(?:back"
          r"|down)\s+on\s+(?:drinking|alcohol)|drink\s+in\s+the\s+morning|cravings?)\b",
          "blackout blackouts blacked withdrawal shakes drinking alcohol drink craving cravings"),
    _rule("panic_disorder",
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
class _Facts:
    """Everything the derived sections are built from."""

    # Keys of _SUPPORT_RULES found in the patient's statements.
    support: frozenset[str]
    screeners: dict[str, _ScreenerResult]
    symptoms: dict[str, str]
    chronic_sleep_problem: bool
    soft_risks: list[str]
    meds: list[_Medication]
    assessment: CrisisAssessment
    diagnoses: list[str]
    age: int | None
    vitals: list[str]
    tasks: list[dict]


def _already_diagnosed(facts: _Facts, key: str) -> bool:
    return any(_DIAGNOSIS_SYNONYMS[key].search(diagnosis) for diagnosis in facts.diagnoses)


def _score(facts: _Facts, name: str) -> int | None:
    result = facts.screeners.get(name)
    return None if result is None else result.score


def _depression_supported(facts: _Facts) -> bool:
    keys = set(facts.symptoms)
    return bool(keys & _DEPRESSIVE_CORE_KEYS) or len(keys & _NEUROVEGETATIVE_KEYS) >= 2


def _differentials(facts: _Facts) -> list[str]:
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


def _crisis_plan(facts: _Facts) -> tuple[list[str], list[str]]:
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


def _screener_plan(facts: _Facts) -> tuple[list[str], list[str]]:
    plan: list[str] = []
    recommendations: list[str] = []
    phq9 = _score(facts, "PHQ-9")
    if phq9 is not None and phq9 >= PHQ9_CLINICAL_CUTOFF:
        plan.append(
            "Evidence-based psychotherapy for depression (e.g. CBT, behavioural activation)"
        )
        recommendations.append("Repeat PHQ-9 in 2-4 weeks")
        if phq9 >= PHQ9_MEDICATION_REVIEW_CUTOFF:
            on_antidepressant = any(med.generic in _ANTIDEPRESSANTS for med in facts.meds)
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


def _symptom_plan(facts: _Facts) -> tuple[list[str], list[str]]:
    plan: list[str] = []
    recommendations: list[str] = []
    keys = set(facts.symptoms)
    if keys & _SLEEP_PROBLEM_KEYS:
        plan.append("Sleep hygiene review; consider CBT-I")
    if keys & _SUBSTANCE_KEYS:
        plan.append("Motivational interviewing for substance use")
        if "AUDIT" not in facts.screeners and "AUDIT-C" not in facts.screeners:
            recommendations.append("Screen with AUDIT (alcohol) or DAST-10 (drugs)")
    if facts.assessment.level is None and facts.soft_risks:
        recommendations.append("Re-screen suicide risk (C-SSRS) at the next visit")
    return plan, recommendations


def _medication_plan(facts: _Facts) -> tuple[list[str], list[str]]:
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


def _plan_and_recommendations(facts: _Facts) -> tuple[list[str], list[str]]:
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
    return _dedupe(plan), _dedupe(recommendations)


# ---------------------------------------------------------------------------------------------
# Risk
# ---------------------------------------------------------------------------------------------

_KIND_SUMMARY = {
    "wish_to_be_dead": "a wish to be dead",
    "suicidal_ideation": "suicidal ideation",
    "method": "a suicide method",
    "intent": "suicidal intent",
    "plan": "a suicide plan",
    "past_attempt": "a past suicide attempt",
    "means_access": "access to lethal means",
    "self_harm": "self-harm",
    "homicidal_ideation": "thoughts of harming others",
}


def _risk_assessment(assessment: CrisisAssessment, soft_risks: list[str]) -> dict:
    crisis_factors = [signal.factor for signal in assessment.signals]
    if assessment.level is not None:
        kinds = ", ".join(_KIND_SUMMARY[signal.kind] for signal in assessment.signals)
        level = assessment.level
        action = ("same-day crisis evaluation is needed" if level == IMMINENT
                  else "safety assessment and safety planning are needed")
        summary = f"{level.capitalize()} risk: the patient disclosed {kinds}; {action}."
    elif soft_risks:
        level = "moderate"
        summary = ("Moderate risk: " + "; ".join(factor.lower() for factor in soft_risks)
                   + ", without explicit suicidal or homicidal statements.")
    else:
        level = "low"
        summary = "Low risk: no crisis language or other risk indicators were identified."
    risk = {"level": level, "summary": summary, "factors": _dedupe(crisis_factors + soft_risks)}
    return apply_safety_floor(risk, assessment)


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
    doc = _Document(turns)
    assessment = assess_turns(turns)
    screener_list, cssrs = _find_screeners(doc)
    meds = _find_medications(doc)
    symptoms, chronic_sleep_problem = _find_symptoms(doc)
    tasks = _build_tasks(doc, assessment, meds)
    facts = _Facts(
        support=frozenset(_first_affirmed(doc, _SUPPORT_RULES, PATIENT_SIDE)),
        screeners={result.name: result for result in screener_list},
        symptoms=symptoms,
        chronic_sleep_problem=chronic_sleep_problem,
        soft_risks=_find_soft_risks(doc),
        meds=meds,
        assessment=assessment,
        diagnoses=_context_strings(context, "diagnoses"),
        age=_patient_age(context),
        vitals=_vital_findings(vitals),
        tasks=tasks,
    )
    plan, recommendations = _plan_and_recommendations(facts)
    return {
        "aiTasks": tasks,
        "visitSummary": {
            "topicsDiscussed": _find_topics(doc, meds),
            "keyFindings": _key_findings(facts, screener_list, cssrs),
            "decisionsMade": _find_decisions(doc),
            "nextSteps": _next_steps(tasks),
        },
        "differentialDiagnoses": _differentials(facts),
        "riskAssessment": _risk_assessment(assessment, facts.soft_risks),
        "clinicalFindings": _clinical_findings(facts, screener_list, context),
        "treatmentPlan": plan,
        "recommendations": recommendations,
    }


def _key_findings(facts: _Facts, screeners: list[_ScreenerResult], cssrs: list[str]) -> list[str]:
    findings = []
    if facts.assessment.level is not None:
        kinds = ", ".join(_KIND_SUMMARY[s.kind] for s in facts.assessment.signals)
        findings.append(f"Crisis language detected ({kinds}); risk level {facts.assessment.level}")
    findings += [result.finding for result in screeners]
    findings += cssrs
    findings += _medication_key_findings(facts.meds)
    findings += [f"Existing diagnosis: {diagnosis}" for diagnosis in facts.diagnoses]
    return _dedupe(findings)


def _clinical_findings(facts: _Facts, screeners: list[_ScreenerResult],
                       context: Mapping) -> list[str]:
    findings = [result.finding for result in screeners]
    findings += [f"Medication mentioned: {med.label}" for med in facts.meds]
    findings += [
        f"Current medication (chart): {item}" for item in _context_strings(context, "medications")
    ]
    findings += list(facts.symptoms.values())
    findings += facts.vitals
    return _dedupe(findings)
