"""Reading a transcript: speaker turns, clauses, negation and who a clause is about.

Shared by crisis detection and the rules analyzer. A transcript is split into turns by speaker
labels ("Therapist:", "Dr. Lopez (10:02):", "Client:"); unlabelled text and note headings are
``ROLE_NOTE``. ``is_negated`` tells whether a match is negated within its clause ("I'm not
suicidal", "denies SI").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

ROLE_CLINICIAN = "clinician"
ROLE_PATIENT = "patient"
ROLE_NOTE = "note"
# A family member or partner in the room: their words are read as the patient's are (missing
# risk is worse), and what they tell of "he" or "she" is read as told of the patient too.
ROLE_COLLATERAL = "collateral"
# Negation only reaches this many words back, so an unrelated "no" early in a long clause
# ("no, honestly, lately I ...") does not cancel a disclosure.
NEGATION_WINDOW_WORDS = 8
# How far back (in characters) clause and subject detection look before a match.
PREFIX_WINDOW_CHARS = 200
# Longest speaker label accepted, in words ("Dr. Maria Lopez", "Patient (Jane)").
MAX_LABEL_WORDS = 4
# A speaker label (with timestamp and parenthetical) fits in this many leading characters.
LABEL_SEARCH_CHARS = 100
# Speaker labels repeat on every turn, so their classification is cached.
LABEL_CACHE_SIZE = 256


@dataclass(frozen=True)
class Turn:
    """One speaker turn. ``role`` is ROLE_CLINICIAN, ROLE_PATIENT or ROLE_NOTE (unlabelled
    text, preamble and note sections such as "Plan:")."""

    role: str
    text: str


# ---------------------------------------------------------------------------------------------
# Text normalisation and speaker turns
# ---------------------------------------------------------------------------------------------

_NORMALIZE_TABLE = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u2013": " - ",
        "\u2014": " - ",
        "\u2026": "...",
        "\u00a0": " ",
    }
)


def normalize_text(text: str) -> str:
    """Fold typographic quotes and dashes so patterns only need ASCII forms."""
    return text.translate(_NORMALIZE_TABLE)


_LABEL_RE = re.compile(
    r"^[ \t]*(?:\[?\(?\d{1,2}:\d{2}(?::\d{2})?\)?\]?[ \t]*)?"  # optional timestamp
    r"(?P<label>[A-Za-z][A-Za-z0-9.' \-]{0,40}?)[ \t]*(?:\([^)\n]{0,40}\))?[ \t]*:(?:[ \t]+|$)"
)

_CLINICIAN_WORDS = frozenset(
    {
        "therapist", "clinician", "provider", "counselor", "counsellor", "doctor", "dr",
        "psychiatrist", "psychologist", "nurse", "np", "md", "lcsw", "lpc", "lmft", "lmhc",
        "interviewer", "facilitator", "prescriber", "practitioner", "social worker",
        "case manager", "t", "th", "doc", "pmhnp", "apn", "aprn", "intern", "trainee",
    }
)
_CLINICIAN_TITLES = frozenset({"dr", "doctor", "nurse", "therapist", "counselor", "counsellor"})
_PATIENT_WORDS = frozenset({"patient", "client", "pt", "p", "c", "member", "consumer"})
_COLLATERAL_WORDS = frozenset(
    {
        "mother", "mom", "mum", "mommy", "mama", "father", "dad", "daddy", "papa", "parent",
        "parents", "guardian", "stepmother", "stepfather", "stepmom", "stepdad", "grandmother",
        "grandfather", "grandma", "grandpa", "granny", "aunt", "uncle", "partner", "wife",
        "husband", "spouse", "boyfriend", "girlfriend", "fiance", "fiancee", "caregiver",
        "carer", "family", "foster",
    }
)
_NOTE_HEADINGS = frozenset(
    {
        "note", "notes", "subjective", "objective", "assessment", "plan", "hpi", "history",
        "risk", "risk assessment", "mse", "mental status", "summary", "diagnosis", "diagnoses",
        "medications", "meds", "vitals", "chief complaint", "cc", "impression", "interventions",
        "intervention", "homework", "goals", "date", "time", "session", "follow-up",
        "follow up", "session notes", "progress note", "response", "data", "screening",
        "screeners", "safety", "next steps", "context", "reason for visit", "presenting problem",
    }
)
_SPEAKER_NUMBER_RE = re.compile(r"^(?:speaker|person|participant)\s*\d{1,2}$", re.IGNORECASE)


@functools.lru_cache(maxsize=LABEL_CACHE_SIZE)
def _classify_label(label: str) -> str | None:
    """Role for a line-initial label, or None when the text before the colon is not a label."""
    norm = " ".join(label.replace(".", " ").split()).lower()
    words = norm.split()
    if not words or len(words) > MAX_LABEL_WORDS:
        return None
    if norm in _CLINICIAN_WORDS or words[0] in _CLINICIAN_TITLES or words[-1] in _CLINICIAN_WORDS:
        return ROLE_CLINICIAN
    if norm in _PATIENT_WORDS or words[0] in _PATIENT_WORDS:
        return ROLE_PATIENT
    if words[0] in _COLLATERAL_WORDS:
        return ROLE_COLLATERAL
    if norm in _NOTE_HEADINGS:
        return ROLE_NOTE
    if _SPEAKER_NUMBER_RE.match(label.strip()):
        return ROLE_PATIENT
    # Any other capitalised name ("Maria:", "Mom:") is someone in the room other than the
    # clinician; their words are read like the patient's, because missing risk is worse.
    label_words = label.split()
    if len(label_words) <= MAX_LABEL_WORDS - 1 and all(
        word[0].isupper() and word.replace(".", "").replace("'", "").isalpha()
        for word in label_words
    ):
        return ROLE_PATIENT
    return None


def split_turns(transcript: str) -> list[Turn]:
    """Split a transcript into speaker turns; unlabelled text becomes ROLE_NOTE turns.

    Lines without a label continue the current turn, so wrapped paragraphs stay together.
    """
    turns: list[Turn] = []
    role = ROLE_NOTE
    lines: list[str] = []
    for line in transcript.splitlines():
        # Cheap pre-check: a label's colon sits near the start of the line.
        match = _LABEL_RE.match(line) if ":" in line[:LABEL_SEARCH_CHARS] else None
        new_role = _classify_label(match.group("label")) if match else None
        if match is None or new_role is None:
            lines.append(line)
            continue
        if any(part.strip() for part in lines):
            turns.append(Turn(role, "\n".join(lines).strip()))
        role = new_role
        # Note headings ("Plan:", "Homework:") are content, so they stay in the text.
        lines = [line if new_role == ROLE_NOTE else line[match.end():]]
    if any(part.strip() for part in lines):
        turns.append(Turn(role, "\n".join(lines).strip()))
    return turns


# ---------------------------------------------------------------------------------------------
# Clause, negation and subject helpers
# ---------------------------------------------------------------------------------------------

# Words that open a new clause about the speaker after "and", "so" or a comma: "I'm not
# hungry and my mood is low" holds two clauses, so the "not" does not reach "mood is low".
_CLAUSE_OPENER = r"(?:I|I'm|I've|I'd|I'll|I\s+am|I\s+was|i'm|im|ive|my|then|now|lately)"
CLAUSE_BOUNDARY_RE = re.compile(
    r"[.!?;:\n]+"
    r"|\s-\s"
    r"|,\s*(?=(?:and\s+|but\s+|so\s+)?" + _CLAUSE_OPENER + r"\b)"
    r"|\b(?:but|although|though|however|except|whereas|yet)\b"
    r"|\b(?:and|so|because|cause|cuz)\s+(?=" + _CLAUSE_OPENER + r"\b)",
    re.IGNORECASE,
)
_CLAUSE_END_RE = re.compile(r"[.!?;\n]|\s-\s|\b(?:but|although|though|however)\b", re.IGNORECASE)

_NEGATION_RE = re.compile(
    r"\b(?:not|never|no|none|nor|neither|without|deny|denies|denied|denying|cannot"
    r"|negative\s+for|rules?\s+out|ruled\s+out|free\s+of|absence\s+of"
    r"|(?:do|does|did|have|has|had|would|could|should|is|are|was|were|ca|wo|ai|must)n'?t)\b",
    re.IGNORECASE,
)
# Phrases that contain a negation word but do not negate what follows them.
_NEGATION_EXCEPTION_RE = re.compile(
    r"\b(?:can'?t|cannot|couldn'?t|could\s+not)\s+(?:stop|help|shake|quit"
    r"|get\s+(?:it|this|that|them|the\s+\w+)\s+out|seem\s+to\s+stop|stop\s+myself)\b"
    r"|\b(?:don'?t|do\s+not|didn'?t|not)\s+(?:know|sure|understand)\s+"
    r"(?:why|how|if|what|whether|when)\b"
    r"|\b(?:didn'?t|haven'?t|hadn'?t|never|not)\s+(?:told|tell|mentioned|said)\b"
    r"|\bnever\s+stop(?:s|ped)?\b|\bnot\s+(?:only|just)\b|\bno\s+matter\b"
    r"|\bno\s+(?:one|body)\b|\bnot\s+a\s+day\s+goes\s+by\b|\bdon'?t\s+care\s+(?:if|whether)\b"
    r"|\bno\s+longer\s+care\b|\bnot\s+(?:gonna|going\s+to)\s+lie\b",
    re.IGNORECASE,
)
_SUBJECT_START_RE = re.compile(
    r"\b(?:I|I'm|I've|I'd|I'll|he|she|they|we|you|it)\b(?!')", re.IGNORECASE
)
_NEGATED_THINKING_RE = re.compile(
    r"\s*(?:really\s+|even\s+|ever\s+)?(?:(?:think|thought|believe|believed|feel|felt|expect"
    r"|expected|imagine|imagined|suppose|say|said|mean|meant)(?:\s+(?:like|that))?"
    r"|see\s+myself|plan|want|wanted|intend)\b",
    re.IGNORECASE,
)
HYPOTHETICAL_RE = re.compile(
    r"\bif\s+(?:I|I'm)\s+(?:ever|start(?:ed)?|begin|began|get|got|feel|felt|have|had|notice|find"
    r"|am\s+ever)\b|\bin\s+case\b|\bwhat\s+to\s+do\s+if\b|\bwho\s+to\s+call\b"
    r"|\bsafety\s+plan\b|\bwarning\s+signs?\b|\bfear\s+of\b|\bscared\s+of\b|\bafraid\s+of\b"
    r"|\b(?:asked|asks|asking)\s+(?:me\s+)?(?:if|whether)\b",
    re.IGNORECASE,
)
# Note style, after the phrase: "SI: denies", "SI/HI - none", "suicidal ideation was denied",
# and "used to ..., but not anymore".
POST_NEGATION_RE = re.compile(
    r"(?:\s*/\s*\w+)*"
    r"(?:\s*[:=]\s*|\s+-\s+|\s+(?:was|were|is|are)\s+)"
    r"(?:none|denied|denies|negative|neg\b|no\b|absent"
    r"|not\s+(?:present|endorsed|reported|elicited))"
    # The gap may not start a new clause ("... and I no longer drink" is about drinking).
    r"|(?:(?!\b(?:and|so|because|I|I'm|I've)\b)[^.!?;\n]){0,40}?,?\s+(?:but\s+)?"
    r"(?:not\s+(?:anymore|any\s+more|lately|recently|now)|no\s+longer)\b",
    re.IGNORECASE,
)
FAMILY_HISTORY_RE = re.compile(r"\bfamily\s+(?:history|hx)\b|\bFHx\b", re.IGNORECASE)
ACCIDENTAL_RE = re.compile(r"\baccident(?:al|ally)?\b|\bby\s+mistake\b|\bnot\s+on\s+purpose\b",
                            re.IGNORECASE)

_RELATIVES = (
    r"(?:best\s+friend|brother|sister|mom|mother|dad|father|parents?|friends?|cousin|son|daughter"
    r"|husband|wife|partner|boyfriend|girlfriend|uncle|aunt|grandma|grandmother|grandpa"
    r"|grandfather|roommate|coworker|co-worker|classmate|neighbou?r|kids?|child|children|ex"
    r"|boss|teacher|stepdad|stepmom|niece|nephew|fianc[eé]e?|sibling|family|relative)"
)
_SUBJECT_RE = re.compile(
    r"\b(?P<third>(?:my|his|her|their|your|our|a)\s+(?:\w+\s+)?" + _RELATIVES + r"\b"
    r"|family\s+(?:history|hx)|he|she|they|he's|she's|they're|hes|shes|theyre|him|her|his|them"
    r"|their|you"
    r"|you're|you've|your|we|we're|we've|our|someone|somebody|people)\b"
    r"|\b(?P<self>I|I'm|I've|I'd|I'll|im|ive|me|my|myself|mine)\b"
    r"|\b(?P<patient>patient|client|pt)\b",
    re.IGNORECASE,
)
FIRST_PERSON_TOKEN_RE = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|myself)\b", re.IGNORECASE)
_PATIENT_PRONOUNS = frozenset({"he", "she", "they", "he's", "she's", "they're", "hes", "shes",
                               "theyre", "him", "her", "his", "them", "their"})
_DOC_VERB_RE = re.compile(
    r"\b(?:reports?|reported|endorses?|endorsed|states?|stated|disclose[sd]?|admits?|admitted"
    r"|describes?|described|acknowledges?|acknowledged|expresse[sd]|presents?|presented)\b",
    re.IGNORECASE,
)
REPORTED_SPEECH_RE = re.compile(
    r"\b(?:he|she|they|(?:my|his|her|their)\s+(?:\w+\s+)?" + _RELATIVES + r")\s+"
    r"(?:said|says|told|tells|texted|wrote|posted|keeps\s+saying|kept\s+saying|was\s+saying)\b",
    re.IGNORECASE,
)


_HARD_BOUNDARIES = ".!?;:\n"


def clause_start(text: str, start: int) -> int:
    window_start = max(0, start - PREFIX_WINDOW_CHARS)
    # Punctuation found with str.rfind narrows the window before the (slower) regex runs.
    punctuation = max(text.rfind(char, window_start, start) for char in _HARD_BOUNDARIES)
    window_start = max(window_start, punctuation + 1)
    boundary = window_start
    for match in CLAUSE_BOUNDARY_RE.finditer(text, window_start, start):
        boundary = match.end()
    return boundary


def clause_end(text: str, end: int) -> int:
    match = _CLAUSE_END_RE.search(text, end, end + PREFIX_WINDOW_CHARS)
    return match.start() if match else min(len(text), end + PREFIX_WINDOW_CHARS)


def prefix_negates(prefix: str) -> bool:
    words = prefix.split()[-NEGATION_WINDOW_WORDS:]
    window = _NEGATION_EXCEPTION_RE.sub(" ", " ".join(words))
    for negation in _NEGATION_RE.finditer(window):
        rest = window[negation.end():]
        # "when I can't sleep I think about ...": a new subject after the negated verb starts
        # a new clause, unless the negation sits on a verb of thinking ("I don't think I'd").
        if _SUBJECT_START_RE.search(rest) and not _NEGATED_THINKING_RE.match(rest):
            continue
        return True
    return False


def is_negated(text: str, start: int, end: int | None = None) -> bool:
    """True when the phrase at text[start:end] is negated or hypothetical within its clause.

    Looks back to the clause start ("I'm not anxious", "denies SI", "if I ever feel ...") and,
    when ``end`` is given, forward for note-style denials ("SI: denies").
    """
    prefix = text[clause_start(text, start):start]
    if prefix_negates(prefix) or HYPOTHETICAL_RE.search(prefix):
        return True
    return end is not None and POST_NEGATION_RE.match(text, end) is not None


def subject_is_patient(prefix: str, clause: str, pronoun_is_patient: bool) -> bool:
    """Whose experience a phrase describes, judged by the nearest subject before it."""
    last = None
    for last in _SUBJECT_RE.finditer(prefix):  # noqa: B007 - only the last match matters
        pass
    if last is None or last.lastgroup in ("self", "patient"):
        return True
    # In notes "She reports passive SI" is about the patient; "she said" in speech is not.
    return (
        pronoun_is_patient
        and last.group(0).lower() in _PATIENT_PRONOUNS
        and _DOC_VERB_RE.search(clause) is not None
    )
