"""Crisis-language detection and the risk-level safety floor (SPEC §5).

Both analysis paths (hosted model and built-in rules) run ``detect_crisis`` over the raw
transcript and pass their ``riskAssessment`` through ``apply_safety_floor``, so a model that
under-rates risk can never hide crisis language. The voice intake runs it on callers' final
transcript lines.

Four readers are combined:

* ``concepts`` reads every patient (and unlabelled) turn by meaning: concept lexicons matched
  on normalised, stemmed, spelling-tolerant tokens (``reading``), kept only when asserted
  (``assertion``, ConText-style: not negated, hypothetical, someone else's, academic, or over
  and done), then combined into C-SSRS kinds. It is what generalises to wording nobody wrote a
  pattern for.
* ``phrases`` keeps what needs the whole transcript: a clinician's screening question and the
  patient's "yes" (``questions``), documented findings in clinician notes, and precise phrases
  (``patterns``).
* ``reader`` (word and word-pair counts) and ``model_reader`` (a fine-tuned sentence encoder;
  a second one trained on more material that adds only where it is near certain and the
  lexicons hold nothing at a distance; a third, the second's earlier version, that only
  doubts) are trained on statements. They add a signal where the lexicons found none, each alone or
  both agreeing. Neither alone lowers a finding (each rates some plain disclosures near 0);
  together they send a turn whose only findings are plans, methods, means or intent, which
  both rate as ordinary talk, to review ("I'm going to join the choir again on Saturday"),
  and likewise a turn with a ConText modifier in it (a past time, someone else, a question, a
  study purpose, laughter) whose findings (none imminent) every trained reader reads as no
  current risk ("an attempt in my twenties; I'm seventy now").

A kind is reported once; when both readers find it, the more severe reading wins. Softer cues
(burden, farewells, hopelessness) are ``review`` signals: alone they put the floor at
"moderate" with a "needs review" factor. Kinds, levels and the safety floor over them are in
``signals``.
"""

from __future__ import annotations

import re

from services.analysis.crisis import assertion, concepts, reader
from services.analysis.crisis import model_reader as language_model
from services.analysis.crisis.phrases import scan_phrases
from services.analysis.crisis.reading import Sentence, names, read_turn
from services.analysis.crisis.signals import (
    HIGH,
    HOMICIDAL_IDEATION,
    IMMINENT,
    INTENT,
    MAX_QUOTE_WORDS,
    MEANS_ACCESS,
    METHOD,
    PAST_ATTEMPT,
    PLAN,
    REVIEW_LEVEL,
    RISK_STATEMENT,
    SELF_HARM,
    SIGNAL_KINDS,
    SUICIDAL_IDEATION,
    UNKNOWN_LEVEL_DEFAULT,
    WISH_TO_BE_DEAD,
    CrisisAssessment,
    CrisisSignal,
    apply_safety_floor,
    assessment_level,
    max_level,
    statement_factor,
)
from services.analysis.shape import RISK_LEVELS
from services.analysis.transcript import (
    ROLE_CLINICIAN,
    ROLE_COLLATERAL,
    Turn,
    normalize_text,
    split_turns,
)

__all__ = [
    "DOUBTED_CUE", "HIGH", "HOMICIDAL_IDEATION", "IMMINENT", "INTENT", "MAX_QUOTE_WORDS",
    "MEANS_ACCESS", "METHOD", "ORDINARY_CUE", "ORDINARY_KINDS", "PAST_ATTEMPT", "PLAN",
    "REVIEW_LEVEL",
    "RISK_LEVELS", "RISK_STATEMENT", "SELF_HARM",
    "SIGNAL_KINDS", "SUICIDAL_IDEATION", "UNKNOWN_LEVEL_DEFAULT", "WISH_TO_BE_DEAD",
    "CrisisAssessment", "CrisisSignal", "apply_safety_floor", "as_the_patient_said",
    "assess_turns", "detect_crisis",
    "max_level",
]

ORDINARY_CUE = "plan_or_means"
DOUBTED_CUE = "doubted"
TAKEN_BACK_CUE = "taken_back"
REVIEW_FACTORS = {
    "burden": "Needs review: patient described being a burden",
    "farewell": "Needs review: patient said goodbyes or gave things away",
    "hopeless": "Needs review: patient expressed hopelessness about the future",
    ORDINARY_CUE: "Needs review: patient named a plan, method or means that reads as ordinary "
                  "talk",
    DOUBTED_CUE: "Needs review: patient named risk that every trained reader reads as past, "
                 "someone else's, asked about or joked",
    TAKEN_BACK_CUE: "Needs review: patient voiced a wish to be dead and took it back at once",
}
# Below these, the language models (DOUBT_BELOW, both) and the word reader read a turn as no
# current risk: beside a modifier the rules did not scope, a finding is doubted (sent to
# review).
DOUBT_BELOW = 0.05
DOUBT_READER_BELOW = 0.5
# What ordinary life is full of: plans with a time, medicines, rope, "I'm going to …". A turn
# whose only lexicon findings are of these kinds and which both trained readers rate as
# ordinary talk is a review cue, not a crisis signal (never silently low).
ORDINARY_KINDS = frozenset({PLAN, MEANS_ACCESS, INTENT, METHOD})
PREPARATION_CONCEPTS = frozenset({"preparation", "preparation_weak", "farewell", "cover_story",
                                  "told_story"})
# Not being safe with oneself, told now, is neither ordinary talk nor doubted.
_NOT_SAFE = frozenset({"unsafe"})
# Earlier suicidal talk makes "do it" meaningful for this many following turns.
CONTEXT_TURNS = 2


def detect_crisis(transcript: str, *, trained_reader: bool = True, model_reader: bool = True,
                  second_model: bool = True) -> CrisisAssessment:
    """Find C-SSRS-aligned crisis language and review cues in a transcript.
    ``trained_reader=False`` / ``model_reader=False`` / ``second_model=False`` leave the
    word-count reader / the language models / the second model's adding out (to measure the
    others without them)."""
    if not transcript or not transcript.strip():
        return CrisisAssessment(signals=(), level=None)
    return assess_turns(split_turns(normalize_text(transcript)), trained_reader=trained_reader,
                        model_reader=model_reader, second_model=second_model)


def assess_turns(turns: list[Turn], *, trained_reader: bool = True, model_reader: bool = True,
                 second_model: bool = True) -> CrisisAssessment:
    """``detect_crisis`` for a transcript already split with ``split_turns`` (after
    ``normalize_text``), so callers that need the turns too split only once."""
    turns = [Turn(turn.role, as_the_patient_said(turn.text)) if turn.role != ROLE_CLINICIAN
             else turn for turn in turns]
    found: dict[str, CrisisSignal] = {}
    review: dict[str, CrisisSignal] = {}
    phrase_turns: list[Turn] = []
    phrase_doubts: list[int] = []  # turns to doubt if only the phrase patterns raise them
    last_context = -CONTEXT_TURNS - 1
    readings: dict[int, list[Sentence]] = {}
    score = language_model.TurnScores() if model_reader else None
    # The trained readers may send a turn to review only with both of them at hand.
    doubting = trained_reader and score is not None
    wish_turn: int | None = None  # a turn whose only finding is a wish, until the next one
    for index, turn in enumerate(turns):
        if turn.role == ROLE_CLINICIAN:
            phrase_turns.append(turn)
            continue
        sentences = readings[index] = read_turn(turn.text)
        if assertion.turn_is_resolved(sentences):
            # "I wanted to die after my divorce, but that's long passed": history, not risk.
            phrase_turns.append(Turn(turn.role, ""))
            continue
        findings = concepts.find_in(sentences, MAX_QUOTE_WORDS,
                                    earlier_context=index - last_context <= CONTEXT_TURNS,
                                    antecedent=_answers_a_proposal(turns, index, sentences))
        crisis_found = any(f.kind != concepts.REVIEW for f in findings)
        if doubting and _reads_as_ordinary(turn.text, sentences, findings, score):
            # "I'm going to join the choir again, practice starts in September."
            _send_to_review(review, ORDINARY_CUE, _quote(turn.text))
            findings = [f for f in findings if f.kind == concepts.REVIEW]
            phrase_turns.append(Turn(turn.role, ""))
        elif not crisis_found and (assertion.qualified(sentences)
                                   or _injuries_told_as_accidents(sentences)):
            # The concept reading judged the topic not asserted ("a book about self-harm for my
            # class", "I cut my leg shaving"): the phrase patterns, which cannot see that, do
            # not overrule it.
            phrase_turns.append(Turn(turn.role, ""))
        elif doubting and _doubted(turn, sentences, findings, score) and not (
                second_model and _second_model_reads(turn.text, sentences, score)):
            # "Yes, there was a suicide attempt in my twenties. I'm seventy now and I'd much
            # rather talk about my knees."
            _send_to_review(review, DOUBTED_CUE, _quote(turn.text))
            findings = [f for f in findings if f.kind == concepts.REVIEW]
            phrase_turns.append(Turn(turn.role, ""))
        else:
            phrase_turns.append(Turn(turn.role, assertion.without_denied(turn.text, sentences)))
            if doubting and not crisis_found and language_model.reads(sentences) and \
                    _may_doubt(turn, sentences):
                phrase_doubts.append(index)
        kinds = {f.kind for f in findings if f.kind != concepts.REVIEW}
        if wish_turn is not None and not kinds and _taken_back_within(turn.text) and \
                not _asks_about_acting(turns[wish_turn + 1:index]):
            # "Sometimes I just want to be with him." … "Oh, not like that. I mean I miss
            # him.": a wish taken back at once is for a clinician to ask about (review).
            _take_back(turns, wish_turn, found, review, phrase_turns, readings)
        wish_turn = None
        if kinds == {WISH_TO_BE_DEAD} and WISH_TO_BE_DEAD not in found:
            if _taken_back_within(turn.text):
                _take_back(turns, index, found, review, phrase_turns, readings)
                continue
            wish_turn = index
        for finding in findings:
            if finding.kind == concepts.REVIEW:
                _send_to_review(review, finding.cue, finding.quote)
                continue
            last_context = index
            # An attempt at imminent is one under way: say so, not only "a past attempt".
            under_way = ", made within the last hours" if finding.kind == PAST_ATTEMPT and \
                finding.imminent else ""
            _keep_the_graver(found, CrisisSignal(
                finding.kind, statement_factor(finding.kind, finding.quote, under_way),
                _level_of(finding)))
    for turn in turns:
        if turn.role != ROLE_COLLATERAL:
            continue
        for kind, level in _told_of_the_patient(turn.text):
            _keep_the_graver(found, CrisisSignal(kind, statement_factor(
                kind, _quote(turn.text), ", as a family member or partner told it"), level))
    phrase_assessment, raised_by_turn = scan_phrases(phrase_turns)
    # Turns only the phrase patterns raised, doubted as a concept finding is (``_doubted``).
    doubted = [index for index in phrase_doubts if index in raised_by_turn
               and assessment_level(raised_by_turn[index]) != IMMINENT
               and _models_hear_no_risk(turns[index].text, score)]
    for index in doubted:
        _send_to_review(review, DOUBTED_CUE, _quote(turns[index].text))
        phrase_turns[index] = Turn(turns[index].role, "")
    phrase_signals = scan_phrases(phrase_turns)[0].signals if doubted else \
        phrase_assessment.signals
    merged: dict[str, CrisisSignal] = {signal.kind: signal for signal in phrase_signals}
    for signal in found.values():
        _keep_the_graver(merged, signal)
    if not merged.keys() - {HOMICIDAL_IDEATION}:
        # Beyond sending ordinary talk to review, the trained readers only add: they speak
        # where the lexicons found no self-harm or suicide signal (and are not asked otherwise).
        read_as_risk = _first_read_as_risk(turns, readings, trained_reader=trained_reader,
                                           score=score, second_model=second_model)
        if read_as_risk is not None:
            merged[RISK_STATEMENT] = read_as_risk
    ordered = tuple(merged[kind] for kind in SIGNAL_KINDS if kind in merged)
    return CrisisAssessment(signals=ordered, level=assessment_level(ordered),
                            review=tuple(review.values()))


_INJURY_WORDS = frozenset({"self_harm_act", "self_harm_cue"})


def _injuries_told_as_accidents(sentences: list[Sentence]) -> bool:
    """Whether every sentence naming an injury tells it as an accident (and one does), to a
    part of the body: "I burn myself a little with the straighteners … it calms me down" is
    done to oneself, whatever the tool."""
    injured = [s for s in sentences if any(m.concept in _INJURY_WORDS for m in s.mentions)]
    return bool(injured) and all(
        assertion.told_as_an_accident(s) and "myself" not in s.words for s in injured)


def _level_of(finding: concepts.ConceptFinding) -> str:
    return IMMINENT if finding.imminent or finding.kind == INTENT else HIGH


def _keep_the_graver(held: dict[str, CrisisSignal], signal: CrisisSignal) -> None:
    """One signal per kind: the first, unless a later one raises it to imminent."""
    kept = held.get(signal.kind)
    if kept is None or (kept.level == HIGH and signal.level == IMMINENT):
        held[signal.kind] = signal


def _answers_a_proposal(turns: list[Turn], index: int, sentences: list[Sentence]) -> bool:
    """Whether a patient turn with a "do it" answers the clinician's proposal just before it
    (read only then: most turns have no "do it")."""
    if index == 0 or turns[index - 1].role != ROLE_CLINICIAN or \
            not names(sentences, frozenset({"act_pronoun"})):
        return False
    return concepts.proposes_an_act(read_turn(turns[index - 1].text))


def _trained_reading(text: str, sentences: list[Sentence]) -> bool:
    """Whether the trained reader rates a patient turn that names something of risk (death,
    self-harm, a method or means, a farewell …) as a current risk disclosure."""
    return reader.worth_reading(sentences) and reader.score(text) >= reader.model().escalate_at


def _reads_as_ordinary(text: str, sentences: list[Sentence],
                       findings: list[concepts.ConceptFinding],
                       score: language_model.TurnScores) -> bool:
    """Whether a turn's only crisis findings are plans, methods, means or intent (no wish to
    die, ideation, self-harm or attempt, and no word of dying or self-harm behind them; no
    preparation such as a note or things given away, which both readers rate low when told
    plainly) and both trained readers rate it as ordinary talk: the language model and the
    word reader each below their ``ordinary_below``. Neither alone may overrule a finding
    (each rates some plain disclosures near 0)."""
    kinds = {f.kind for f in findings if f.kind != concepts.REVIEW}
    if not kinds or not kinds <= ORDINARY_KINDS or assertion.names_dying(sentences) or \
            names(sentences, _NOT_SAFE):
        return False
    if names(sentences, PREPARATION_CONCEPTS):
        # Everyday preparations alone ("I paid off my credit card this month, finally!"):
        # ordinary talk when every trained reader, the second model too, hears no risk.
        return not _names_preparation(sentences) and \
            reader.score(text) < DOUBT_READER_BELOW and _models_hear_no_risk(text, score)
    model_below, reader_below = language_model.model().ordinary_below
    return reader.score(text) < reader_below and score(text) < model_below


def _names_preparation(sentences: list[Sentence]) -> bool:
    """Whether the turn names a preparation other than an everyday one: a note, letters,
    things given away (both readers rate "I wrote a note for my mom explaining everything."
    near 0), but not a card paid off, a date picked or a rehearsal, which ordinary life is
    full of ("I paid off my credit card this month, finally!")."""
    for sentence in sentences:
        everyday = {(m.start, m.end) for m in sentence.mentions
                    if m.concept == "preparation_everyday"}
        if any(m.concept in PREPARATION_CONCEPTS and (m.start, m.end) not in everyday
               for m in sentence.mentions):
            return True
    return False


def _doubted(turn: Turn, sentences: list[Sentence], findings: list[concepts.ConceptFinding],
             score: language_model.TurnScores) -> bool:
    """Whether a turn's crisis findings (none imminent or intent) come with a ConText modifier
    the rules may not have applied (``assertion.carries_modifier``) and every trained reader
    reads the turn as no current risk: the word reader below DOUBT_READER_BELOW and both
    language models below DOUBT_BELOW. Such a turn goes to review, not escalation."""
    raised = [f for f in findings if f.kind != concepts.REVIEW]
    return bool(raised) and not any(f.imminent or f.kind == INTENT for f in raised) and \
        not names(sentences, _NOT_SAFE) and _may_doubt(turn, sentences) and \
        _models_hear_no_risk(turn.text, score)


def _may_doubt(turn: Turn, sentences: list[Sentence]) -> bool:
    """The cheap half of ``_doubted``: a turn with a modifier that the word reader reads as no
    current risk."""
    return assertion.carries_modifier(sentences, turn.text) and \
        reader.score(turn.text) < DOUBT_READER_BELOW


def _models_hear_no_risk(text: str, score: language_model.TurnScores) -> bool:
    """The first and the doubting language model below DOUBT_BELOW (a call each, 1-4 ms on a
    CPU with VNNI, 4-18 ms without: asked last)."""
    return score(text) < DOUBT_BELOW and score.doubt(text) < DOUBT_BELOW


def _send_to_review(review: dict[str, CrisisSignal], cue: str, quote: str) -> None:
    """Record a review cue (``moderate``, "Needs review: …") with the words that raised it;
    the first quote of a cue is kept."""
    review.setdefault(cue, CrisisSignal(kind=cue, factor=f"{REVIEW_FACTORS[cue]} ('{quote}')",
                                        level=REVIEW_LEVEL))


def _both_agree(text: str, sentences: list[Sentence], model_score: float) -> bool:
    """Whether the language model and the word reader both rate a turn as a disclosure, at
    thresholds lower than either needs alone, and the lexicons hold none of its words of risk
    at a distance (denied, hypothetical, someone else's): both readers take "I don't have any
    plan to kill myself" for one."""
    model_at, reader_at = language_model.agreement(sentences)
    return model_score >= model_at and reader.score(text) >= reader_at and \
        not assertion.distanced(sentences, language_model.GATE_CONCEPTS)


def _first_read_as_risk(turns: list[Turn], readings: dict[int, list[Sentence]], *,
                        trained_reader: bool, score: language_model.TurnScores | None,
                        second_model: bool) -> CrisisSignal | None:
    """A ``high`` signal for the first patient turn that the language model (at its threshold),
    the word reader, both together, or the second model (at its own, higher threshold, where
    the lexicons hold none of the turn's words of risk at a distance) read as a current risk
    disclosure; ``imminent`` when the patient sets a time for it. The models
    read the turns that name something of risk, a method, means or a plan (asserted or
    not)."""
    for index, sentences in readings.items():
        text = turns[index].text
        models_read = score is not None and language_model.reads(sentences)
        read = False
        if models_read:
            model_score = score(text)
            read = model_score >= language_model.threshold(sentences) or (
                trained_reader and _both_agree(text, sentences, model_score))
        # The second model last: a call of its own (1-18 ms by CPU), asked only where no other
        # reader raised the turn and the lexicons hold none of its words of risk at a distance
        # (it rates "My sister googled how many of her pills it would take" near certain).
        read = read or (trained_reader and _trained_reading(text, sentences)) or (
            second_model and score is not None and _second_model_reads(text, sentences, score))
        if read:
            # Intent with a time ("I'm going home to Jesus on Sunday"), a plan's method, means
            # or preparation with one, or something taken within the last hours: imminent.
            if concepts.time_to_come(sentences) or concepts.time_with_a_plan(sentences):
                return _risk_statement(text, ", with a time set")
            if concepts.taken_within_hours(sentences):
                return _risk_statement(text, ", taken within the last hours")
            if concepts.injured_now(sentences):
                return _risk_statement(text, ", hurt and needing care now")
            if concepts.at_hand_now(sentences) and "?" not in text:
                # A question asks about the means at hand ("I have my pills in front of me,
                # which ones do I take in the morning?"): it sets no emergency.
                return _risk_statement(text, ", with means at hand now")
            return _risk_statement(text)
    return None


def _second_model_reads(text: str, sentences: list[Sentence],
                        score: language_model.TurnScores) -> bool:
    """Whether the second model, at its own threshold, reads a turn it is asked about (one the
    models read, whose words of risk the lexicons hold none of at a distance) as a current
    disclosure. A turn it reads so is not doubted either: "every trained reader reads no
    current risk" includes it."""
    return language_model.reads(sentences) and \
        not assertion.distanced(sentences, language_model.GATE_CONCEPTS) and \
        score.second(text) >= language_model.second_threshold(sentences)


# What a family member or partner says of "he" or "she" is read as said of the patient ("Last
# night he told me he wants to kill himself"): the pronouns are read as the patient's own, in
# the sentences that name no one else ("my brother killed himself" stays the brother's).
_THIRD_PERSON = {"he": "I", "she": "I", "him": "me", "her": "my", "his": "my",
                 "himself": "myself", "herself": "myself", "he's": "I'm", "she's": "I'm",
                 "he'd": "I'd", "she'd": "I'd", "he'll": "I'll", "she'll": "I'll"}
_THIRD_PERSON_RE = re.compile(r"\b(?:" + "|".join(map(re.escape, _THIRD_PERSON)) + r")\b",
                              re.IGNORECASE)
_SOMEONE_ELSE_RE = re.compile(
    r"\b(?:my|our|his|her|their|a|an)\s+(?:brother|sister|husband|wife|dad|father|mom|mum|"
    r"mother|friend|uncle|aunt|cousin|boss|neighbou?r|grand\w+|partner|boyfriend|girlfriend|"
    r"ex|colleague|coworker|co-worker|teacher|patient|client)\b", re.IGNORECASE)
_SENTENCE_RE = re.compile(r"[^.!?\n]+[.!?]*")


def _in_the_first_person(text: str) -> str:
    """``text`` with "he" and "she" read as "I" in the sentences that name no one else ("my
    brother killed himself" stays the brother's)."""
    return "".join(
        sentence if _SOMEONE_ELSE_RE.search(sentence) else _THIRD_PERSON_RE.sub(
            lambda m: _THIRD_PERSON[m.group(0).lower()], sentence)
        for sentence in _SENTENCE_RE.findall(text))


def _told_of_the_patient(text: str) -> list[tuple[str, str]]:
    """(kind, level) of what a family member's turn tells of the patient in the third person,
    read as if the patient said it (the lexicons, not the trained readers, which were not
    trained on such rewording)."""
    shifted = _in_the_first_person(text)
    if shifted == text:
        return []
    sentences = read_turn(shifted)
    if assertion.turn_is_resolved(sentences):
        return []
    return [(f.kind, _level_of(f))
            for f in concepts.find_in(sentences, MAX_QUOTE_WORDS) if f.kind != concepts.REVIEW]


# An interpreter on the patient's line relays the patient in the third person ("I interpret
# for my mother: she says every night she asks God to take her"): the frame up to its colon,
# or the interpreter's "says", and each "he says" of the relay, go; what is left is read as
# the patient's own words.
_INTERPRETED = re.compile(r"\b(?:interpret|translat)\w*", re.IGNORECASE)
_FRAME_TO_COLON = re.compile(r"^[^:]*\b(?:interpret|translat)\w*[^:]*:\s*", re.IGNORECASE)
_FRAME_TO_SAYS = re.compile(r"^.*?\b(?:interpret|translat)\w*\b[^.!?]*?\b(?:says|said)\b"
                            r"\s*,?\s*(?:that\s+)?", re.IGNORECASE)
_RELAY = re.compile(r"\b(?:he|she)\s+(?:says|said|tells\s+me|told\s+me|is\s+saying)\b"
                    r"\s*,?\s*(?:that\s+)?", re.IGNORECASE)
# "take her" is "take me"; "her children" is "my children".
_HER_AS_OBJECT = re.compile(r"\bher\b(?=\s*(?:[.,;:!?'\"]|$|\s+(?:and|to|a|the|now|away|up|"
                            r"again|because|but|so|or|too|anymore|home|out|in|on|with|for|from|"
                            r"any|if|when)\b))", re.IGNORECASE)


def as_the_patient_said(text: str) -> str:
    """A turn an interpreter relays in the third person, told as the patient's own words; any
    other turn as it is."""
    if not _INTERPRETED.search(text):
        return text
    if _FRAME_TO_COLON.search(text):
        body = _FRAME_TO_COLON.sub("", text, count=1)
        # After the colon, the patient's words as said ("'I will not live until the
        # harvest'") or relayed ("he says he …"): only a relay is told in the third person.
        relayed = _RELAY.match(body.strip(" '\"")) is not None
    else:
        body = _FRAME_TO_SAYS.sub("", text, count=1)
        relayed = True
    if not body.strip(" '\"") or body == text:
        return text
    if not relayed:
        return body.strip(" '\"")
    return _in_the_first_person(_HER_AS_OBJECT.sub("me", _RELAY.sub("", body).strip(" '\"")))


# A wish to be dead taken back in the words that follow it: "not like that", "I didn't mean
# it that way".
_TAKEN_BACK = re.compile(
    r"\b(?:not\s+like\s+that|not\s+in\s+that\s+way|not\s+that\s+way|(?:don'?t|do\s+not|"
    r"didn'?t|did\s+not)\s+mean\s+(?:it\s+)?(?:like\s+that|that\s+way|that))\b", re.IGNORECASE)


def _taken_back_within(text: str) -> bool:
    """A retraction in the turn of the wish, with no "but" after it ("Not like that, I'd
    never do it, but yes, I wish it" keeps the wish)."""
    taken = _TAKEN_BACK.search(text)
    return taken is not None and not re.search(r"\bbut\b", text[taken.end():], re.IGNORECASE)


# A clinician's question about acting on it ("have you had thoughts about actually ending your
# life?"): "No, not like that" then answers it, and the wish before it stands.
_ASKS_ABOUT_ACTING = re.compile(
    r"\b(?:end(?:ing)?\s+your\s+life|kill(?:ing)?\s+yourself|suicid\w*|act(?:ing)?\s+on|"
    r"hurt(?:ing)?\s+yourself|harm(?:ing)?\s+yourself|do\s+(?:anything|something)|plan\w*|"
    r"take\s+your\s+(?:own\s+)?life)\b", re.IGNORECASE)


def _asks_about_acting(between: list[Turn]) -> bool:
    return any(turn.role == ROLE_CLINICIAN and _ASKS_ABOUT_ACTING.search(turn.text)
               for turn in between)


def _take_back(turns: list[Turn], index: int, found: dict[str, CrisisSignal],
               review: dict[str, CrisisSignal], phrase_turns: list[Turn],
               readings: dict[int, list[Sentence]]) -> None:
    """Send turn ``index``'s wish to review: no signal of it, nor of the phrase patterns or
    the trained readers, which would read the turn again."""
    found.pop(WISH_TO_BE_DEAD, None)
    _send_to_review(review, TAKEN_BACK_CUE, _quote(turns[index].text))
    phrase_turns[index] = Turn(turns[index].role, "")
    readings.pop(index, None)


def _quote(text: str) -> str:
    words = text.split()
    return " ".join(words[:MAX_QUOTE_WORDS]) + ("…" if len(words) > MAX_QUOTE_WORDS else "")


def _risk_statement(text: str, imminent_because: str = "") -> CrisisSignal:
    """A risk statement: ``imminent`` with the reason given (", with a time set"), else
    ``high``."""
    factor = statement_factor(RISK_STATEMENT, _quote(text), imminent_because)
    return CrisisSignal(RISK_STATEMENT, factor, IMMINENT if imminent_because else HIGH)
