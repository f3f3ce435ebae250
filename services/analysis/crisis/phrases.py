"""Phrase patterns over a whole transcript: what needs more than one patient statement.

The concept layer (``concepts``) reads each patient statement by meaning; this module keeps
what needs a whole transcript: clinician questions and the patient's answers (``questions``),
documented findings in clinician notes, and precise phrases (``patterns``).
``services.analysis.crisis`` combines both.

How text is read:

* Labelled transcripts are split into turns. Patient/client turns, turns by other named
  speakers (family members in the room) and unlabelled text are read in full. Clinician turns
  count only where they document the patient ("Patient reports active SI with a plan").
* A clinician question about suicide or self-harm ("Any thoughts of ending your life?")
  is never a signal itself, but a plainly affirmative patient answer to it ("Yeah, sometimes")
  is reported as the asked-about kind.
* Negation is checked within the clause before the phrase ("I'm not suicidal", "denies
  SI/HI", "no thoughts of hurting myself"), and in note style after it ("SI: denies").
  Intensifiers such as "can't stop thinking about" are not negations, and phrases whose
  meaning includes a negation ("I don't want to live anymore") are signals in their own right.
* Statements about someone else ("my brother tried to kill himself", "my friend said she
  wanted to die"), hypotheticals ("if I ever feel like hurting myself I'll call") and common
  idioms ("this traffic is killing me", "I'd kill for a coffee") are not signals.
* Weak phrases that only mean something next to suicidal talk ("I have a plan", "I know how
  I'd do it", "take them all") count only when such talk occurred shortly before.
* A firearm in the home counts as means access only when the transcript also holds another
  crisis signal; stockpiling medication counts on its own.

Each kind is reported once (its first occurrence), so ``factors`` stays short. Factor texts
quote at most ``MAX_QUOTE_WORDS`` words of the triggering phrase and nothing else; this module
never logs or prints transcript text.

Reading speaker turns, clauses and negation is shared with the rules analyzer and lives in
``services.analysis.transcript``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from services.analysis.crisis import questions
from services.analysis.crisis.patterns import (
    ANCHOR_INDEX,
    ANCHOR_WORDS,
    COMPILED,
    EXTRA_ANCHOR_GROUPS,
    PATTERNS,
    STRONG_ANCHOR_WORDS,
    TIME_OR_PLACE_RE,
    Pattern,
)
from services.analysis.crisis.signals import (
    HIGH,
    HOMICIDAL_IDEATION,
    IMMINENT,
    INTENT,
    MAX_QUOTE_WORDS,
    MEANS_ACCESS,
    PLAN,
    RISK_STATEMENT,
    SIGNAL_KINDS,
    CrisisAssessment,
    CrisisSignal,
    assessment_level,
    statement_factor,
)
from services.analysis.transcript import (
    ACCIDENTAL_RE,
    FAMILY_HISTORY_RE,
    FIRST_PERSON_TOKEN_RE,
    HYPOTHETICAL_RE,
    POST_NEGATION_RE,
    REPORTED_SPEECH_RE,
    ROLE_CLINICIAN,
    ROLE_NOTE,
    Turn,
    clause_end,
    clause_start,
    normalize_text,
    prefix_negates,
    split_turns,
    subject_is_patient,
)

# Words of lead-in kept before the matched phrase so a quote reads naturally.
QUOTE_LEAD_WORDS = 3
# A weak phrase ("I have a plan") counts when suicidal talk happened this many characters
# earlier in the same turn ...
CONTEXT_WINDOW_CHARS = 600
# ... or this many turns earlier (patient statement, then clinician question, then answer).
CONTEXT_WINDOW_TURNS = 2


def _quote(text: str, start: int, end: int) -> str:
    lead = text[clause_start(text, start):start].split()[-QUOTE_LEAD_WORDS:]
    words = [*lead, *text[start:end].split()][:MAX_QUOTE_WORDS]
    return " ".join(words).strip(" ,;:-\"'")


_TOKEN_RE = re.compile(r"[a-z0-9]+")
# Kinds whose presence makes weak follow-up phrases ("I have a plan") meaningful.
_SUICIDE_CONTEXT_KINDS = frozenset(SIGNAL_KINDS) - {HOMICIDAL_IDEATION, RISK_STATEMENT}

# ---------------------------------------------------------------------------------------------
# Scanning
# ---------------------------------------------------------------------------------------------

@dataclass
class _ScanState:
    turn_index: int = 0
    context_turn: int | None = None
    # What each turn raised, by turn index, each signal with whether it needs corroboration
    # (it counts only beside another signal). The assessment is derived from it.
    by_turn: dict[int, list[tuple[CrisisSignal, bool]]] = field(default_factory=dict)

    def add(self, signal: CrisisSignal, needs_corroboration: bool = False) -> None:
        self.by_turn.setdefault(self.turn_index, []).append((signal, needs_corroboration))

    def _corroborated(self) -> bool:
        return any(not pending for raised in self.by_turn.values() for _, pending in raised)

    def raised_by_turn(self) -> dict[int, tuple[CrisisSignal, ...]]:
        """The signals each turn raised that the assessment counts."""
        corroborated = self._corroborated()
        counted = {index: tuple(signal for signal, pending in raised
                                if corroborated or not pending)
                   for index, raised in self.by_turn.items()}
        return {index: signals for index, signals in counted.items() if signals}

    def mark_context(self) -> None:
        self.context_turn = self.turn_index

    def context_from_earlier_turns(self) -> bool:
        return (
            self.context_turn is not None
            and self.turn_index - self.context_turn <= CONTEXT_WINDOW_TURNS
        )

    def assessment(self) -> CrisisAssessment:
        """The first signal of each kind in turn order, those that need corroboration after
        the rest and only beside them."""
        corroborated = self._corroborated()
        raised = [pair for pairs in self.by_turn.values() for pair in pairs]
        signals: dict[str, CrisisSignal] = {}
        for signal, pending in sorted(raised, key=lambda pair: pair[1]):
            if corroborated or not pending:
                signals.setdefault(signal.kind, signal)
        ordered = tuple(signals[kind] for kind in SIGNAL_KINDS if kind in signals)
        return CrisisAssessment(signals=ordered, level=assessment_level(ordered))


def _make_signal(kind: str, factor: str) -> CrisisSignal:
    return CrisisSignal(kind=kind, factor=factor, level=IMMINENT if kind == INTENT else HIGH)


def _statement_signal(kind: str, quote: str) -> CrisisSignal:
    return _make_signal(kind, statement_factor(kind, quote))


_SENTENCE_SPAN_RE = re.compile(r"[^.!?\n]+")


def _sentence_matches(
    text: str, lowered: str, start: int, end: int, in_context: bool
) -> list[tuple[int, int, Pattern]]:
    """Non-overlapping pattern matches in text[start:end], earliest first.

    Only patterns whose anchor words occur in the sentence are run. Where matches overlap, the
    earlier one wins, and at the same start the pattern listed first. Weak (context-only)
    matches never displace strong ones, because without context they would be discarded.
    """
    tokens = set(_TOKEN_RE.findall(lowered, start, end))
    words = ANCHOR_WORDS.intersection(tokens)
    if not words:
        return []
    candidates = {number for word in words for number in ANCHOR_INDEX[word]}
    numbers = sorted(
        number for number in candidates
        if not EXTRA_ANCHOR_GROUPS[number] or all(
            not group.isdisjoint(tokens) for group in EXTRA_ANCHOR_GROUPS[number]
        )
    )
    if not numbers:
        return []
    strong = _non_overlapping(
        _raw_matches(text, start, end, [n for n in numbers if not PATTERNS[n].needs_context])
    )
    # Weak patterns only matter in context, which may also arise from a strong match in this
    # very sentence; _scan_text makes the exact per-match decision.
    if not (in_context or strong):
        return strong
    weak = _non_overlapping(
        _raw_matches(text, start, end, [n for n in numbers if PATTERNS[n].needs_context])
    )
    weak = [w for w in weak if all(w[1] <= s[0] or w[0] >= s[1] for s in strong)]
    return sorted(strong + weak, key=lambda match: match[0])


def _non_overlapping(found: list[tuple[int, int, int]]) -> list[tuple[int, int, Pattern]]:
    kept: list[tuple[int, int, Pattern]] = []
    last_end = -1
    for match_start, number, match_end in sorted(found):
        if match_start >= last_end:
            kept.append((match_start, match_end, PATTERNS[number]))
            last_end = match_end
    return kept


def _raw_matches(text: str, start: int, end: int, numbers: list[int]) -> list[tuple[int, int, int]]:
    return [
        (match.start(), number, match.end())
        for number in numbers
        for match in COMPILED[number].finditer(text, start, end)
    ]


def _accept(text: str, start: int, end: int, pattern: Pattern, pronoun_is_patient: bool) -> bool:
    """Whether a raw match is the patient's own, affirmed experience."""
    opening = clause_start(text, start)
    prefix = text[opening:start]
    if not pattern.negation_in_pattern and (
        prefix_negates(prefix) or POST_NEGATION_RE.match(text, end)
    ):
        return False
    if HYPOTHETICAL_RE.search(prefix) or REPORTED_SPEECH_RE.search(prefix):
        return False
    clause = text[opening:clause_end(text, end)]
    if FAMILY_HISTORY_RE.search(clause):
        return False
    if pattern.reject_accidental and ACCIDENTAL_RE.search(clause):
        return False
    if FIRST_PERSON_TOKEN_RE.search(text, start, end):
        return True
    return subject_is_patient(prefix, clause, pronoun_is_patient)


def _scan_text(text: str, state: _ScanState, pronoun_is_patient: bool) -> None:
    """Record every accepted signal in one patient-side passage."""
    lowered = text.lower()
    earlier_context = state.context_from_earlier_turns()
    if not earlier_context and STRONG_ANCHOR_WORDS.isdisjoint(_TOKEN_RE.findall(lowered)):
        return  # nothing here can match, and weak patterns need context that is absent
    context_end: int | None = None
    for sentence in _SENTENCE_SPAN_RE.finditer(text):
        sentence_start, sentence_end = sentence.span()
        sentence_context = earlier_context or (
            context_end is not None and sentence_start - context_end <= CONTEXT_WINDOW_CHARS
        )
        matches = _sentence_matches(text, lowered, sentence_start, sentence_end, sentence_context)
        impersonal_question: bool | None = None
        for start, end, pattern in matches:
            in_context = earlier_context or (
                context_end is not None and start - context_end <= CONTEXT_WINDOW_CHARS
            )
            if pattern.needs_context and not in_context:
                continue
            if pattern.topic_name:
                if impersonal_question is None:
                    impersonal_question = _impersonal_question(text, sentence)
                if impersonal_question:
                    continue
            if not _accept(text, start, end, pattern, pronoun_is_patient):
                continue
            state.add(_statement_signal(pattern.kind, _quote(text, start, end)),
                      pattern.needs_corroboration)
            if pattern.kind in _SUICIDE_CONTEXT_KINDS:
                context_end = end
                state.mark_context()
            if pattern.plan_if_timed:
                _add_plan_from_timing(text, start, end, state)


def _impersonal_question(text: str, sentence: re.Match[str]) -> bool:
    return text.startswith("?", sentence.end()) and not FIRST_PERSON_TOKEN_RE.search(
        text, sentence.start(), sentence.end()
    )


def _add_plan_from_timing(text: str, start: int, end: int, state: _ScanState) -> None:
    """Intent tied to a time or place ("... take them all on Friday") is a plan as well."""
    closing = clause_end(text, end)
    timing = TIME_OR_PLACE_RE.search(text, clause_start(text, start), closing)
    if timing is None:
        return
    quote_end = max(end, timing.end())
    state.add(_statement_signal(PLAN, _quote(text, start, quote_end)))


def _scan_clinician_turn(text: str, state: _ScanState) -> str | None:
    """Read documented findings from a clinician turn; return the screening topic it asks."""
    for sentence in questions.documented_sentences(text):
        _scan_text(sentence, state, pronoun_is_patient=True)
    kind = questions.question_kind(text, state.context_from_earlier_turns())
    if kind is not None and kind in _SUICIDE_CONTEXT_KINDS:
        state.mark_context()
    return kind


def _scan_answer(answer: str, asked_kind: str, state: _ScanState) -> None:
    if not questions.affirmative_answer(answer):
        return
    state.add(_make_signal(asked_kind, questions.answer_factor(asked_kind, answer)),
              needs_corroboration=asked_kind == MEANS_ACCESS)
    if asked_kind in _SUICIDE_CONTEXT_KINDS:
        state.mark_context()


def detect_phrases(transcript: str) -> CrisisAssessment:
    """Find crisis phrases in a transcript (see the module docstring)."""
    if not transcript or not transcript.strip():
        return CrisisAssessment(signals=(), level=None)
    return assess_phrases(split_turns(normalize_text(transcript)))


def assess_phrases(turns: list[Turn]) -> CrisisAssessment:
    """``detect_phrases`` for a transcript already split with ``split_turns`` (after
    ``normalize_text``)."""
    return scan_phrases(turns)[0]


def scan_phrases(turns: list[Turn]
                 ) -> tuple[CrisisAssessment, dict[int, tuple[CrisisSignal, ...]]]:
    """``assess_phrases``, and the signals each turn raised (by index in ``turns``)."""
    state = _ScanState()
    asked_kind: str | None = None
    for index, turn in enumerate(turns):
        state.turn_index = index
        if turn.role == ROLE_CLINICIAN:
            asked_kind = _scan_clinician_turn(turn.text, state)
            continue
        if asked_kind is not None:
            _scan_answer(turn.text, asked_kind, state)
        _scan_text(turn.text, state, pronoun_is_patient=turn.role == ROLE_NOTE)
        asked_kind = None
    return state.assessment(), state.raised_by_turn()
