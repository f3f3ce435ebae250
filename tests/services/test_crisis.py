"""Tests for services.analysis.crisis: the transcript corpus plus targeted unit tests."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from services.analysis.crisis import (
    MAX_QUOTE_WORDS,
    RISK_LEVELS,
    SIGNAL_KINDS,
    CrisisAssessment,
    CrisisSignal,
    apply_safety_floor,
    as_the_patient_said,
    detect_crisis,
    max_level,
)
from services.analysis.transcript import (
    ROLE_CLINICIAN,
    ROLE_COLLATERAL,
    ROLE_NOTE,
    ROLE_PATIENT,
    is_negated,
    split_turns,
)

CORPUS = Path(__file__).parent / "transcripts"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))["transcripts"]
RANK = {level: rank for rank, level in enumerate(RISK_LEVELS)}

CRISIS_ENTRIES = [entry for entry in MANIFEST if entry["category"] == "crisis"]
HARD_NEGATIVE_CATEGORIES = ("negated", "question", "third_person", "idiom")
NON_CRISIS_ENTRIES = [entry for entry in MANIFEST if entry["category"] != "crisis"]

# Minimum corpus composition promised by the corpus README (manifest description).
MIN_CRISIS = 12
MIN_HARD_NEGATIVES = 10
MIN_ORDINARY = 10

FILLER_WORDS = 5_000
MAX_TRANSCRIPT_CHARS = 200_000


def _read(entry: dict) -> str:
    return (CORPUS / entry["file"]).read_text(encoding="utf-8")


def _kinds(assessment: CrisisAssessment) -> set[str]:
    return {signal.kind for signal in assessment.signals}


def _ids(entry: dict) -> str:
    return entry["file"]


def _long_ordinary_transcript(words: int) -> str:
    ordinary = [_read(e) for e in MANIFEST if e["category"] == "ordinary"]
    parts: list[str] = []
    while sum(len(part.split()) for part in parts) < words:
        parts.append(ordinary[len(parts) % len(ordinary)])
    return "\n".join(parts)


# ---------------------------------------------------------------------------------------------
# Corpus
# ---------------------------------------------------------------------------------------------

def test_manifest_lists_every_transcript_exactly_once():
    listed = [entry["file"] for entry in MANIFEST]
    on_disk = sorted(path.name for path in CORPUS.glob("*.txt"))
    assert len(listed) == len(set(listed))
    assert sorted(listed) == on_disk


def test_manifest_has_required_mix_and_valid_expectations():
    categories = [entry["category"] for entry in MANIFEST]
    assert categories.count("crisis") >= MIN_CRISIS
    assert sum(categories.count(c) for c in HARD_NEGATIVE_CATEGORIES) >= MIN_HARD_NEGATIVES
    assert categories.count("ordinary") >= MIN_ORDINARY
    for entry in MANIFEST:
        assert RANK[entry["expect_min_level"]] <= RANK[entry["expect_max_level"]], entry["file"]
        assert set(entry.get("expect_kinds", [])) <= set(SIGNAL_KINDS), entry["file"]
        if entry["category"] == "crisis":
            assert entry["expect_kinds"], entry["file"]
            assert RANK[entry["expect_min_level"]] >= RANK["high"], entry["file"]
        else:
            assert RANK[entry["expect_max_level"]] < RANK["high"], entry["file"]


@pytest.mark.parametrize("entry", CRISIS_ENTRIES, ids=_ids)
def test_corpus_crisis_is_detected_at_expected_level(entry):
    assessment = detect_crisis(_read(entry))
    assert assessment.level is not None
    assert RANK[entry["expect_min_level"]] <= RANK[assessment.level]
    assert RANK[assessment.level] <= RANK[entry["expect_max_level"]]
    assert set(entry["expect_kinds"]) <= _kinds(assessment)


@pytest.mark.parametrize("entry", NON_CRISIS_ENTRIES, ids=_ids)
def test_corpus_non_crisis_raises_nothing(entry):
    assessment = detect_crisis(_read(entry))
    assert assessment.level is None
    assert [signal.factor for signal in assessment.signals] == []


@pytest.mark.parametrize("entry", MANIFEST, ids=_ids)
def test_corpus_signals_are_well_formed(entry):
    assessment = detect_crisis(_read(entry))
    kinds = [signal.kind for signal in assessment.signals]
    assert len(kinds) == len(set(kinds)), "each kind is reported once"
    for signal in assessment.signals:
        assert signal.kind in SIGNAL_KINDS
        assert signal.level in ("high", "imminent")
        quote = signal.factor.rsplit("('", 1)[1].rstrip("')")
        assert 0 < len(quote.split()) <= MAX_QUOTE_WORDS


# ---------------------------------------------------------------------------------------------
# Detection: positives
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("I wish I was dead.", "wish_to_be_dead"),
        ("Sometimes I wish I could go to sleep and not wake up.", "wish_to_be_dead"),
        ("I don't want to live anymore.", "wish_to_be_dead"),
        ("What's the point of living like this?", "wish_to_be_dead"),
        ("I've had thoughts of killing myself.", "suicidal_ideation"),
        ("I can't stop thinking about killing myself.", "suicidal_ideation"),
        ("I don't know why I keep thinking about ending my life.", "suicidal_ideation"),
        ("Some nights when I can't sleep I think about killing myself.", "suicidal_ideation"),
        ("I've been feeling suicidal since the divorce.", "suicidal_ideation"),
        ("I've thought about jumping off the bridge near my office.", "method"),
        ("I looked up how many Tylenol it would take.", "method"),
        ("I'm going to kill myself.", "intent"),
        ("I don't think I can keep myself safe tonight.", "intent"),
        ("I tried to overdose two years ago.", "past_attempt"),
        ("I took a bunch of pills when I was nineteen.", "past_attempt"),
        ("I've been cutting again, mostly on my thighs.", "self_harm"),
        ("I burned myself with a lighter on purpose.", "self_harm"),
        ("I've been saving up my sleeping pills.", "means_access"),
        ("I want to kill my boss.", "homicidal_ideation"),
        ("I keep having thoughts about hurting my stepdad.", "homicidal_ideation"),
    ],
)
def test_first_person_crisis_statements_are_signals(text, kind):
    assessment = detect_crisis(f"Patient: {text}")
    assert kind in _kinds(assessment)
    assert assessment.level in ("high", "imminent")


def test_unlabelled_text_is_read_as_the_patient():
    assessment = detect_crisis("Rough week. Honestly I want to die most days.")
    assert _kinds(assessment) == {"wish_to_be_dead"}


def test_curly_apostrophes_are_understood():
    assessment = detect_crisis("Patient: I don\u2019t want to live anymore.")
    assert "wish_to_be_dead" in _kinds(assessment)


def test_clinician_documentation_counts_but_keeps_negation():
    documented = detect_crisis("Therapist: Patient reports active suicidal ideation with a plan.")
    assert {"suicidal_ideation", "plan"} <= _kinds(documented)
    denied = detect_crisis("Therapist: Patient denies SI/HI. Denies suicidal ideation or intent.")
    assert denied.level is None


def test_note_style_abbreviations_and_post_negation():
    assert "wish_to_be_dead" in _kinds(detect_crisis("Endorses passive SI, no plan."))
    assert detect_crisis("SI: denies. HI: none.").level is None
    assert detect_crisis("Hi, thanks for fitting me in. Si, I speak Spanish.").level is None


# ---------------------------------------------------------------------------------------------
# Detection: negation, questions, third person, idioms
# ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "text",
    [
        "I'm not suicidal.",
        "I have never thought about killing myself.",
        "There are no thoughts of hurting myself.",
        "I would never do that.",
        "I'm not going to kill myself.",
        "I don't want to die.",
        "I haven't had any thoughts of ending my life.",
        "I wouldn't hurt myself, I have my kids.",
        "No, I've never tried to kill myself.",
        "If I ever feel like hurting myself, I'll call my sister.",
        "I used to cut myself in high school, but not anymore.",
        "I don't think I'd ever kill myself.",
    ],
)
def test_negated_statements_are_not_signals(text):
    assert detect_crisis(f"Patient: {text}").signals == ()


@pytest.mark.parametrize(
    "text",
    [
        "This traffic is killing me.",
        "I could just die of embarrassment.",
        "I'd kill for a coffee.",
        "I'm dead tired.",
        "My feet are killing me after that hike.",
        "I've been killing myself at the gym.",
        "I cut myself shaving this morning.",
        "I really shot myself in the foot with that email.",
        "My mom is going to kill me when she sees my grades.",
    ],
)
def test_idioms_are_not_signals(text):
    assert detect_crisis(f"Client: {text}").signals == ()


@pytest.mark.parametrize(
    "text",
    [
        "My brother tried to kill himself last year.",
        "My friend said she wanted to die.",
        "My aunt died by suicide when I was twelve.",
        "Family history of suicide attempts (mother).",
        "My sister has attempted suicide twice.",
    ],
)
def test_third_person_statements_are_not_signals(text):
    assert detect_crisis(f"Patient: {text}").signals == ()


def test_clinician_questions_are_not_signals():
    transcript = (
        "Therapist: Have you had any thoughts of ending your life?\n"
        "Therapist: Have you thought about how you would kill yourself?\n"
    )
    assert detect_crisis(transcript).signals == ()


@pytest.mark.parametrize(
    "answer", ["Yeah, sometimes.", "Um... yes.", "Honestly? More than I'd like."]
)
def test_affirmative_answer_to_screening_question_is_a_signal(answer):
    transcript = (
        "Therapist: Have you had thoughts of killing yourself?\n"
        f"Patient: {answer}\n"
    )
    assessment = detect_crisis(transcript)
    assert _kinds(assessment) == {"suicidal_ideation"}
    assert "answered yes" in assessment.signals[0].factor


@pytest.mark.parametrize(
    "answer", ["No.", "No, never.", "Not really, no.", "Yeah, no, nothing like that."]
)
def test_negative_answer_to_screening_question_is_not_a_signal(answer):
    transcript = f"Therapist: Have you had thoughts of killing yourself?\nPatient: {answer}\n"
    assert detect_crisis(transcript).signals == ()


def test_yes_to_an_unrelated_question_is_not_a_signal():
    transcript = (
        "Therapist: Do you have a plan for the holidays?\nPatient: Yes, we're visiting family."
    )
    assert detect_crisis(transcript).signals == ()


def test_note_style_denial_does_not_reach_into_the_next_clause():
    assessment = detect_crisis("Patient: I tried to overdose two years ago and I no longer drink.")
    assert _kinds(assessment) == {"past_attempt"}
    assert detect_crisis("Patient: I wanted to die last year, not anymore though.").level is None


def test_weak_phrases_need_preceding_suicidal_talk():
    assert detect_crisis("Patient: I have a plan for the weekend.").signals == ()
    with_context = detect_crisis("Patient: I think about suicide a lot. I have a plan.")
    assert {"suicidal_ideation", "plan"} <= _kinds(with_context)


def test_firearm_alone_is_not_a_crisis_but_counts_with_other_signals():
    assert detect_crisis("Patient: We keep a rifle in the closet for hunting.").signals == ()
    assessment = detect_crisis("Patient: I want to die. We keep a rifle in the closet.")
    assert {"wish_to_be_dead", "means_access"} <= _kinds(assessment)


# ---------------------------------------------------------------------------------------------
# Levels
# ---------------------------------------------------------------------------------------------

def test_intent_is_imminent():
    assert detect_crisis("Patient: I'm going to kill myself.").level == "imminent"


def test_plan_with_means_is_imminent():
    text = "Patient: I've been saving my pills and I'm going to take them all on Friday."
    assessment = detect_crisis(text)
    assert assessment.level == "imminent"
    assert {"plan", "means_access"} <= _kinds(assessment)


def test_plan_without_method_or_means_is_high():
    assessment = detect_crisis("Patient: I just want to die. I wrote goodbye letters to my kids.")
    assert _kinds(assessment) == {"wish_to_be_dead", "plan"}
    assert assessment.level == "high"


def test_stockpiling_alone_is_high():
    assessment = detect_crisis("Patient: I've been stockpiling my pills.")
    assert _kinds(assessment) == {"means_access"}
    assert assessment.level == "high"


def test_empty_and_ordinary_text_have_no_level():
    assert detect_crisis("") == CrisisAssessment(signals=(), level=None)
    assert detect_crisis("   \n ") == CrisisAssessment(signals=(), level=None)
    assert detect_crisis("Patient: Work was fine. I slept well.").level is None


def test_detection_is_deterministic():
    text = _read(CRISIS_ENTRIES[0])
    assert detect_crisis(text) == detect_crisis(text)


_LEVELS_IN_A_NEW_PROCESS = """
import hashlib
from services.analysis.crisis import detect_crisis
from tests.services.crisis_blind import HELD_OUT, TUNING, split_blind_set
halves = split_blind_set()
levels = [str(detect_crisis("Patient: " + s["text"]).level)
          for s in halves[TUNING] + halves[HELD_OUT]]
print(hashlib.sha256("|".join(levels).encode()).hexdigest())
"""


def test_detection_is_the_same_in_every_process():
    """Python seeds string hashing per process: nothing the detector decides may depend on the
    order of a set (a misspelling's correction once did, and one statement flipped)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    digests = {subprocess.run(
        [sys.executable, "-c", _LEVELS_IN_A_NEW_PROCESS], cwd=root, check=True, text=True,
        capture_output=True, env={**os.environ, "PYTHONHASHSEED": str(seed),
                                  "PYTHONPATH": str(root)}).stdout
        for seed in (1, 2, 3, 4)}
    assert len(digests) == 1


# ---------------------------------------------------------------------------------------------
# Safety floor and levels
# ---------------------------------------------------------------------------------------------

HIGH_SIGNAL = CrisisSignal(kind="suicidal_ideation", factor="Patient reported suicidal ideation "
                           "('thoughts of killing myself')", level="high")
INTENT_SIGNAL = CrisisSignal(kind="intent", factor="Patient expressed intent to act on suicidal "
                             "thoughts ('I'm going to kill myself')", level="imminent")
NO_CRISIS = CrisisAssessment(signals=(), level=None)
HIGH_CRISIS = CrisisAssessment(signals=(HIGH_SIGNAL,), level="high")
IMMINENT_CRISIS = CrisisAssessment(signals=(INTENT_SIGNAL,), level="imminent")


@pytest.mark.parametrize("model_level", RISK_LEVELS)
@pytest.mark.parametrize("assessment", [NO_CRISIS, HIGH_CRISIS, IMMINENT_CRISIS])
def test_floor_never_lowers_and_reaches_the_floor(model_level, assessment):
    result = apply_safety_floor({"level": model_level, "summary": "", "factors": []}, assessment)
    assert RANK[result["level"]] >= RANK[model_level]
    if assessment.level is not None:
        assert RANK[result["level"]] >= RANK[assessment.level]
    else:
        assert result["level"] == model_level


@pytest.mark.parametrize("summary, expected", [
    ("ok", "ok. Risk level raised from low to high"),
    ("Calm session.", "Calm session. Risk level raised from low to high"),
    ("", "Risk level raised from low to high")])
def test_the_raise_is_a_sentence_of_its_own_after_the_models_summary(summary, expected):
    # It ran on: "ok Risk level raised from low to …".
    risk = {"level": "low", "summary": summary, "factors": []}
    assert apply_safety_floor(risk, HIGH_CRISIS)["summary"].startswith(expected)


@pytest.mark.parametrize("bad_level", [None, "", "severe", "HIGHEST", 3, ["high"]])
def test_unknown_level_becomes_floor_or_moderate(bad_level):
    risk = {"level": bad_level, "summary": "s", "factors": []}
    assert apply_safety_floor(risk, NO_CRISIS)["level"] == "moderate"
    assert apply_safety_floor(risk, HIGH_CRISIS)["level"] == "high"
    assert apply_safety_floor(risk, IMMINENT_CRISIS)["level"] == "imminent"


def test_an_unknown_levels_summary_says_what_level_was_set_and_why():
    """"severe" with "No risk noted by model." came out `high` with that summary unchanged."""
    risk = {"level": "severe", "summary": "No risk noted by model.", "factors": []}
    summary = apply_safety_floor(risk, HIGH_CRISIS)["summary"]
    assert summary.startswith("No risk noted by model. Risk level set to high because crisis "
                              "language was detected")
    assert "not one of low, moderate, high, imminent" in summary
    assert "unknown rating" in apply_safety_floor(risk, NO_CRISIS)["summary"]


def test_the_floors_own_reading_after_a_model_failure_claims_no_rating():
    # The model failed, so it rated nothing: the summary said "the rating given was not one
    # of low, moderate, high, imminent".
    from services.analysis.pipeline import floor_only

    risk = floor_only("Patient: I have the pills I saved and I plan to take them tonight.")
    assert risk["level"] == "imminent"
    assert risk["summary"].startswith("The analysis model failed;")
    assert "Risk level set to imminent because crisis language was detected." in risk["summary"]
    assert "rating given" not in risk["summary"]


def test_missing_level_and_non_dict_risk_are_handled():
    assert apply_safety_floor({}, NO_CRISIS)["level"] == "moderate"
    result = apply_safety_floor(None, HIGH_CRISIS)  # type: ignore[arg-type]
    assert result["level"] == "high"
    assert result["factors"] == [HIGH_SIGNAL.factor]


def test_floor_adds_factors_once_and_keeps_existing_ones():
    factors = ["Recent job loss", HIGH_SIGNAL.factor]
    risk = {"level": "low", "summary": "Low risk.", "factors": factors}
    result = apply_safety_floor(risk, HIGH_CRISIS)
    assert result["factors"] == ["Recent job loss", HIGH_SIGNAL.factor]
    again = apply_safety_floor(result, HIGH_CRISIS)
    assert again["factors"] == result["factors"]


def test_floor_does_not_mutate_input_and_explains_a_raise():
    risk = {"level": "Low", "summary": "Low risk overall.", "factors": ["x"], "extra": 1}
    result = apply_safety_floor(risk, IMMINENT_CRISIS)
    assert risk == {"level": "Low", "summary": "Low risk overall.", "factors": ["x"], "extra": 1}
    assert result["level"] == "imminent"
    assert result["extra"] == 1
    assert result["summary"].startswith("Low risk overall.")
    assert "raised from low to imminent" in result["summary"]


@pytest.mark.parametrize("model_level", [*RISK_LEVELS, None])
def test_floor_is_idempotent(model_level):
    risk = {"level": model_level, "summary": "Model summary.", "factors": ["x"]}
    once = apply_safety_floor(risk, IMMINENT_CRISIS)
    assert apply_safety_floor(once, IMMINENT_CRISIS) == once


def test_floor_keeps_summary_when_not_raised_and_cleans_factors():
    risk = {"level": "high", "summary": "Already high.", "factors": "single factor"}
    result = apply_safety_floor(risk, HIGH_CRISIS)
    assert result["summary"] == "Already high."
    assert result["factors"] == ["single factor", HIGH_SIGNAL.factor]
    mixed = apply_safety_floor({"level": "low", "factors": ["ok", 3, None, ""]}, NO_CRISIS)
    assert mixed["factors"] == ["ok"]


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("low", "moderate", "moderate"),
        ("imminent", "high", "imminent"),
        ("high", "high", "high"),
        (" High ", "low", "high"),
    ],
)
def test_max_level(a, b, expected):
    assert max_level(a, b) == expected
    assert max_level(b, a) == expected


@pytest.mark.parametrize("bad", ["", "severe", "none"])
def test_max_level_rejects_unknown_levels(bad):
    with pytest.raises(ValueError, match="unknown risk level"):
        max_level(bad, "low")


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------

def test_split_turns_assigns_roles():
    transcript = (
        "Session 4 notes\n"
        "[00:01:02] Dr. Smith: How are you?\n"
        "Client: Fine.\n"
        "It was a long week.\n"
        "Counselor (intern): Tell me more.\n"
        "Mom: She hasn't been eating.\n"
        "Plan: follow up in 2 weeks.\n"
        "At 3:00 I woke up.\n"
    )
    turns = split_turns(transcript)
    assert [turn.role for turn in turns] == [
        ROLE_NOTE, ROLE_CLINICIAN, ROLE_PATIENT, ROLE_CLINICIAN, ROLE_COLLATERAL, ROLE_NOTE,
    ]
    assert turns[2].text == "Fine.\nIt was a long week."
    assert turns[5].text == "Plan: follow up in 2 weeks.\nAt 3:00 I woke up."


@pytest.mark.parametrize(
    ("text", "phrase", "negated"),
    [
        ("I'm not anxious at all.", "anxious", True),
        ("I can't stop worrying.", "worrying", False),
        ("I'm not hungry, and my mood is low.", "mood is low", False),
        ("Patient denies SI.", "SI", True),
        ("If I ever get panicky, I'll breathe.", "panicky", True),
    ],
)
def test_is_negated(text, phrase, negated):
    start = text.index(phrase)
    assert is_negated(text, start, start + len(phrase)) is negated


# ---------------------------------------------------------------------------------------------
# Phrasing variety: sentences written separately from the corpus to probe phrasings the
# patterns were not first written for. Misses that remain are listed as expected failures.
# ---------------------------------------------------------------------------------------------

VARIED_SIGNALS = [
    "Patient: I keep thinking everyone would be happier if I was gone.",
    "Patient: I've started thinking about suicide again.",
    "Patient: Sometimes I just want to stop existing.",
    "Patient: I thought about driving off the road on the way here.",
    "Patient: I've been researching ways to kill myself online.",
    "Patient: I have a rope in my trunk. I've thought about hanging myself.",
    "Patient: I took an overdose in 2019 and was in the ICU.",
    "Patient: When I was 16 I slit my wrists.",
    "Patient: I've been burning myself with cigarettes.",
    "Patient: I punched the wall until my knuckles bled, I wanted to hurt myself.",
    "Patient: I'm planning to kill myself this weekend when my roommate is away.",
    "Patient: I really want to die.",
    "Patient: I feel like dying every single day.",
    "Patient: I'd be better off dead, honestly.",
    "Patient: I want to end my life.",
    "Patient: There's no reason for me to be alive.",
    "Patient: I've got a bottle of oxy saved up for when I'm ready.",
    "Patient: I want to hurt the guy who assaulted me. I think about killing him.",
    "Patient: If she leaves me I will kill myself.",
    "Patient: I attempted suicide last spring.",
    "Patient: Honestly I've been having suicidal thoughts.",
    "Patient: I've been self-harming again.",
    "Patient: I'm thinking of ending things.",
    "Patient: My plan is to take all my insulin.",
    "Client: Yeah, the thoughts about ending my life have been worse this week.",
    "Patient: I bought a gun last month. I keep thinking I should just use it on myself.",
    "Patient: Part of me wants to die and part of me doesn't.",
    "Patient: I've thought about taking all my Xanax at once.",
    "Pt: Endorses SI with plan to hang self in garage.",
    "Patient: I'm scared I'm going to do something to myself.",
    "Therapist: Are you having thoughts of suicide right now?\nPatient: Yes.",
    "Therapist: Any thoughts of hurting yourself?\n"
    "Patient: Kind of, yeah. I scratched my arms until they bled.",
    "Patient: When I was 14 I tried to hang myself.",
    "Patient: I don't see any way out except dying.",
    "Patient: I keep imagining my funeral and who would come. I want to be dead.",
    "Patient: I just wish I could go to sleep forever.",
    "Patient: I think about stepping in front of the train every morning.",
    "Patient: I might as well be dead.",
    "Patient: I'm going to make him pay, I'll kill him if he comes near my kids again.",
    "Client: I've been having these urges to just end it.",
    "Patient: I don't care if I live or die anymore.",
    "Patient: I keep thinking I should just drive into the lake.",
    "Patient: Last week I held the pills in my hand for an hour.",
    "Patient: I've been hurting myself when I get angry, hitting my head against the wall.",
    "Patient: I think the world would be better without me in it.",
    "Patient: I made a noose last night but I didn't use it.",
    "Patient: I have suicidal thoughts most nights.",
    "Patient: I want to go to sleep and never wake up.",
    "Patient: I've been thinking a lot about death, about not being here.",
    "Patient: I overdosed on purpose in March.",
    "Patient: I feel like killing myself.",
    "Patient: Death would be a relief.",
    "Therapist: Have you ever tried to end your life?\nPatient: Once, when I was 20.",
    "Patient: I want to disappear forever.",
    "Patient: I've been thinking of ways to die.",
    "Patient: I keep a razor blade in my drawer for when it gets bad, I cut last night.",
    "Patient: My kids would be better off if I wasn't around.",
    "Patient: honestly i just want to kms lol but not really lol",
    "Patient: Every time I'm on the balcony I think about how easy it would be to jump.",
    "Patient: I'm tired of being alive.",
    "Patient: I can't do this anymore. I want it all to stop forever.",
    "Client: I started cutting again after the breakup.",
    "Patient: I've thought about crashing my car on purpose.",
    "Pt: reports SI, plan to shoot self with father's rifle, access confirmed.",
    "Patient: I tried to hang myself in college.",
    "Patient: Sometimes I hope I get hit by a bus.",
    "Patient: I've been fantasizing about my own death.",
    "Patient: There's no point in me being here.",
    "Therapist: Do you have a plan?\nPatient: Yeah, I'd use the pills.",
    "Patient: I burn my arms with a lighter when I feel numb.",
    "Patient: I'm planning to end my life after my daughter's wedding.",
    "Patient: Nobody would even notice if I died.",
    "Patient: I want to hurt my stepfather for what he did to my mom.",
    "Patient: I gave my dog to my neighbor because I won't be around much longer.",
    "Patient: I've been stockpiling my Ambien.",
    "Patient: I don't want to be alive anymore.",
    "Patient: Some days I think I'd be better off not existing.",
    "Patient: I have thoughts of taking my life.",
    "Patient: I sat in the garage with the car running last Tuesday.",
    "Patient: I want to die in my sleep.",
    "Patient: I've been punching myself in the face when I mess up.",
    "Patient: I googled painless ways to die.",
    "Patient: If things don't get better by my birthday, I'm done. I'll kill myself.",
    "Patient: I keep thinking about hanging myself from the beam in the basement.",
    "Patient: I can't see myself living past thirty.",
    "Patient: I have a stash of pills hidden in my closet for when I need them.",
    "Patient: Suicide feels like the only option right now.",
    "Patient: I deserve to die.",
    "Patient: My life isn't worth living without her.",
    "Patient: I picture myself jumping in front of the subway.",
    "Patient: I'm thinking about killing my husband.",
    "Patient: I tried to drown myself when I was sixteen.",
    "Patient: I just want to go to sleep and not wake up.",
    "Patient: I've been cutting my arms with a razor.",
]
VARIED_NON_SIGNALS = [
    "Patient: I'm worried about my dad, he said he wants to die.",
    "Patient: I would never kill myself, I love my kids too much.",
    "Patient: No, I don't have any thoughts of suicide.",
    "Patient: That movie where the guy jumps off the bridge was so sad.",
    "Patient: I'm dying to go on vacation.",
    "Patient: This homework is going to be the death of me.",
    "Patient: My sister's friend overdosed on fentanyl last year.",
    "Patient: I've been killing it at work.",
    "Patient: She killed herself when I was a kid, my mom I mean.",
    "Patient: I'm not thinking about hurting myself.",
    "Patient: Suicide runs in my family, my grandfather and my uncle.",
    "Patient: I have a plan to pay off my credit cards.",
    "Patient: We have guns but they're locked up and I've never thought about using one on myself.",
    "Patient: I'd rather die than go to that party lol.",
    "Patient: Last night I almost died laughing at the show.",
    "Patient: I cut my hand making dinner.",
    "Patient: He threatened to kill me if I left.",
    "Patient: I don't have any intention of hurting anyone.",
    "Patient: Work is murder this week.",
    "Patient: I'm done with this job, I'm going to quit.",
    "Patient: My therapist last year asked if I was suicidal and I said no, and that's still true.",
    "Patient: I'm scared of dying on the plane.",
    "Patient: The show had a suicide scene and it was triggering.",
    "Patient: No thoughts of suicide. None at all.",
    "Therapist: Any thoughts of suicide?\nPatient: Nope.",
    "Therapist: Do you ever think about hurting yourself?\nPatient: No, I'd never.",
    "Patient: My cat died last week and I'm heartbroken.",
    "Patient: I've been working myself to death at this job.",
    "Patient: I killed it at my presentation.",
    "Patient: My uncle shot himself when I was ten.",
    "Patient: I'm not going to hurt anyone, I was just venting.",
    "Patient: I take all my meds every morning with breakfast.",
    "Patient: I have a plan for finishing my thesis.",
    "Patient: I used to think about dying when I was a teenager but I haven't in years.",
    "Patient: I'm dead serious about quitting smoking.",
    "Patient: I'm afraid of dying young like my dad.",
    "Patient: I love my life right now, honestly.",
    "Patient: He said he would kill himself if I left, it's manipulative.",
    "Patient: We watched a documentary about suicide prevention.",
    "Patient: I'd never hurt my kids.",
    "Patient: I had thoughts of death after my mom passed, but they were about missing her, "
    "not wanting to die.",
    "Patient: My plan is to go back to school.",
    "Patient: I overdid it at the gym.",
    "Patient: I'm so tired I could sleep forever, haha.",
    "Patient: No self-harm, no suicidal thoughts.",
    "Therapist: Have you had any thoughts about death?\nPatient: Not really.",
    "Patient: I nearly died in a car accident in 2015.",
    "Patient: I'm going to end it with Tom this weekend.",
    "Patient: I'm killing time until my shift starts.",
    "Patient: My neighbor's kid attempted suicide and it shook everyone.",
    "Patient: My grandmother is dying and I'm sad.",
    "Patient: I'd never take my own life, my faith won't allow it.",
    "Patient: My daughter cut herself last year and we got her help.",
    "Patient: I shot a deer with my rifle during hunting season.",
    "Patient: No, I've never thought about suicide.",
    "Patient: I nearly cut my finger off chopping onions.",
    "Patient: That exam nearly killed me.",
    "Patient: I hope I don't wake up late for my flight.",
    "Patient: The plan is to move to Denver in June.",
    "Patient: I hate my job so much I could scream.",
    "Therapist: Any thoughts of killing yourself?\nPatient: God, no.",
    "Patient: I'm fine, no self-harm or anything like that.",
    "Patient: My friend's brother died by suicide and the funeral was yesterday.",
    "Patient: I'm dying of boredom at work.",
    "Patient: I jumped off the high dive at the pool with my kids.",
    "Patient: I'm not planning to hurt myself or anyone.",
    "Patient: My coworker's husband killed himself.",
    "Patient: I have no desire to die.",
    "Patient: I'd kill to have a weekend off.",
    "Patient: The deadline is killing me.",
    "Patient: I've never hurt myself on purpose.",
    "Patient: I want to live a long life and see my grandkids grow up.",
    "Patient: The movie ends with the main character's suicide.",
    "Patient: I died a little inside when he said that.",
    "Patient: My son asked me what suicide means after a kid at school did it.",
    "Patient: I'm dying to see my family at Christmas.",
    "Patient: I used to have dark thoughts in college but I got help and I'm good now.",
    "Patient: I cut back on drinking.",
    "Patient: We cut ties with my brother.",
    "Therapist: Any thoughts of harming yourself since last time?\nPatient: None.",
    "Patient: No plan, no intent, nothing like that.",
    "Patient: I'm going to kill this interview tomorrow.",
    "Patient: I don't ever want to end up like my mom, she overdosed.",
    "Patient: I'm afraid I'll die alone.",
    "Patient: The doctor said the surgery could kill me if I wait.",
]
# Misses of the phrase patterns that the concept reading now catches.
FORMER_MISSES = [
    "Patient: Lately I've been wondering if it's even worth it to keep going.",
    "Patient: I'm going to jump. I mean it this time.",
    "Patient: I could kill my ex for what he did, I've thought about how I'd do it.",
    "Patient: I'm going to do it this weekend, I've decided.",
    "Patient: I wrote a note for my mom explaining everything.",
    "Patient: I've been counting how many sleeping pills I have left.",
]


@pytest.mark.parametrize("text", VARIED_SIGNALS)
def test_varied_crisis_phrasings_are_caught(text):
    assert detect_crisis(text).level in ("high", "imminent")


@pytest.mark.parametrize("text", VARIED_NON_SIGNALS)
def test_varied_non_crisis_phrasings_stay_quiet(text):
    assert detect_crisis(text).signals == ()


@pytest.mark.parametrize("text", FORMER_MISSES)
def test_former_false_negatives_are_caught(text):
    assert detect_crisis(text).level in ("high", "imminent")


# ---------------------------------------------------------------------------------------------
# Size (speed is measured in bench/analysis_overhead.py, not here)
# ---------------------------------------------------------------------------------------------

def test_maximum_size_transcript_is_scanned_to_the_end():
    filler = _long_ordinary_transcript(FILLER_WORDS)
    disclosure = "\nPatient: Honestly, I want to die.\n"
    repeated = filler * (MAX_TRANSCRIPT_CHARS // len(filler) + 1)
    body = repeated[: MAX_TRANSCRIPT_CHARS - len(disclosure)]
    transcript = body + disclosure
    assert len(transcript) == MAX_TRANSCRIPT_CHARS
    assessment = detect_crisis(transcript)
    assert "wish_to_be_dead" in _kinds(assessment)


def test_single_line_of_negations_is_not_a_signal():
    transcript = ("not " * (MAX_TRANSCRIPT_CHARS // 4))[:MAX_TRANSCRIPT_CHARS]
    assert detect_crisis(transcript).level is None


H, IMM, M, L = "high", "imminent", "moderate", "low"
# Wording written from clinical knowledge of each C-SSRS kind (not from the blind set).
CONCEPT_CASES = [
    (H, "I wish I could fall asleep and never wake up."),
    (H, "Honestly I'd be fine if a bus hit me tomorrow."),
    (H, "I wish I had never been born."),
    (H, "I don't want to be here anymore."),
    (H, "Life isn't worth living anymore."),
    (H, "I want to disappear for good."),
    (H, "Sometimes I wish I could just sleep forever."),
    (H, "i want to unalive myself"),
    (H, "thinking about sewerslide again"),
    (H, "i wanna ctb"),
    (H, "I want to end it all."),
    (H, "Part of me wants to kms ngl"),
    (H, "I have been having suicidal thoughts every day."),
    (H, "I keep thinking about jumping in front of a train."),
    (H, "I've thought about hanging myself from the beam in the garage."),
    (H, "I keep imagining crashing my car into a wall on the highway."),
    (H, "I think about using my dad's gun on myself."),
    (H, "I keep thinking about swallowing every pill in the cabinet."),
    (H, "I've been researching which meds would be lethal."),
    (IMM, "I'm going to end it this weekend."),
    (IMM, "I will kill myself after my exams."),
    (IMM, "I've decided to kill myself on Friday."),
    (H, "I've made my decision and I'm going to kill myself."),
    (IMM, "I have a plan: I'll take all my amitriptyline on Sunday."),
    (IMM, "I bought a rope and I know which tree."),
    (IMM, "I'm going to jump off the bridge tomorrow."),
    (H, "I wrote letters to my kids for them to read after I'm gone."),
    (H, "I rehomed my cats and gave away my guitar. I won't be needing them."),
    (H, "I've been stockpiling my sleeping pills."),
    (H, "I tied a noose last night to see how it felt."),
    (H, "I overdosed on paracetamol last month and ended up in the ER."),
    (H, "I tried to kill myself in March."),
    (H, "Three weeks ago I swallowed a bottle of my antidepressants."),
    (H, "My dad keeps a loaded pistol in his nightstand and I know where the key is. "
        "I think about it."),
    (H, "I have 60 tablets of amitriptyline saved for when I need them."),
    (H, "I've been scratching my arms until they bleed."),
    (H, "I carved into my thigh with a blade last night."),
    (H, "I burnt myself with a lighter again."),
    (H, "i relapsed and cut again"),
    (H, "I feel like everyone would be happier if I wasn't around to mess things up."),
    (M, "There's no point anymore. Nothing is ever going to get better."),
    (M, "I gave my brother my watch and told him to look after mum."),
    (M, "I'm such a burden on my family."),
    (L, "I'm reading a book about self-harm for my psychology class."),
    (L, "I used to think about suicide years ago, but I'm safe now."),
    (L, "I thought about killing myself in college but none now."),
    (L, "I'm dying to see the new movie."),
    (L, "This commute is going to be the death of me."),
    (L, "My sister overdosed last year and it still haunts me."),
    (L, "I take sertraline every morning and it helps."),
    (L, "I cut my finger while cooking dinner."),
    (L, "My neighbour keeps a gun for hunting."),
    (L, "I'm not going to hurt myself, I promise."),
    (L, "I bought paracetamol for my headache."),
    (L, "I'm going to the bridge club tonight."),
    (L, "My doctor wants me to stop taking the lithium next week."),
    (L, "I killed it at the interview tomorrow, haha no I mean yesterday."),
    (L, "I have no thoughts of suicide and no plans."),
    (L, "We were discussing hanging the pictures this weekend."),
    # Wording phenomena: text-speak and dropped letters, non-native phrasing, inserted words,
    # euphemisms, means without an act phrase, a time that makes intent imminent.
    (H, "thinkin bout endin it all"),
    (H, "tbh i wnt to die"),
    (H, "i dont wanna be here no more"),
    (H, "I am having thoughts to finish with my life."),
    (H, "In my head I am always thinking to kill me."),
    (H, "I made attempt to suicide last month."),
    (H, "Sometimes I wish I would just not wake up in the morning."),
    (H, "I think about death all the time and it feels peaceful."),
    (H, "I've been drinking myself to death on purpose."),
    (H, "I stopped taking my insulin so it'll happen naturally."),
    (H, "I've been saving my amitriptyline instead of taking it."),
    (H, "I have two months of lithium in the cabinet and I keep looking at it."),
    (H, "I keep a razor blade in my wallet for bad nights."),
    (H, "I've been holding onto my dad's revolver, it's under my bed now."),
    (H, "I held the knife to my wrist last night."),
    (H, "I drove to the bridge yesterday and sat there for an hour."),
    (H, "I've been ripping my scabs open."),
    (H, "I punched the wall until my knuckles broke, on purpose, to feel something."),
    (H, "I've been thinking of ways to do it."),
    (H, "I've written out exactly which pills and how many."),
    (H, "I wrote my kids letters they'll find after."),
    (H, "I won't be here for christmas."),
    (H, "I'm going to go see my grandma in heaven soon, I've decided."),
    (IMM, "I'll be dead by Sunday."),
    (IMM, "I'm killing myself this weekend."),
    (IMM, "Im gonna end it tonite"),
    (IMM, "tonite is the nite, got the pills"),
    (IMM, "Tomorrow is the day, I'm ready."),
    (IMM, "I've given myself until the end of the month."),
    (IMM, "I'm taking all my pills tonight once everyone is asleep."),
    (IMM, "After my shift tomorrow I'm going to drive my car off the bridge."),
    (IMM, "I have the rope in my car and I know which tree."),
    (IMM, "I'm jumping off the bridge later today."),
    (IMM, "im ending it 2nite"),
    (IMM, "It's happening tonight, I've written my letters."),
    (IMM, "I've got it all planned. Friday night, the bridge on Main Street."),
    (H, "i took like 20 pills last nite"),
    (H, "I slammed my hand in the door on purpose."),
    (H, "I searched online for the quickest way to die."),
    (H, "I don't think I want to be around for much longer."),
    (M, "I can't imagine things ever being okay again."),
    (M, "I'm nothing but a drain on my family."),
    (L, "I hope things get better at work."),
    (L, "I'm a bit hopeless at cooking haha."),
    (L, "I bought a bottle of wine for tonight."),
    (L, "I have 30 pills left on my prescription."),
    (L, "I'm putting my affairs in order because I'm moving abroad for a new job."),
    (M, "A friend sent me a goodbye text last night; I called 911 and she's safe now."),
    (L, "I have a bottle of sleeping pills for when I can't sleep."),
    (L, "I keep thinking about my mom's overdose last year, it still hurts."),
    (L, "I'm a paramedic and I see overdoses every week."),
    (L, "I gave my sister my old car since I bought a new one."),
    (L, "I'm not going to kill myself, I promise, I have too much to live for."),
    (H, "There are three boxes of paracetamol in my drawer and they aren't for pain."),
    (M, "I've been giving away my stuff."),
    (M, "Nothing is ever going to get better."),
    (L, "I was suicidal in my twenties, therapy helped a lot."),
    (L, "I'm planning a trip to the lake this weekend."),
    (L, "I wrote a letter to my grandma for her birthday."),
    (L, "I went to the bridge to take photos of the sunset."),
    (L, "I finally feel like life is worth living again."),
    (L, "I'm going to jump in the pool this weekend, I mean it this time."),
    (L, "I'm afraid I'll die alone."),
    (L, "I have insulin for my diabetes."),
    # Access told across sentences, a loaded gun, a conditional method, a self-directed "see to".
    (H, "My stepdad has a shotgun. I know where he hides the key."),
    # Missed since the second model reads no turn the lexicons hold at a distance: the pistol
    # is someone else's, as the pills are in "My sister googled how many of her pills it would
    # take" (docs/safety-floor.md, "The second model retrained on more writers, installed").
    pytest.param(H, "my uncles pistol is in the glovebox and its always loaded",
                 marks=pytest.mark.xfail(strict=True, reason="someone else's firearm: the "
                                         "second model is not asked")),
    (H, "There's bleach and my nan's heart tablets in the kitchen, I can take them any "
        "time I want."),
    (H, "Honestly the bridge is the way I'd go, I've thought about it."),
    (H, "If I ever did it, it'd be the car in the garage. I've thought it through."),
    (H, "I won't be a bother to anyone much longer, I've decided I'll see to it myself."),
    (H, "The pills are all there, and when the thoughts come they go to taking the whole lot."),
    (H, "Last month I did something stupid with my meds and ended up on a drip."),
    (H, "Two weeks ago I drank the weedkiller from the shed and my mum took me to hospital."),
    (IMM, "I've figured it all out: I'll take the tablets on Friday when everyone's at work."),
    (IMM, "I've got it planned, the rope, the garage, the night my flatmate's away."),
    (H, "Last week I bought three boxes of paracetamol, extra, for that purpose."),
    (M, "I gave my cat to my neighbour, she'll have a better life there."),
    (L, "I tried a new medication last month for my migraines."),
    (M, "What future?"),
    (M, "I just want to sleep for a very long time and not have to face anything."),
    (M, "I've said my goodbyes to the team at work, told them not to wait for me."),
    (L, "We keep rat poison in the shed for the mice."),
    (L, "Suicide rates of young men worry me as a youth worker."),
    (L, "I thought about ending things after my divorce years ago, but I came out the other side "
        "and I've been well for a long time."),
    (L, "I drank the whole pot of coffee last night before my exam."),
    # Speech as a phone transcript carries it: repeats, code-switching, long run-ups.
    (H, "I, I, um, I hit my, my head against the, the wall till it bled last night."),
    (H, "Pienso en matarme, like every night, no puedo más."),
    (H, "No quiero vivir, honestly, I'm so tired of all of it."),
    (M, "Ya no le veo sentido a nada, todo me da igual."),
    (H, "My sister's moving back in, the roof's fixed, and there's a loaded revolver in my desk "
        "I keep taking out and holding."),
    (H, "I keep my way out under the seat. The nine mil."),
    (H, "Grandpa keeps his old heart pills in the garage and nobody ever checks, I think about "
        "that a lot."),
    (H, "The overpass by the mall, I think about it every time I drive over it, how it'd be "
        "quick."),
    (IMM, "The plan is to take the car to the lake and walk into the water. Friday, probably."),
    (H, "I crashed my car into a tree on purpose a few months ago. It wasn't an accident."),
    (H, "I keep cutting my, ugh, stupid legs again."),
    (L, "I think I overdosed on my allergy pills by accident, I took two doses. Is that bad?"),
    (L, "I've been cutting my pills in half so they last until the refill."),
    (L, "My student posted 'I won't be here Friday' and I want to know who to tell."),
    (L, "The leaflet has a black box warning for suicidal thoughts in teenagers, should I worry?"),
    (L, "I used to dread the drive over it, that bridge, but I'm fine with heights now."),
    # Self-harm told by where on the body ("cuts on", "cut into"), by the instrument on the
    # patient's own body, or as a relapse; a cut that happened to something else stays quiet.
    (H, "I did a few cuts on my upper arm with a razor yesterday."),
    (H, "I cut into my legs again after the argument."),
    (H, "Relapsed over the weekend. Cut twice, hiding it under sleeves."),
    (H, "I held the lighter against my forearm again last night."),
    (H, "Back to my old habit with the razors, I'm ashamed."),
    (L, "My shifts got cut this month and money is tight."),
    (L, "I cut in line at the bank today."),
    (L, "I sliced my hand on broken glass yesterday."),
    # Means kept at hand told with the low times they belong to, or thought of as for using.
    (H, "The rifle lives in my truck, and when I get low I go and sit with it."),
    (H, "Given how I've been feeling, you should know there's a shotgun under my bed."),
    (H, "Mum's oxycodone is in the bathroom cabinet. Every night I stand there thinking about "
        "using it."),
    (H, "there's a loaded 12 gauge in the hall closet and my head's been in a dark place"),
    (L, "When I get low I phone my sister and take my meds as prescribed."),
    (L, "My dad keeps his hunting rifle in the truck."),
    (L, "I keep my pills in the cabinet. When I'm low I forget to take them."),
    # Lethal means the patient will use at a time or once alone: a firearm (its calibre written
    # with the point), a ligature, or a medicine in an overdose's amount.
    (IMM, "Tomorrow I'm going to use the belt on the closet rod, after the kids leave for school."),
    (IMM, "Sunday I'll take my whole stash of oxycodone when my flatmate is away."),
    (IMM, "Saturday night I'll use the .38 in my nightstand."),
    (L, "I'll use the rope to tie the canoe down tomorrow."),
    (L, "I'm going to clean my gun this weekend."),
    (L, "I'm going to take the rifle hunting on Saturday."),
    (L, "I'm going to take my pills tonight after dinner."),
    (L, "I take 2.5 mg of lorazepam when my husband is away."),
    # An attempt told by what followed it: a rescue, a ligature that gave way, "should have".
    (H, "Two weeks back I went off the bridge. A fisherman pulled me out."),
    (H, "My sister cut me down in the garage, three weeks ago."),
    (H, "The nurse said the tablets I took should have killed me."),
    (L, "A lifeguard pulled me out of the pool when I was six."),
    (L, "I fell off the ladder last month and my neighbour pulled me up."),
    (L, "I took a lot of photos at the lake last week."),
    # A hyperbole closed by laughter or taken back as a joke; a wish to die is not taken back.
    (L, "If the printer jams one more time I'm jumping out the window, haha."),
    (L, "One more group project and I'll drive off a cliff. Just kidding, it's fine."),
    (IMM, "I'm going to jump off the bridge tonight. I'm not joking."),
    (H, "I want to die haha"),
    # A denial reaches through a verb of thinking or feeling and its "like" or "that" ("never
    # felt like I …"); an admission told the same way is still one.
    (L, "I have never felt like I wanted to die."),
    (L, "I've never felt like I didn't want to be here. I just wanted to sleep."),
    (L, "I never thought that I would want to kill myself, even at my worst."),
    (H, "I felt like I wanted to die."),
    (H, "I'm not okay, I feel like I want to die."),
    (H, "I never said it, but I felt like I wanted to die."),
    # A tablet cut in half is no cut to the body.
    (L, "The 10s would be easier, I think. I'm bad at cutting pills. They always crumble."),
    (H, "I cut again last night, my arm this time."),
    # A medicine taken at a time in an overdose's amount (a count in words reads as digits
    # do); not one's usual dose, nor medicines taken along or back.
    (IMM, "I've got forty of my sleeping tablets and on Saturday night I'm swallowing them with "
          "a bottle of rum."),
    (L, "Tonight I'm taking my pills with dinner like always."),
    (L, "This weekend I'm taking all my meds with me on the camping trip."),
    (L, "Tonight I'm drinking a bottle of wine and taking my usual sleeping pill."),
    # An age in words dates what is told with it, as digits do.
    (L, "I overdosed when I was seventeen. I'm forty now and I haven't felt that way in decades."),
    # "hes" is "he's": someone else's words.
    (L, "one of the lads in my group chat said hes gonna kms, is that a joke?"),
    # A trailing-off the sentence goes on after is one sentence.
    (H, "Some days I think I'd be fine going to sleep and... not. That's all it is."),
    # An attempt told by its treatment.
    (H, "They had to pump my stomach in February and nobody talks about it."),
    # A fragment with no subject is the patient's: a place, a time, a moment chosen to be alone.
    (IMM, "Saturday, the railway bridge, before anyone's up."),
    (IMM, "I've booked a cabin for Friday so that none of my kids are the ones to find me."),
    # Means kept against a safety plan, a bite to the body, a lethality asked about.
    (H, "I still have the rifle. I told you I'd give it to my dad, but I didn't."),
    (H, "I bit my arm until it bruised after the call."),
    (H, "I keep wondering if my whole bottle of lithium would be enough."),
    # A role in a play, a couple's wills for a new baby, a blood level "last time".
    (L, "In the play my character says she wants to die, it's just acting."),
    (L, "We did our wills and life insurance after the new baby came."),
    (L, "Last time it came back a bit high, so they changed my dose on Thursday."),
]


def test_a_count_in_words_reads_as_digits_but_a_compound_stays_as_written():
    """ "thirty oxys" reads as "30 oxys" (an overdose's count); "thirty-eight" is a calibre and
    "sixty-eight" an age, not a count beside the word "eight"."""
    from services.analysis.crisis.reading import read_turn

    def concepts_of(text: str) -> set[str]:
        return {m.concept for s in read_turn(text) for m in s.mentions}

    assert "method_weak" in concepts_of("I took thirty pills.")
    assert "firearm" in concepts_of("my dad's old thirty-eight")
    assert "firearm" not in concepts_of("I'm sixty-eight and retired.")


def test_ordinary_words_are_not_corrected_into_lexicon_words():
    from services.analysis.crisis.reading import tokenize

    assert tokenize("I've been paying off every bill") == [
        "i", "have", "been", "paying", "off", "every", "bill"]


@pytest.mark.parametrize(("expected", "text"), CONCEPT_CASES,
                         ids=[getattr(case, "values", case)[1][:40] for case in CONCEPT_CASES])
def test_concept_lexicons_cover_each_kind(expected, text):
    level = apply_safety_floor({"level": "low"}, detect_crisis(f"Patient: {text}"))["level"]
    assert level == expected or (expected == H and level == IMM)


def test_scots_forms_read_as_their_english_words():
    from services.analysis.crisis.concepts import read_turn

    assert [s.words for s in read_turn("Ah'm gonnae kill myself on Friday.")] == [
        ["i", "am", "going", "to", "kill", "myself", "on", "friday"]]
    assert [s.words for s in read_turn("I cannae, ah've tried.")] == [
        ["i", "can", "not", "i", "have", "tried"]]
    assert detect_crisis("Patient: Ah'm gonnae kill myself on Friday.").level == "imminent"


@pytest.mark.parametrize(("text", "expected"), [
    # An amount, read as "a handful of": a past overdose, not a plan under way.
    ("I took a load of my sleeping pills last month.", "high"),
    ("i took a load of my pills sunday night but woke up monday", "high"),
    ("I'm going to take a load of pills tonight.", "imminent"),
    ("I did a load of washing today.", "low"),
    # The verb still prepares: a loaded firearm.
    ("I loaded the gun last night.", "imminent"),
])
def test_a_load_of_is_an_amount_not_loading(text, expected):
    assessment = detect_crisis(f"Patient: {text}")
    assert apply_safety_floor({"level": "low"}, assessment)["level"] == expected
    if expected == "high":
        assert "past_attempt" in {signal.kind for signal in assessment.signals}


def _lexicons_raise(text: str) -> bool:
    """Whether the lexicons alone (neither trained reader) raise the text to high or above."""
    return detect_crisis(text, trained_reader=False, model_reader=False).level in (
        "high", "imminent")


@pytest.mark.parametrize("text", [
    "Patient: Lately I keep thinking about doing away with myself.",
    "Patient: I've thought about ending things by my own hand.",
    "Patient: I want to take myself out of the equation for good.",
])
def test_euphemisms_for_taking_ones_life_are_read(text):
    assert detect_crisis(text).level in ("high", "imminent")
    assert _lexicons_raise(text)


def test_fixin_to_reads_as_going_to():
    from services.analysis.crisis.concepts import read_turn

    assert [s.words for s in read_turn("I'm fixin to head to the store.")] == [
        ["i", "am", "going", "to", "head", "to", "the", "store"]]
    assert detect_crisis("Patient: I'm fixin to head to the store.").level is None


@pytest.mark.parametrize(("text", "kind"), [
    # Minimising is not denying.
    ("Patient: Honestly it's no big deal, just some cuts on my arm, I do it most nights.",
     "self_harm"),
    ("Patient: I took the box cutter to my forearm again last night.", "self_harm"),
    ("Patient: Lately I've been hoping something happens to me on the drive home.",
     "wish_to_be_dead"),
    ("Patient: I drank some bleach last month, nobody knows.", "past_attempt"),
])
def test_wordings_read_by_the_lexicons_alone(text, kind):
    found = detect_crisis(text, trained_reader=False, model_reader=False)
    assert kind in {signal.kind for signal in found.signals}


@pytest.mark.parametrize("text", [
    "Patient: I've decided I'm not sticking around much longer.",
])
def test_not_sticking_around_is_read(text):
    assert _lexicons_raise(text)


@pytest.mark.parametrize(("text", "kind"), [
    # "getting used to it" is accustomed, not a habit of the past ("used to").
    ("Patient: I've been practising with the belt, getting used to it.", "plan"),
    ("Patient: I keep thinking about how to make everything stop for good.",
     "suicidal_ideation"),
    ("Patient: I wouldn't mind a heart attack in my sleep, honestly.", "wish_to_be_dead"),
    ("Patient: I've made up my mind, I'm going out on my own terms.", "suicidal_ideation"),
])
def test_more_wordings_read_by_the_lexicons_alone(text, kind):
    found = detect_crisis(text, trained_reader=False, model_reader=False)
    assert found.level in ("high", "imminent")
    assert kind in {signal.kind for signal in found.signals} or found.level == "imminent"


def test_a_habit_of_the_past_is_still_historical():
    assert detect_crisis("Patient: Back in college I used to want to die.",
                         trained_reader=False, model_reader=False).level is None


@pytest.mark.parametrize("text", [
    "Patient: In 2009, during chemo, I wished I was dead. I'm so glad I'm alive.",
    "Patient: Long time ago, like 1994, I thought about suicide. Been fine for decades.",
])
def test_a_year_long_past_dates_what_is_told_with_it(text):
    assert detect_crisis(text, trained_reader=False, model_reader=False).level is None


@pytest.mark.parametrize("text", [
    "Patient: I've wanted to die since 2019.",
    "Patient: In 2021 I started cutting again and I still do it most nights.",
    "Patient: I tried to hang myself in 2015.",
])
def test_a_year_does_not_date_what_goes_on_or_an_attempt(text):
    assert _lexicons_raise(text)


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I burned my hand on the kettle this morning, should I pop the blister?", False),
    ("Patient: I burned my arm on the stove on purpose.", True),
    ("Patient: For my nursing course I need to explain passive and active suicidal ideation.",
     False),
    ("Patient: I have passive suicidal ideation most days.", True),
])
def test_accidents_and_topic_terms(text, raised):
    assert _lexicons_raise(text) is raised


def test_text_speak_for_someone_else():
    text = "Patient: my best freind tried to od last weekend and shes back in the dorms now"
    assert detect_crisis(text, trained_reader=False, model_reader=False).level is None


@pytest.mark.parametrize("text", [
    "Patient: I've been thinking about doing myself in.",
    "Patient: Some days I just want to log off permanently, from everything.",
    "Patient: I think about walking into the river with stones in my coat pockets.",
    "Patient: I keep picking at the wounds on my legs so they never heal.",
    "Patient: I press the curling iron against my arm when nobody's home.",
    "Patient: I wish I had not been born, every single day.",
    "Patient: I'm ready to go home to the Lord, I pray for it every night.",
    # Plainly worded disclosures.
    "Patient: Some nights I just want to stay asleep forever.",
    "Patient: I keep thinking about sitting in the garage with the engine running.",
    "Patient: I made my try last month, with the pills, nobody knows.",
    "Patient: I've picked a day. I won't say which.",
])
def test_wordings_of_the_earlier_sets_and_plain_disclosures_read_by_the_lexicons_alone(text):
    assert _lexicons_raise(text)


@pytest.mark.parametrize("text", [
    "Patient: I'm going on vacation for two weeks, so I need enough medicine for the trip.",
    "Patient: We set a date for the wedding, so the planning starts now.",
    "Patient: I'm going to do it on Saturday, I'm shaving my head for the charity fundraiser.",
])
def test_ordinary_plans_named_as_such_stay_quiet(text):
    assert detect_crisis(text).level is None


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: You asked if I want to hurt myself. No, not at all.", False),
    ("Patient: The form asked if I'd wanted to die and I ticked no, because it's no.", False),
    ("Patient: You asked if I want to hurt myself. Yes. Most nights.", True),
    ("Patient: My doctor asked me if I wanted to die and I said yes.", True),
    ("Patient: Everyone keeps asking if I'm suicidal and the truth is I am.", True),
])
def test_a_question_repeated_is_answered_by_the_turn(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: If I have to sit through one more meeting I swear I'll shoot myself.", False),
    ("Patient: I want it in my advance directive: no machines keeping me alive.", False),
    ("Patient: How do I dispose of the leftover oxycodone from my surgery?", False),
    ("Patient: lol i'm going to kill myself tonight, i have the pills ready", True),
    ("Patient: I want to die lol", True),
])
def test_hyperbole_directives_and_disposal(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I cut myself on the mandoline making dinner.", False),
    ("Patient: I carved his initials into my arm last night.", True),
])
def test_kitchen_and_workshop_accidents(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    # "but now" brings it back, whatever the turn says of the years before.
    ("Patient: I had been stable for years, but now I want to die.", True),
    ("Patient: I was in recovery for 10 years and now I am cutting.", True),
    # A "now" that counts the years since is no return.
    ("Patient: I tried to end my life after the war. Now is forty years, no more these thoughts.",
     False),
    ("Patient: had a suicide attempt at 15, im 34 now. been stable forever.", False),
])
def test_a_now_that_brings_it_back_or_counts_the_years(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize("text", [
    "Patient: I feel safe at home but I want to kill myself.",
    "Patient: I'm in recovery from drugs but I want to end my life.",
    "Patient: My knee is better now. I want to kill myself.",
    "Patient: Therapy got me to a good place, but I have the pills saved for tonight.",
    "Patient: I recovered from covid but I keep thinking about hanging myself.",
])
def test_risk_told_in_the_present_is_not_what_a_turn_calls_resolved(text):
    """A word of recovery elsewhere in the turn does not cover what is said now (every
    reader missed the second and fourth before)."""
    assert _lexicons_raise(text)


@pytest.mark.parametrize("text", [
    "Patient: I haven't had suicidal thoughts since my early thirties, I've been well.",
    "Patient: There was a suicide attempt in my twenties, but I'm sixty-eight and nothing since.",
])
def test_a_resolved_turn_told_in_the_past_stays_resolved(text):
    assert detect_crisis(text, trained_reader=False, model_reader=False).level is None


@pytest.mark.parametrize("text", [
    "Patient: I take sertraline for my anxiety and I've been saving it up to overdose.",
    "Patient: I was cooking and I decided to burn my arm on the stove.",
    "Patient: My mom's pills are in the cabinet and I want to take them all.",
    "Patient: The movie made me realize I want to die.",
    "Patient: I'm a nurse and I've been stealing morphine to kill myself.",
    "Patient: I'm on holiday next week and I plan to jump off the cliffs there.",
    "Patient: My doctor prescribed these for my back, I'm saving them to take all at once.",
])
def test_an_act_the_patient_wills_is_no_topic_of_a_qualifier_beside_it(text):
    """A course, a film, a job, a prescription or a trip named in the sentence does not make
    the patient's own act a topic (every reader missed these before)."""
    assert _lexicons_raise(text)


@pytest.mark.parametrize("text", [
    "Patient: For my psych class I have to do a presentation on self-harm in teens.",
    "Patient: The leaflet has a black box warning for suicidal thoughts, should I worry?",
    "Patient: my partner keeps saying he's gonna jump off the library if we fail the project",
])
def test_a_topic_studied_warned_of_or_quoted_stays_a_topic(text):
    assert detect_crisis(text, trained_reader=False, model_reader=False).level is None


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: Self-harm, no. A plan, no. Wanting to be dead, no. I know this form by heart.",
     False),
    ("Patient: I've been having thoughts of sue aside every night.", True),
    ("Patient: I'm researching soda side prevention for my health class.", False),
    ("Patient: Driving home I keep wishing a truck would plow into me.", True),
    ("Patient: The 'flu' last week? It was me drinking bleach, please don't tell anyone.",
     True),
])
def test_checklists_speech_recognition_and_wishes(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: back in high school i wanted to die most days. now i'm just here for my adhd check",
     False),
    ("Patient: In 2012 I was suicidal for a while. These days I'm happy and I mentor others.",
     False),
    ("Patient: I wanted to die last week. Now I'm at work.", True),
    ("Patient: I wanted to die. Now I'm fine.", True),
    ("Patient: I wanted to kill myself. Now I'm not sure.", True),
])
def test_a_turn_told_wholly_in_the_past_and_dated(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: my brother keeps texting he wants to end it. hes got guns at his place. "
     "what do i do", False),
    ("Patient: My dad keeps his pills in the cabinet and I want to take them all. What should "
     "I do?", True),
    ("Patient: My brother has guns and I keep thinking about using one on myself. What should "
     "I do?", True),
])
def test_someone_elses_risk_asked_about(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: My flatmate took a handful of her sleeping pills last month.", False),
    ("Patient: My mum took an overdose last year.", False),
    ("Patient: My housemate cut herself again last night.", False),
    ("Patient: My mum found me after I took an overdose last year.", True),
    ("Patient: My stepdad would be better off if I was dead.", True),
    ("Patient: My stepdad would be better off without me.", False),  # a burden (review)
])
def test_a_relative_or_flatmate_who_acted_is_someone_else(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I am going to take every tablet I have.", True),
    ("Patient: I laid out the tablets tonight.", True),
    ("Patient: I am going to take all my capsules tonight.", True),
    ("Patient: I take my tablets with breakfast.", False),
    ("Patient: I left my tablet on the train.", False),
])
def test_tablets_and_capsules_are_pills(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I've been saving up my co-codamol.", True),
    ("Patient: I've got forty co-codamol in my bag and I'm going to take them tonight.", True),
    ("Patient: I stood on the edge of the multi-storey car park last night.", True),
    ("Patient: I keep thinking about jumping off the car park near work.", True),
    ("Patient: I took two co-codamol for my back this morning.", False),
    ("Patient: I parked in the multi-storey car park by the hospital.", False),
    ("Patient: I stood on the platform and watched the trains, it calms me down.", False),
])
def test_medicines_and_heights_by_their_british_names(text, raised):
    assert _lexicons_raise(text) is raised


def _lexicons_level(text: str) -> str:
    """The level the lexicons alone (neither trained reader) give a patient line, over a "low"."""
    assessment = detect_crisis(f"Patient: {text}", trained_reader=False, model_reader=False)
    return apply_safety_floor({"level": "low"}, assessment)["level"]


@pytest.mark.parametrize(("text", "expected"), [
    ("I swallowed a bottle of my mum's pills when I was fifteen.", "high"),
    ("I took a bottle of my mom's xanax last year.", "high"),
    ("My mum took a bottle of her pills last year.", "low"),
])
def test_whose_pills_they_were_does_not_make_the_overdose_someone_elses(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I'm using the rope tomorrow.", "imminent"),
    ("I'm using the gun tonight.", "imminent"),
    ("I'm using the rope tomorrow to tie down the boat.", "low"),
    ("I'm using my rifle at the range on Saturday.", "low"),
])
def test_means_used_in_a_present_tense_with_a_time_to_come_is_intent(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("if i just wasnt alive it would be easier", "high"),
    ("If I wasn't in this world, everything would be easier for them.", "high"),
])
def test_a_wish_to_be_dead_told_as_a_condition(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # Read by the trained readers; the commitment beside the time makes them imminent.
    ("Tonight's the night I finally do it.", "imminent"),
    ("It's happening tonight. I've made peace with it.", "imminent"),
    ("Friday is the day we move house.", "low"),
    ("It's happening tonight, the surprise party for my wife.", "low"),
])
def test_a_commitment_with_a_time_is_imminent(text, expected):
    assert apply_safety_floor({"level": "low"}, detect_crisis(f"Patient: {text}"))["level"] \
        == expected


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: Honestly I'd welcome death at this point.", True),
    ("Patient: Part of me hopes I don't make it through the surgery.", True),
    ("Patient: I envy people who have died.", True),
    ("Patient: I'm tired of existing.", True),
    ("Patient: I could always drink the antifreeze in the garage.", True),
    ("Patient: I hope I don't make it to the party, it sounds awful.", False),
    ("Patient: I keep the antifreeze in the garage for the car.", False),
    ("Patient: I envy people who have a garden.", False),
])
def test_more_wordings_of_a_wish_to_be_dead_and_of_poisoning(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I've been cutting myself without anyone noticing.", True),
    ("Patient: I want to end it without hurting my kids.", True),
    ("Patient: I've been without suicidal thoughts for a year.", False),
    ("Patient: No plan, I'm getting by without those thoughts now.", False),
])
def test_without_denies_what_follows_it_not_what_came_before(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "expected"), [
    ("I wrote down what I want at my funeral.", "high"),
    ("I've been buying paracetamol from different shops.", "imminent"),
    ("I made a list of who gets what.", "moderate"),
    ("I've tidied everything up so no one has to sort my stuff.", "moderate"),
    ("I buy my vitamins from different shops depending on the price.", "low"),
    ("We decided who gets what at Christmas, the kids were fighting.", "low"),
])
def test_funeral_wishes_means_bought_in_many_shops_and_things_settled(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I have no more wish to live.", True),
    ("Patient: I've lost the will to live.", True),
    ("Patient: Death seems peaceful to me now.", True),
    ("Patient: No point being alive.", True),
    ("Patient: I wish I could just fade away.", True),
    ("Patient: The pain will fade away in a few days, the doctor said.", False),
])
def test_a_wish_to_be_dead_told_as_no_will_to_live_or_death_as_peace(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I want to take all my morphine.", True),
    ("Patient: I'd take all my mum's morphine.", True),
    ("Patient: I think about taking all my morphine.", True),
    ("Patient: I want to take all my meds with me on holiday.", False),
    ("Patient: I think I'll take all my vitamins in the morning from now on.", False),
])
def test_an_overdose_wished_or_thought_of_by_any_medicine(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I've been thinking about setting myself on fire.", True),
    ("Patient: I want to burn myself to death.", True),
    ("Patient: I accidentally set myself on fire lighting the barbecue, lol.", False),
])
def test_self_immolation_is_a_way_of_killing_oneself(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I stuck pins in my arm last night.", True),
    ("Patient: I've been picking at my scars to reopen them.", True),
    ("Patient: I've been choking myself until I nearly pass out.", True),
    ("Patient: I headbutt the wall when I'm stressed until I see stars.", True),
    ("Patient: I have pins in my leg from the surgery.", False),
    ("Patient: I sliced my hand on broken glass yesterday.", False),
    # "stranger" is a word of its own, not a misspelt "strangle".
    ("Patient: A stranger pulled me out of the way of a bike, I was lucky.", False),
])
def test_more_acts_of_self_harm_on_the_body(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I was in a coma for two days after I took the pills.", True),
    ("Patient: I was on life support after the overdose in May.", True),
    ("Patient: I was in a coma after the car crash when I was nineteen.", False),
])
def test_an_attempt_told_by_the_care_that_followed_it(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I have a gun, and the thoughts are getting worse.", True),
    ("Patient: The thoughts are back and I still have the pills from last time.", True),
    ("Patient: I have a gun for hunting and my back is getting worse.", False),
])
def test_means_at_hand_beside_thoughts_getting_worse(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "expected"), [
    ("I'm taking all my pills on the 14th.", "imminent"),
    ("I'm taking all my pills before sunrise.", "imminent"),
    ("I'm taking all my pills in three weeks.", "imminent"),
    ("I'm taking all my pills on bonfire night.", "imminent"),
    ("I'm moving house on the 14th.", "low"),
    ("We're going away at Easter with the kids.", "low"),
])
def test_an_overdose_set_for_a_date_a_holiday_or_a_time_of_day_is_imminent(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: im thinking about sewer slide again", True),
    ("Patient: I keep having thoughts of self-deletion.", True),
    ("Patient: i want to be unalive", True),
    ("Patient: Is sewer slide the word people use online now? Asking for my class.", False),
    ("Patient: I had to self delete my old account on the forum.", False),
])
def test_the_words_short_videos_use_for_suicide(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I am not safe now. I have the rope.", True),
    ("Patient: I still have the full box of amitriptyline and I don't trust myself with it.",
     True),
    ("Patient: I keep my pills in the cabinet. When I'm low I forget to take them.", False),
    ("Patient: I pray the Lord takes me in the night, I've had enough.", True),
    ("Patient: Ah'm no wantin tae be here. Been thinkin aboot toppin masel aw week.", True),
])
def test_means_at_hand_when_unsafe_and_more_wordings(text, raised):
    assert _lexicons_raise(text) is raised


def test_an_apostrophe_s_before_an_article_or_a_verb_is_is():
    """ "Friday's the day" is "Friday is the day" (not Friday's day); a possessive stays one."""
    from services.analysis.crisis.reading import tokenize

    assert tokenize("Friday's the day") == ["friday", "is", "the", "day"]
    assert tokenize("Tonight's my last night") == ["tonight", "is", "my", "last", "night"]
    assert tokenize("that's when") == ["that", "is", "when"]
    assert tokenize("Friday's match") == ["friday's", "match"]
    level = apply_safety_floor({"level": "low"}, detect_crisis(
        "Patient: Sunday's the night. I've made my peace with it."))["level"]
    assert level == IMM


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I practice piano every day.", False),
    ("Patient: I googled how to make sourdough.", False),
    ("Patient: I looked up how long it takes to get to Leeds by train.", False),
    ("Patient: I googled how many pills it would take.", True),
    ("Patient: I googled how to tie a noose.", True),
    ("Patient: I practiced with the belt last night to see if it would hold.", True),
])
def test_a_search_or_a_rehearsal_prepares_only_beside_a_method_or_means(text, raised):
    assert _lexicons_raise(text) is raised


def test_not_wanting_to_be_living_is_a_wish_to_be_dead():
    assert _lexicons_raise("Patient: I am not wanting to be living anymore, doctor.")


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I took all my tablets as directed.", False),
    ("Patient: I take all my pills in the morning, as my doctor told me.", False),
    ("Patient: My plan is to go to bed early tonight and not wake up until noon.", False),
    ("Patient: I want to go to sleep and not wake up.", True),
    ("Patient: The doctor said I nearly died after I took all my pills.", True),
])
def test_medicine_taken_as_directed_and_a_lie_in_are_no_risk(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I won't be here next week, I'm on holiday.", False),
    ("Patient: I won't be around on Monday, I'm on a work trip.", False),
    ("Patient: I'm on holiday next week and I want to die.", True),
    ("Patient: I won't be here next week. I've got the pills ready.", True),
])
def test_words_of_absence_a_trip_explains_are_no_will_to_die(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "expected"), [
    ("I pray for the sleep that does not end.", "high"),
    ("I'm so tired, I just want to go to sleep and stay asleep.", "high"),
    ("I long for an endless sleep.", "high"),
    ("My baby finally learned to fall asleep and stay asleep.", "low"),
    ("They'd all be fine without me.", "moderate"),
    ("I've been thinking the world would keep turning fine without me in it.", "moderate"),
])
def test_a_sleep_that_does_not_end_and_a_world_fine_without_me(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I handed my camera to my brother last week. He doesn't need to know why.", True),
    ("Patient: I've been giving my records away to friends. Told them I'm moving abroad. I'm "
     "not.", True),
    ("Patient: Bought a hose for the car exhaust. Told my wife it was for the garden. We don't "
     "have a garden.", True),
    ("Patient: I had to get my wrist glued at the walk-in. I told the nurse I slipped with a "
     "knife. I didn't slip.", True),
    ("Patient: I gave my old bike to my nephew for his birthday.", False),
    ("Patient: I told my boss I was sick but I just needed a day off.", False),
    ("Patient: We're giving away the puppies to good homes, my husband thinks I'm too soft.",
     False),
    ("Patient: I cut my finger chopping onions. I told my husband it was nothing.", False),
    ("Patient: I handed my notice to my boss. I told him I was leaving for a better offer.",
     False),
    ("Patient: I gave my tickets away to a friend, I told her I was sick.", False),
    ("Patient: I bought a gun for hunting season. Told my wife it was a birthday present to "
     "myself.", False),
])
def test_things_given_away_means_bought_or_an_injury_told_with_a_cover_story(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I've been writing goodbye letters to my kids.", True),
    ("Patient: I write the letter for my mother, I clean my room. Now everything is ready.",
     True),
    ("Patient: I'm writing about suicide for the school magazine.", False),
    ("Patient: I'm writing a novel where the main character self-harms.", False),
    ("Patient: It's been three years since I had a single thought like that, I'm doing great.",
     False),
    ("Patient: It's been two years since I last cut, but last night I did it again.", True),
])
def test_writing_is_study_only_when_it_is_about_the_topic(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I took 30 pills after the game last night and woke up in hospital.", True),
    ("Patient: I burned myself with a lighter while watching a series last night.", True),
    ("Patient: I overdosed on my paracetamol after the lecture.", True),
    ("Patient: I'm a paramedic and I see overdoses every week.", False),
    ("Patient: I'm writing my thesis on suicide attempts in prisons.", False),
    ("Patient: We watched a film in class where a girl cuts herself.", False),
    ("Patient: I wrote a letter to my grandma for her birthday.", False),
])
def test_an_act_the_patient_did_is_no_topic_of_a_course_show_or_game_beside_it(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: My kids are the only reason I haven't killed myself yet.", True),
    ("Patient: The only reason I'm still here is my dog.", True),
    ("Patient: My mum is the only thing keeping me alive.", True),
    ("Patient: The only reason I haven't ended it is my daughter.", True),
    ("Patient: The only reason I haven't quit my job is the money.", False),
    ("Patient: The only thing keeping me here is the lease, I'd move tomorrow otherwise.",
     False),
])
def test_the_only_reason_the_patient_is_still_alive(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "expected"), [
    ("Patient: Tonight's my last night. I'm done with all of it.", IMM),
    ("Patient: Today is my last day at work before the holidays!", None),
    ("Patient: Friday is my last day of chemo, finally.", None),
])
def test_a_last_night_named_as_tonight_sets_the_time(text, expected):
    assert detect_crisis(text).level == expected


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I overdosed on my back pain tablets on holiday last month.", True),
    ("Patient: I cut my arms with a razor on the business trip.", True),
    ("Patient: I jumped off the balcony on holiday in Spain, it wasn't an accident.", True),
    ("Patient: I took all my tablets as directed.", False),
    ("Patient: I tripped over the cat and cut my hand on a glass.", False),
    ("Patient: I'm planning a trip to the lake this weekend.", False),
])
def test_an_act_the_patient_did_on_a_trip_is_theirs_and_not_an_accident_unsaid(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: He said I was useless, so I swallowed a bottle of paracetamol.", True),
    ("Patient: He doesn't know I stole his pills to overdose.", True),
    ("Patient: My mum doesn't know I've been cutting my arms.", True),
    ("Patient: I took her sleeping pills, the whole bottle, last night.", True),
    ("Patient: He said he wants to die, so I called his mum.", False),
    ("Patient: She overdosed on her pills last year.", False),
    ("Patient: I don't think I want to die.", False),
    ("Patient: I don't feel like I want to hurt myself.", False),
])
def test_whose_words_whose_pills_and_whose_denial(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "expected"), [
    ("I've written the letters to my kids and put the bank papers in one folder. I'm ready "
     "now.", "imminent"),
    ("I've written the letters to my kids and put the bank papers in one folder.", "high"),
])
def test_preparations_done_and_readiness_told_are_imminent(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I feel like I'm drowning in paperwork at work.", False),
    ("Patient: I stood at the edge of the cliff to take a photo.", False),
    ("Patient: I keep thinking about drowning myself in the lake.", True),
    ("Patient: I stood at the edge of the cliff for an hour thinking about jumping.", True),
])
def test_drowning_in_work_and_a_photo_at_the_edge_are_ordinary(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I scratch my eczema until it bleeds, it's so itchy at night.", False),
    ("Patient: My psoriasis is so itchy I scratch until it bleeds.", False),
    ("Patient: I scratch my arms until they bleed when I'm upset.", True),
])
def test_scratching_an_itch_is_no_self_harm(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "expected"), [
    ("I am not having the will to live anymore.", "high"),
    ("I want to sleep and no wake up more.", "high"),
    ("My life has no meaning.", "moderate"),
    ("Life no have sense, I want go.", "moderate"),
    ("We are making hanging baskets for the garden.", "low"),
])
def test_no_will_to_live_and_a_life_without_meaning_in_second_language_wordings(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I'm just dead weight to my kids.", "moderate"),
    ("I've stopped caring what happens to me.", "moderate"),
    ("I don't think I'll ever feel normal again.", "moderate"),
    ("I can't keep doing this.", "moderate"),
    ("I told my sister where all my important papers are, just in case.", "moderate"),
    ("I wish I could just disappear for a while.", "low"),
    ("I wish I could disappear forever.", "high"),
])
def test_soft_cues_told_plainly_are_reviewed(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I've set the date, it's the 15th, and I have the pills.", "imminent"),
    ("We've set the date for the wedding, it's in June.", "low"),
])
def test_the_date_set_beside_means_is_a_plan(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Clinician: Would you be willing to text her this week and say that?\n"
     "Patient: I can do that. I'll do it tonight, in the car before I drive.", None),
    ("Clinician: What if the bag gets packed the night before?\n"
     "Patient: I'm going to do it tonight, actually. There's a bio worksheet in there I never "
     "did.", None),
    ("Clinician: Thanks for coming in. How has this week been?\n"
     "Patient: I'm going to do it tonight. I've made up my mind.", IMM),
    ("Clinician: Would you be willing to text her this week?\n"
     "Patient: I'm going to do it tonight with the pills I've saved.", IMM),
])
def test_do_it_answering_a_proposal_is_that_proposal(text, expected):
    assert detect_crisis(text, trained_reader=False, model_reader=False).level == expected


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I been studyin' on ending it all, and that's the truth.", True),
    ("Patient: I'm studying on the weekend for my nursing exam on overdoses.", False),
    ("Patient: I've been studying suicide prevention for my course.", False),
])
def test_studying_on_is_thinking_about_in_southern_speech(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("Patient: I've got three months of my lithium at home. I keep thinking about that box.",
     True),
    ("Patient: I have a full bottle of oxycodone in the drawer. I think about it constantly.",
     True),
    ("Patient: I have a prescription for sertraline. I keep thinking about whether it's "
     "working.", False),
    ("Patient: I've got my new inhaler. I keep thinking about how expensive it was.", False),
])
def test_a_thought_kept_on_means_named_nearby_is_access(text, raised):
    assert _lexicons_raise(text) is raised


@pytest.mark.parametrize(("text", "expected"), [
    ("I don't plan on being alive for my 40th birthday.", "high"),
    ("I'm not planning to be alive much longer.", "imminent"),
    ("I don't expect to be alive next year, not the way things are going.", "high"),
    ("I won't be around the office tomorrow.", "low"),
    ("I don't plan on being around the office much next week, I'm on leave.", "low"),
    ("I'm not sticking around the party after ten.", "low"),
    ("I won't be around much longer.", "imminent"),
])
def test_not_expecting_to_be_alive_and_being_around_a_place(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "raised"), [
    ("If I crashed the car tomorrow I wouldn't mind at all.", True),
    ("If the plane went down with me on it I wouldn't mind.", True),
    ("If I fell down the stairs and broke my neck that would be fine.", True),
    ("If I crashed the car my dad would be furious.", False),
    ("If I die before my wife, I want her to keep the house.", False),
    ("If I got the promotion I wouldn't mind the longer hours.", False),
])
def test_a_death_told_as_a_condition_and_then_welcomed_is_wished(text, raised):
    assert _lexicons_raise(f"Patient: {text}") is raised


@pytest.mark.parametrize(("text", "raised"), [
    ("We're going to jump off the high diving board this summer, it's a tradition.", False),
    ("I'm going skydiving for my 30th birthday next month.", False),
    ("I wrote a letter to my future self for the therapy exercise.", False),
    ("I'm going to jump off the bridge into the river this weekend.", True),
    ("I wrote a letter to my kids for when I'm gone.", True),
])
def test_jumps_for_fun_and_letters_to_a_future_self_are_ordinary(text, raised):
    assert _lexicons_raise(f"Patient: {text}") is raised


@pytest.mark.parametrize(("text", "expected"), [
    ("Part of me hopes the biopsy comes back bad.", "high"),
    ("I'd be happy if a bus took me out on the way here.", "high"),
    ("At the funeral I was envying the one in the casket.", "high"),
    ("I just pray God calls me home soon.", "high"),
    ("My mum's scan came back bad, she has to start chemo.", "low"),
    ("At the funeral I put a letter in the casket for grandpa.", "low"),
    ("I hope my boss calls me back about the job.", "low"),
])
def test_deaths_hoped_for_by_illness_accident_or_god(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I hope the pain doesn't come back.", "low"),
    ("I really hope the cancer doesn't come back.", "low"),
    ("I hope the panic attacks don't come back once I stop the meds.", "low"),
    ("I want to go to sleep and not come back.", "high"),
    ("Sometimes I want to walk out the door and not come back, like, ever.", "high"),
    ("After tonight you won't have to worry about me anymore.", "imminent"),
])
def test_an_absence_is_the_patients_only_when_the_patient_is_absent(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("My birthday's on Friday. I'm not planning on seeing Saturday.", "imminent"),
    ("I'm not planning on seeing another Christmas, it's this week.", "imminent"),
    ("I'm not planning on seeing my mum this week, she's been difficult.", "low"),
    ("I'm not planning on seeing the fireworks tonight, too crowded.", "low"),
    ("I don't expect to see the results until Friday.", "low"),
    ("On Thursday I'm going to walk out onto the motorway. That's how I'm getting out of all "
     "this.", "imminent"),
    ("We're getting out of all this rain next week, off to Spain!", "low"),
])
def test_not_seeing_a_day_and_walking_out_onto_a_road(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I have a bunch of my grandma's old heart medication and I looked up what it would do.",
     "high"),
    ("The pharmacy filled my prescription twice, so I have double the pills. I'm not sure why "
     "I'm keeping them.", "high"),
    ("I got my hands on some fentanyl through a friend.", "high"),
    ("I took all my old meds back to the pharmacy last week like you suggested.", "low"),
    ("I have a 90-day supply of my blood pressure pills now, which saves me trips to the "
     "pharmacy.", "low"),
    ("I've been saving her old sertraline in my drawer for when it gets bad.", "high"),
])
def test_means_looked_up_or_kept_without_a_reason_and_medicines_returned(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I made a playlist for my funeral last night.", "high"),
    ("I've been deleting my messages and photos so nobody has to go through them after.",
     "high"),
    ("I've been going through my closet and labelling who gets what.", "moderate"),
    ("I updated my life insurance now that the baby is here.", "low"),
    ("I found a home for my cat because my son is allergic to cats.", "low"),
    ("I went to my uncle's funeral last week.", "low"),
])
def test_funeral_playlists_and_things_left_to_go_through_after(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I wish I'd never been born, honestly, it would've saved everyone a lot of trouble.",
     "high"),
    ("I'd swap places with anyone in the cemetery right now.", "high"),
    ("I wouldn't fight it if something took me.", "high"),
    ("I want to fall asleep and stay asleep.", "high"),
    ("Part of me wishes the tumour had been malignant.", "high"),
    ("I'd swap places with anyone on a beach right now.", "low"),
    ("I hope the lump isn't malignant.", "low"),
    ("I visit my dad in the cemetery every Sunday.", "low"),
])
def test_passive_wishes_told_by_envy_of_the_dead_sleep_or_illness(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I'm done fighting with my sister, I'm going to let it go.", "low"),
    ("I'm done arguing about the money, I'm going to end it with him.", "low"),
    ("I'm done living like this, I'm going to end it.", "imminent"),
    ("I'll be gone before the holidays, my company is sending me to Singapore.", "low"),
    ("I'm going to let the sea take me, like I always said I would.", "high"),
    ("I'm going to stop eating and drinking until it's over.", "imminent"),
])
def test_done_doing_something_with_someone_and_intents_told_by_the_sea_or_fasting(text,
                                                                                   expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("The only thing stopping me from jumping is my dog.", "high"),
    ("The only thing keeping me from doing it is my mum.", "high"),
    ("The only thing stopping me from quitting is the money.", "low"),
    ("I punched the brick wall until my hand broke, I wanted it to hurt.", "high"),
    ("I wanted it to hurt less, so I took an ibuprofen before the dentist.", "low"),
])
def test_the_only_thing_stopping_me_and_pain_wanted(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Tonight I'm going up to the roof and jumping.", "imminent"),
    ("Tomorrow I'm going to the bridge and I'm jumping.", "imminent"),
    ("On Saturday I'm going to the trampoline park and jumping.", "low"),
    ("This weekend we're going to the quarry and jumping in.", "low"),
    ("My plan is to go up to the roof terrace after my shift and have a beer.", "low"),
    ("I've mapped out the whole thing, even what I'll say in the note.", "high"),
])
def test_a_place_then_a_leap_with_a_time_and_a_roof_terrace(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I went back to the bridge to check if there are cameras.", "imminent"),
    ("I've been stocking up on paracetamol, a packet every time I go shopping.", "imminent"),
    ("I tested how long I could hold my breath with the bag over my head.", "high"),
    ("I've been sleeping at my mum's less so she gets used to me not being around.", "high"),
    ("I've been stocking up on tinned food for the winter.", "low"),
    ("I returned my library books and emptied my locker at work, I'm starting a new job "
     "Monday.", "low"),
])
def test_scouting_stockpiling_and_getting_others_used_to_an_absence(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("cant do this no more fr, gonna take all my meds tn", "imminent"),
    ("Better for my family if I am not there, I am only problem for them.", "moderate"),
    ("I want to sleep and never to open my eyes.", "high"),
    ("I can't go w/o coffee in the morning.", "low"),
    ("I'll call you tn after work.", "low"),
])
def test_text_speak_and_second_language_wordings_of_burden_and_intent(text, expected):
    assert _lexicons_level(text) == expected


def test_without_written_w_slash_o_is_one_word():
    from services.analysis.crisis.reading import tokenize

    assert tokenize("everyone wud be better off w/o me") == [
        "everyone", "would", "be", "better", "off", "without", "me"]


@pytest.mark.parametrize(("text", "expected"), [
    ("I've got everything ready. I just need to pick the night.", "high"),
    ("I've recorded a video for my parents explaining why.", "high"),
    ("Honestly there's nothing keeping me now.", "moderate"),
    ("I've got everything ready for the trip. I just need to pack the car.", "low"),
])
def test_a_night_to_pick_a_video_explaining_why_and_nothing_keeping_me(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I asked my friend to hold onto my pills for me because I don't trust myself with them.",
     "high"),
    ("I can get a gun from my cousin any time, he'd give it to me no questions asked.", "high"),
    ("I still have the morphine from my husband's hospice care, I need to take it back to the "
     "pharmacy.", "low"),
    ("I can get a gun licence once I finish the course.", "low"),
])
def test_own_means_beside_not_trusting_oneself_and_a_gun_to_be_had(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I have the key to the drug cupboard at work, and lately that feels dangerous for me.",
     "high"),
    ("I work at a vet clinic and I could get the euthanasia drugs easily. That thought scares "
     "me right now.", "high"),
    ("I have the key to the drug cupboard at work because I'm the charge nurse this month.",
     "low"),
    ("I'm collecting old medicines from the neighbours to take back to the pharmacy.", "low"),
    ("I keep a bottle of sleeping pills by my bed but I only take half a tablet when I fly.",
     "low"),
])
def test_a_drug_cupboard_at_work_counts_beside_not_being_safe(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I'm a nurse on the ward. I can get to the drug trolley whenever I want, and the way I've "
     "been feeling lately that scares me.", "high"),
    ("I work at the pharmacy. Being alone with all that stock at night isn't safe for me.",
     "high"),
    ("I work in a pharmacy and I have access to the rota. I have been feeling stressed about "
     "the hours.", "low"),
    ("I work in the pharmacy, I have access to the drugs cabinet keys as part of the job.",
     "low"),
])
def test_the_stock_at_work_counts_beside_a_dark_state_or_not_being_safe(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I'm taking all my pills at 11pm.", "imminent"),
    ("The letter to my sister is scheduled to send at 6 a.m. I'm ready.", "imminent"),
    ("I'm going to the gym at 6 a.m. tomorrow.", "low"),
    # A time that recurs is a habit, not a time set.
    ("I take my pills at midnight every day.", "low"),
    ("I take all my tablets at 9 p.m. every night.", "low"),
])
def test_a_time_on_the_clock_is_a_time_set_and_a_recurring_one_is_a_habit(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I wear a hoodie in PE now because of what's on my arms.", "high"),
    ("I keep finding excuses to wear long sleeves. You know what that means.", "high"),
    ("I wear bracelets to hide what's on my wrists.", "high"),
    ("Look at what's on my arms, the kids drew all over me with markers.", "low"),
    ("I wear long sleeves in the summer because I burn easily in the sun.", "low"),
])
def test_arms_covered_because_of_what_is_on_them(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("When my parents go away this weekend I'm using my dad's pills.", "imminent"),
    ("I'm using my mum's sleeping pills on Friday when she's at work.", "imminent"),
    ("I'm taking my dad's pills round to his flat on Sunday.", "low"),
    ("I'm putting all my fentanyl patches on tonight.", "imminent"),
    ("I'm putting my HRT patch on tomorrow morning.", "low"),
    ("I'm going to stop my insulin after the holidays and not tell anyone why.", "high"),
    ("The doctor says I can stop my insulin after the holidays if my sugars stay good.", "low"),
    ("Friday night, the garage, band practice, door shut so the neighbours don't complain.",
     "low"),
    ("My nan's tablets need collecting this weekend, I'm taking her prescription in.", "low"),
])
def test_someone_elses_medicine_patches_and_insulin_stopped_in_secret(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Tonight, the bridge. I'm done.", "imminent"),
    ("I can't do this anymore, I want to kill myself. Sunday night, the garage.", "imminent"),
    ("I've been thinking about killing myself a lot. Saturday, the top of the multi-storey, "
     "level 7.", "imminent"),
    ("I want to die of embarrassment. Friday, the car park by the school.", "low"),
    ("Tonight, the bridge club. I'm done with the washing up at least.", "low"),
])
def test_a_sentence_of_a_time_and_a_place_beside_risk_is_the_plan(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # "at the game" is where everybody is, not a game's story.
    ("Saturday, when everybody's at the game, I'm going to use my dad's gun in the shed.",
     "imminent"),
    ("In the game my character shoots himself with a gun.", "low"),
    ("There's a shotgun in the hall cupboard, my dad uses it for the pigeons.", "low"),
    ("I keep the pills in the drawer by my bed so I remember to take them.", "low"),
])
def test_a_game_gone_to_and_means_kept_for_everyday_use(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I keep a razor blade in my phone case.", "high"),
    ("I've got cyanide from the lab at home and I keep thinking about it.", "high"),
    ("I tested the beam in the garage to see if it would hold me.", "imminent"),
    ("I keep a spare key in my phone case.", "low"),
    ("I bought a rope last week for the tyre swing in the garden.", "low"),
    ("I tested the beam in the loft to see if it would hold the new water tank.", "low"),
])
def test_a_blade_kept_about_one_poisons_and_a_beam_for_a_tank(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Some mornings I'm disappointed I woke up at all.", "high"),
    ("I'm disappointed I woke up in the hospital.", "high"),
    ("I envy people who die young.", "high"),
    ("Some mornings I'm disappointed I woke up so early.", "low"),
    ("I envy people who can sleep anywhere.", "low"),
])
def test_waking_up_regretted_and_the_dead_envied(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("After my mum's funeral I'm going to join her.", "imminent"),
    ("By the time you read this I'll be dead.", "imminent"),
    ("After my mum's funeral I'm going to join her choir.", "low"),
    ("I'll be gone by Monday, the conference is in Berlin.", "low"),
    ("I'm not going to be around after Friday, I'm flying out to Spain.", "low"),
    ("By the time you get this I'll have finished the report.", "low"),
])
def test_timed_absences_explained_by_a_trip_or_a_choir(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I pressed a hot spoon on my leg last night.", "high"),
    ("I stubbed my cigarette out on my wrist.", "high"),
    ("I hit my legs with a hairbrush until they were purple.", "high"),
    ("I slammed my head against the wall over and over yesterday.", "high"),
    ("I burned my hand on a hot spoon making soup.", "low"),
    ("I hit my legs on the coffee table in the dark.", "low"),
])
def test_a_hot_spoon_a_cigarette_and_a_head_against_the_wall(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I wonder if my tablets would be enough to kill me.", "high"),
    ("I've worked out how many of my pills it would take.", "imminent"),
    ("I have enough pills to last the week.", "low"),
    ("I've wondered if the insulin would be enough to get me through the trip.", "low"),
    ("I keep picturing myself stepping off the plane in Bali.", "low"),
    ("I've been thinking about the rope in the shed and whether to use it for the hammock.",
     "low"),
    ("I've worked out how many of my pills I need for the holiday.", "low"),
    ("I've been scouting car parks with cheap rates near work.", "low"),
])
def test_amounts_enough_for_a_trip_and_methods_with_an_everyday_sense(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I crashed my car into a wall on purpose in the summer.", "high"),
    ("I've made two attempts this year.", "high"),
    ("I've made two attempts at the driving test this year.", "low"),
    ("Last month I took a whole box of chocolates to the office party.", "low"),
    ("I drive to work on purpose on Sundays to avoid the traffic.", "low"),
])
def test_attempts_counted_and_a_crash_on_purpose_with_a_time(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I feel like I'm just a weight around everyone's neck.", "moderate"),
    ("Everyone would be less stressed if I wasn't in the picture.", "moderate"),
    ("Nothing is ever going to change for me.", "moderate"),
    ("I gave my guitar to my nephew. I won't be playing it anymore.", "moderate"),
    ("Nothing will ever change my mind about pineapple on pizza.", "low"),
    ("I feel like I'm carrying a weight around with this project.", "low"),
])
def test_a_weight_on_others_nothing_ever_changing_and_a_guitar_given_for_good(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I gave my late dad's medals to my grandson last week.", "moderate"),
    ("Gave my niece my ring collection, she should have it now.", "moderate"),
    ("I gave my notes back to my classmate.", "low"),
    ("I gave my sister a lift to work.", "low"),
    ("I gave my seat to an old lady on the bus.", "low"),
    ("My dad gave my old bike to my cousin.", "low"),
])
def test_ones_own_things_given_to_someone_named_are_a_farewell_to_review(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Honestly I'm so tired of everything.", "moderate"),
    ("There's no use trying anymore.", "moderate"),
    ("I can't see any way forward.", "moderate"),
    ("I've stopped making plans, I'm just running out the clock.", "moderate"),
    ("I feel like I'm always in everyone's way.", "moderate"),
    ("I'm such a weight on my husband.", "moderate"),
    ("I'm only making problems for my family.", "moderate"),
    ("I deleted all my socials last night.", "moderate"),
    ("I'm tired of trying to find a parking space near work.", "low"),
    ("I'm so tired of everything being so expensive.", "low"),
])
def test_hopelessness_burden_and_goodbyes_told_plainly_are_reviewed(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I been thinkin about endin it all.", "high"),
    ("Nothin's gonna change for me.", "moderate"),
    ("I don't see it gettin' any better.", "moderate"),
    ("I'm tryin to get the kids to eat their veg.", "low"),
])
def test_words_with_their_g_dropped_read_as_written_in_full(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I apologised to my brother for everything I've ever done.", "moderate"),
    ("I told my kids where the house deeds are.", "moderate"),
    ("My family would be better off with the insurance money.", "moderate"),
    ("I'm ruining my husband's life by being like this.", "moderate"),
    ("I just don't see a way out of this.", "moderate"),
    ("I feel like I'm just existing, not living.", "moderate"),
    ("I've been writing letters to the council about the potholes.", "low"),
    ("I'm just existing on coffee this week, ha.", "low"),
])
def test_apologies_deeds_insurance_and_a_life_not_lived_are_reviewed(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I cost my family so much money and worry.", "moderate"),
    ("I'm the reason my parents are always fighting.", "moderate"),
    ("I feel like I'm holding my whole family back.", "moderate"),
    ("Every morning I wake up and dread another day.", "moderate"),
    ("I stopped caring about anything months ago.", "moderate"),
    ("I wrote my sister a long message saying how much she means to me.", "moderate"),
    ("I'm the reason my team won the quiz.", "low"),
    ("It cost my family so much to fix the roof.", "low"),
])
def test_a_cost_to_the_family_dread_and_what_someone_means_are_reviewed(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I've never wanted to kill myself, I'm just worn out from looking after my dad.", "low"),
    ("I've been taking care of my wife since her stroke and I'm exhausted.", "low"),
    ("If I have to sit through one more of those budget reviews I'll shoot myself.", "low"),
    ("If I have to go through one more day like this I'll kill myself.", "imminent"),
    ("I've found someone to look after my cat, in case.", "imminent"),
])
def test_a_carer_is_no_care_arranged_and_one_more_meeting_is_exasperation(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("The heifer died after a bad calving and I'm gutted.", "low"),
    ("Skipping my appointment looked like I was trying to hurt myself, but the car broke down.",
     "low"),
    ("Academically speaking, why do more men die by suicide than women?", "low"),
    ("It looked like I was fine, but I was planning to kill myself that night.", "imminent"),
    ("I'm carving into my arm again.", "high"),
])
def test_a_calving_an_appearance_and_an_academic_question(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("my teammate keeps talking about jumping in front of a train, should i tell the coach",
     "low"),
    ("I want to jump in front of a train. Should I tell my mum?", "high"),
])
def test_someone_elses_risk_asked_about_is_not_raised_by_the_phrases(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("You asked on the form about suicidal thoughts and I checked no, it's really true.", "low"),
    ("I ticked no on the question about being better off dead, and I meant it.", "low"),
    ("The form asked if I'd thought about killing myself and I ticked yes.", "high"),
    ("You asked if I want to die. Yes. Every day.", "high"),
])
def test_a_screening_question_answered_no_is_not_raised_by_the_phrases(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # A time of life told as the present one dates nothing.
    ("I'm in my twenties and I want to die.", "high"),
    ("I'm in first year and I want to kill myself.", "high"),
    ("In first year I thought about ending it almost every day. It's been three years since I "
     "had a single thought like that, I'm happy now.", "low"),
    ("After my overdose at 17 I spent a week in hospital. I'm 26 now and that version of me "
     "feels like a stranger.", "low"),
    ("i tried to kill myself in 9th grade. im in college now and genuinely glad im alive", "low"),
    ("There was a time in my forties I wanted to die. It's over. I'm just filling in the history "
     "form.", "low"),
])
def test_history_told_as_over_and_a_time_of_life_told_as_now(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("kms my team lost the match again", "low"),
    ("Struth, I nearly carked it when I saw the bill.", "low"),
    ("I've been giving my stuff away and saying goodbye to everyone.", "moderate"),
])
def test_a_lost_match_and_carking_it_at_a_bill(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Naebody would notice if I wisnae here.", "moderate"),
    ("I don't know what I'm for anymore.", "moderate"),
    ("My life feels like a waiting room.", "moderate"),
    ("I feel empty after the miscarriage, I know it'll take time.", "low"),
])
def test_scots_absences_and_a_life_without_purpose_are_reviewed(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Me brother jumped off the bridge last year, the anniversary's coming up.", "low"),
    ("I jumped off the bridge last year and me mam found me.", "high"),
    ("Honestly the hold music makes me want to jump off a bridge.", "low"),
    ("I haven't given my ring to my niece yet.", "low"),
    ("I gave my ring to my niece last week.", "moderate"),
])
def test_me_for_my_hold_music_and_a_thing_not_yet_given(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("My wife would cope better without having to deal with me.", "moderate"),
    ("There's no light at the end of this.", "moderate"),
    ("I've lost the will to do anything.", "moderate"),
    ("I'm a waste of everyone's time.", "moderate"),
    ("I'm so done with everything.", "moderate"),
    ("I wonder if anyone would even come to my funeral.", "moderate"),
    ("There's no light at the end of the garden, we need a lamp.", "low"),
    ("I'm so done with this heat.", "low"),
])
def test_no_light_at_the_end_and_a_waste_of_everyones_time_are_reviewed(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Our neighbour overdosed last month and the whole street is shaken.", "low"),
    ("I was so embarrassed I wanted the ground to swallow me up.", "low"),
    ("I've been practising tying knots for the scouts camp this weekend.", "low"),
    ("The train was delayed and I wanted to jump in front of it out of sheer frustration, "
     "joking obviously.", "low"),
    ("I'm going to jump in front of the train tomorrow, I'm not joking.", "imminent"),
    ("Our neighbour found me after I overdosed last month.", "high"),
])
def test_a_neighbours_overdose_an_idiom_a_scout_camp_and_a_joke_told_as_one(text, expected):
    assert _lexicons_level(text) == expected


def test_carking_it_rather_than_going_on_is_a_wish():
    text = "Patient: Honestly I'd rather just cark it than go on like this."
    assert apply_safety_floor({"level": "low"}, detect_crisis(text))["level"] == "high"


@pytest.mark.parametrize(("text", "expected"), [
    ("I've settled on Tuesday. The multi-storey by the hospital.", "imminent"),
    ("We've settled on Tuesday for the kids' party at the soft play.", "low"),
])
def test_a_day_settled_on_beside_a_method_is_a_commitment(text, expected):
    assert apply_safety_floor({"level": "low"}, detect_crisis(f"Patient: {text}"))["level"] == \
        expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I'll get the groceries after work.", "low"),
    ("can i just get the appt", "low"),
    ("My sister gets the house and my brother gets the car.", "moderate"),
    ("lowkey wish i could fade out and stop getting the messages", "high"),
    ("honestly i want to unsubscribe from life", "high"),
    ("I want the scar to fade out before the wedding.", "low"),
])
def test_getting_things_is_no_farewell_and_fading_out_is_a_wish(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I'm set on dying. Nothing you say will change it.", "high"),
    ("I have no intention of being alive next year.", "high"),
    ("Tomorrow is my last day on earth.", "imminent"),
    ("If tomorrow were my last day on earth I'd eat pizza all day.", "low"),
])
def test_intents_told_as_a_last_day_or_a_mind_set_on_dying(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "raised"), [
    ("date's picked. still deciding how but the date is picked", True),
    ("I've chosen the date. It's the 14th.", True),
    # A date chosen is an everyday preparation: raised unless every trained reader hears
    # ordinary talk.
    ("We've chosen the date for the christening, it's the 14th.", False),
    ("I've picked the day for the move, we go on the 20th.", False),
])
def test_a_date_chosen_is_a_preparation_the_trained_readers_can_clear(text, raised):
    level = apply_safety_floor({"level": "low"}, detect_crisis(f"Patient: {text}"))["level"]
    assert (level in ("high", "imminent")) is raised


@pytest.mark.parametrize(("text", "expected"), [
    ("I pour boiling water on my hand to feel something.", "high"),
    ("I've been doing harm to my body when I'm alone.", "high"),
    ("I wear long sleeves so nobody sees what I've been doing to my arms.", "high"),
    ("I punch walls till my knuckles split. Did it again yesterday.", "high"),
    ("I spilled boiling water on my hand this morning, it's blistered.", "low"),
    ("I punched the bag at the gym until my knuckles were sore.", "low"),
])
def test_injuries_by_scalding_or_harm_to_the_body_and_sport_or_spills(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I ordered a lot of paracetamol online, more than anyone needs.", "high"),
    ("I keep the belt in my bag now. Just so it's there.", "high"),
    ("I keep a bottle of sleeping pills by my bed in case it gets too much.", "high"),
    ("I keep a belt in my bag in case my trousers are loose after the surgery.", "low"),
    ("I carry paracetamol in case my migraine comes back.", "low"),
])
def test_means_kept_just_so_they_are_there_not_in_case_of_an_everyday_need(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I went up to the car park roof to see if you could get over the barrier.", "imminent"),
    ("I went to the cliffs three times this week and stood right at the edge, checking.",
     "imminent"),
    ("I checked whether the banister would hold my weight.", "imminent"),
    ("I asked online what the most painless way is. People answered.", "high"),
    ("I deleted all my accounts and said sorry to everyone I've hurt. I'm closing things out.",
     "moderate"),
    ("What's the most painless way to get a tattoo?", "low"),
    ("I stood right at the edge of the cliff for a photo, my mum nearly fainted.", "low"),
    ("I drove to the lake and worked out where the best fishing spot is.", "low"),
    ("I tested whether the ladder would hold before I climbed up to the gutters.", "low"),
])
def test_places_checked_ways_that_hurt_least_and_things_closed_out(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Everyone's acting like I'm fine but I tried to hang myself a month ago.", "high"),
    ("I'm acting in the school play, my character takes an overdose.", "low"),
    ("I fell down the stairs in January but I didn't fall, I threw myself.", "high"),
    ("I'm going to throw myself a birthday party this year.", "low"),
    ("I threw myself into my studies last year and it paid off.", "low"),
    ("I've paid off my credit cards and written my will this week.", "imminent"),
    ("I've been paying off my car since March.", "low"),
])
def test_acting_like_fine_throwing_oneself_and_paying_off_every_bill(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("When they do the scan I secretly hope it's terminal.", "high"),
    ("Honestly I don't care if I see Christmas.", "high"),
    ("I'm not bothered if I see the spring or not. I'd rather I didn't.", "high"),
    ("I hope it's not terminal, the doctor sounded worried.", "low"),
    ("I'm not bothered if I see the film or not, you choose.", "low"),
    ("I don't care if I see him at Christmas or not.", "low"),
])
def test_a_terminal_result_hoped_for_and_a_season_not_cared_to_see(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I think about putting my head in the gas oven a lot.", "high"),
    ("I went to the multi-storey again. It's definitely high enough.", "imminent"),
    ("The bridge is high enough for the double-decker buses.", "low"),
    ("I'll check the shelf is strong enough for the books.", "low"),
    ("I wonder if my insulin would be enough for the whole trip.", "low"),
    ("The gas oven keeps clicking, I need to call someone.", "low"),
])
def test_a_head_in_the_oven_and_a_place_high_enough_but_not_high_enough_for(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I've been fantasising about dying.", "high"),
    ("I daydream about dying in my sleep.", "high"),
    ("I daydream about retiring to the coast.", "low"),
])
def test_dying_fantasised_or_daydreamed_is_wished(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("dont wanna b here anymore", "high"),
    ("i want to end my lyf", "high"),
    ("i jumpd off the car park roof last year and broke my legs", "high"),
    # A method told as done and hidden is a past attempt, not a plan.
    ("i jumpd off the parking deck in march, broke both legs. evryone thinks it was an acident "
     "and i let them", "high"),
    ("I got a b in my maths exam, so happy", "low"),
    ("I need to take plan b, the condom split", "low"),
])
def test_text_speak_b_lyf_jumpd_and_a_hidden_past_attempt(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("After the kids' recital on Thursday, that's it for me. I'm ending it.", "imminent"),
    ("Once payday comes on Friday I'm buying the tablets and that'll be it.", "imminent"),
    ("Right after this call I'm going to take everything in the medicine cabinet.", "imminent"),
    ("I've got the rope. Tonight.", "imminent"),
    ("I've got my dad's gun. Sunday.", "imminent"),
    ("I've got the tickets. Tonight.", "low"),
    ("I've got the paint for the fence. This weekend.", "low"),
    ("Right after this call I'm going to take everything to the charity shop.", "low"),
])
def test_a_time_told_alone_beside_means_and_that_being_it(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("It's going to be tonight. I've got enough of my insulin.", "imminent"),
    ("Right, so it's tonight then. The pills are on the table in front of me.", "imminent"),
    ("I'm going to swallow them all with vodka tonight.", "imminent"),
    ("I'll take them all to the vet when my flatmate goes to her parents' this weekend.", "low"),
    ("I've got my tablets sorted into the dosette box for the week.", "low"),
    ("I have my coffee in front of me, I'm ready for the call.", "low"),
])
def test_tonight_as_a_commitment_means_in_front_of_me_and_tablets_carried_or_sorted(text,
                                                                                    expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I drove out past the quarry twice, just to look at the drop. The note's written.",
     "imminent"),
    ("I've chosen the tree for the swing in the garden. I have the rope.", "low"),
    ("The plan's simple. The snacks I've saved and a bottle of gin for the party.", "low"),
])
def test_a_quarry_is_a_place_of_a_method_and_a_swing_or_a_party_is_ordinary(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I still have my dad's old revolver in a shoebox in my wardrobe. I take it out "
     "sometimes.", "high"),
    ("My roommate has a gun and he's away all week. I know where he keeps it.", "high"),
    ("I've got my late dad's morphine still, I never handed it in and I don't want to.", "high"),
    ("I still have my dad's old watch in a shoebox in my wardrobe.", "low"),
    ("My roommate has a gun licence for the shooting club.", "low"),
])
def test_a_gun_taken_out_or_found_and_morphine_never_handed_in(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I keep my pills in my bag. I'm just waiting for the bus now.", "low"),
    ("I'm just waiting for it all to be over. I've got my pills.", "imminent"),
])
def test_waiting_for_someone_or_something_is_no_commitment(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "raised"), [
    ("I've deleted my search history so nobody finds what I looked up.", True),
    ("I put my cat's food and the vet's number on the fridge for whoever comes after.", True),
    ("I've been sorting out who gets my things, and I've told no one why.", True),
    ("I cancelled all my appointments after this one, there's no point anymore.", True),
    # Everyday preparations: raised unless every trained reader hears ordinary talk.
    ("I've deleted my search history because my partner is planning my surprise party.",
     False),
    ("I cancelled all my appointments after this one, I'm going on holiday.", False),
])
def test_history_deleted_appointments_cancelled_and_things_sorted_without_saying_why(text,
                                                                                     raised):
    level = apply_safety_floor({"level": "low"}, detect_crisis(f"Patient: {text}"))["level"]
    assert (level in ("high", "imminent")) is raised


@pytest.mark.parametrize(("text", "expected"), [
    ("I have a plan. It involves my car and the quarry.", "imminent"),
    ("I've got a plan. The bridge on the bypass.", "imminent"),
    ("I've worked out a plan. The train line behind the school.", "imminent"),
    ("I've got a plan. The bridge club on Tuesday and the gym on Wednesday.", "low"),
    ("I made a plan last night. The rope swing for the kids.", "low"),
])
def test_a_plan_told_and_then_its_method_is_imminent(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # Others better off without the patient is a burden, a review cue (SPEC: soft cues at
    # "moderate"); others better off with the patient dead is a wish to be dead.
    ("Honestly they'd all be better off without me, I just make everything harder.",
     "moderate"),
    ("nobody would even notice if i wasnt around, thats how it feels latley", "moderate"),
    ("Everyone would be better off if I was dead.", "high"),
    ("My kids would be better off if I wasn't around.", "high"),
])
def test_better_off_without_me_is_a_burden_and_better_off_dead_a_wish(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    # "I don't know how …" keeps its negation off what follows, not off its own "know how".
    ("I'm just tired, like tired tired, you know? I don't know how much longer I can keep "
     "doing this, the caregiving and the job and all of it.", "moderate"),
    ("I don't know how to stop thinking about killing myself.", "high"),
])
def test_not_knowing_how_much_longer_is_no_plan(text, expected):
    assert apply_safety_floor({"level": "low"}, detect_crisis(f"Patient: {text}"))["level"] \
        == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I've given my dogs to my sister for good, and I didn't tell her why.", "high"),
    ("My sister would take my dogs if I asked, she loves them.", "low"),
])
def test_pets_given_without_saying_why_and_pets_that_would_be_taken(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I took the blade out of a pencil sharpener today. You know what for.", "high"),
    ("I took the blade out of the pencil sharpener to fix it.", "low"),
])
def test_a_sharpener_taken_apart_to_fix_it_is_ordinary(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("My second attempt was in March.", "high"),
    ("My second attempt at the driving test was in March.", "low"),
    ("They found me in the garage fixing the bike.", "low"),
])
def test_a_second_attempt_and_a_garage_with_a_bike_in_it(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("My sister's insulin is in the fridge and I keep opening it just to look at it.", "high"),
    ("I've got my old prescriptions in a drawer and I've stopped telling myself I kept them "
     "for any other reason.", "high"),
    ("I keep counting my tablets to make sure I haven't missed a dose.", "low"),
    ("I keep counting my pills so I don't skip a dose.", "low"),
    ("I keep looking at the gun safe my dad left me, it's the only thing of his I have.", "low"),
])
def test_means_looked_at_for_no_other_reason_and_doses_counted_or_a_keepsake(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I've been closing my accounts one by one so there's less for anyone to sort out after.",
     "high"),
    ("I've written down who should get what and put it on the kitchen table.", "high"),
    ("I'm paying off all my cards so it's not a mess after.", "imminent"),
    ("I had loads to sort out after the move.", "low"),
    ("I got the kitchen sorted so nothing is a mess after the builders leave.", "low"),
    ("The kids always fight about who gets what at Christmas.", "low"),
    ("I paid off every bill this month and left my brother the passwords for the streaming "
     "accounts.", "low"),
    ("I wrote letters to my kids for their school time capsule.", "low"),
])
def test_things_left_sorted_for_after_and_after_something_else(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("My birthday's on Saturday and I don't intend to see Sunday.", "imminent"),
    ("I don't intend to see him again after what he said.", "low"),
    ("Friday is my last day at work before the holidays.", "low"),
    ("Saturday is the night of the party and I've made up my mind to go.", "low"),
    ("Sunday is the day off I've been waiting for.", "low"),
])
def test_a_day_not_intended_to_be_seen_and_a_day_of_something_else(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("The marks on my legs aren't from the dog.", "high"),
    ("The scratches on my arms aren't from the cat, they're from me.", "high"),
    ("I scrub my skin until it's raw.", "high"),
    ("The scratches on my arms aren't from the cat, they're from the brambles.", "low"),
    ("The bruises on my arms aren't from falling, my husband did it.", "low"),
    ("The marks on my arm aren't from anything bad, it's eczema.", "low"),
    ("The presents are from me.", "low"),
    ("The cuts on my hands are from work, I'm a chef.", "low"),
    ("The cuts to my hours are from management, not me.", "low"),
    ("I scratched myself on the rose bush, it bled everywhere.", "low"),
    ("I burned my wrist doing the ironing.", "low"),
    ("I carved his name into the tree when we were dating.", "low"),
    ("I need to feel the pain, so I press the hot iron on my arm.", "high"),
])
def test_marks_told_as_ones_own_and_injuries_from_brambles_ironing_or_work(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Honestly I'd welcome it if my heart just stopped.", "high"),
    ("I envy people who get to die young.", "high"),
    ("I'd be relieved if I got a terminal diagnosis.", "high"),
    ("I don't know if I want to keep living.", "high"),
    ("I'm not sure I want to carry on living.", "high"),
    ("I want to go to sleep and stay asleep for good.", "high"),
    ("I don't know if I want to keep living with my parents after uni.", "low"),
    ("I'm not sure I want to carry on living in the flat with the damp.", "low"),
    ("I was so relieved to hear it wasn't a terminal diagnosis.", "low"),
    ("I'm ready to go, the taxi's outside.", "low"),
])
def test_a_heart_that_stops_and_living_on_doubted_and_where_to_live(text, expected):
    assert _lexicons_level(text) == expected


def test_staying_asleep_till_noon_is_a_lie_in():
    text = "I wish I could go to sleep and stay asleep till noon on Saturday."
    assert apply_safety_floor({"level": "low"}, detect_crisis(f"Patient: {text}"))["level"] \
        == "low"


@pytest.mark.parametrize(("text", "expected"), [
    ("I've thought of hanging. We have beams in the loft.", "high"),
    ("I keep thinking about jumping. The car park's near my flat.", "high"),
    ("I've thought of hanging the pictures in the hall. We have beams in the loft.", "low"),
    ("I've got enough tablets to get me through the holiday.", "low"),
    ("I figured out I have enough insulin to last the trip.", "low"),
    ("I have enough insulin to do it.", "high"),
    ("I know exactly how I'd do it, the kitchen, the whole renovation.", "low"),
])
def test_a_way_of_dying_thought_of_and_amounts_for_the_days(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("The last attempt was three months ago.", "high"),
    ("The last attempt at fixing the boiler failed.", "low"),
    ("The last attempt to get him to rehab was in May.", "low"),
    ("I crashed the car on purpose last winter.", "high"),
    ("I crashed the car last summer, black ice.", "low"),
])
def test_the_last_attempt_and_a_crash_on_purpose_last_winter(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I've got my ex's service revolver, he never came back for it.", "high"),
    ("My ex left his drill here and never came back for it.", "low"),
    ("I bought a second packet of paracetamol from a different shop so they wouldn't ask.",
     "high"),
    ("I bought the paint from a different shop so they wouldn't ask about the colour match.",
     "low"),
    ("I've got a rope in the shed that would do.", "high"),
    ("I've got a rope in the shed that would do for the tyre swing.", "low"),
    ("I've kept every leftover prescription for two years. They're in a shoebox.", "high"),
    ("My dad keeps the key to the gun cabinet on his keyring, he's careful like that.", "low"),
    ("My medication comes in a three-month supply now, saves trips to the pharmacy.", "low"),
])
def test_means_never_returned_bought_where_no_one_asks_and_someone_elses_key(text, expected):
    assert _lexicons_level(text) == expected


def test_a_loaded_dishwasher_is_housework():
    text = "There's a loaded dishwasher and lately that's the most I manage."
    assert apply_safety_floor({"level": "low"}, detect_crisis(f"Patient: {text}"))["level"] \
        == "low"


@pytest.mark.parametrize(("text", "expected"), [
    ("My ex left his handgun here when he moved out and I never gave it back.", "high"),
    ("I keep my brother's rifle here while he is on holiday.", "low"),
    ("My husband has loads of painkillers because he can't sleep with his back.", "low"),
])
def test_someone_elses_everyday_reason_does_not_explain_the_patients_sentence(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I put all my passwords in a password manager finally.", "low"),
    ("I put all my passwords in an envelope for my sister.", "imminent"),
    ("I cancelled my dentist appointment, I'll rebook when I'm back from holiday.", "low"),
    ("I've been giving away my plants to the neighbours since we're moving to a flat.", "low"),
    ("I've said everything I needed to say to everyone now.", "moderate"),
])
def test_passwords_managed_appointments_rebooked_and_everything_said(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I've stopped seeing the point in making plans.", "moderate"),
    ("Every day is the same grey nothing and it'll never change.", "moderate"),
    ("I wrote to my old teacher to thank her for everything.", "moderate"),
    ("I just bring everybody down.", "moderate"),
    ("Whatever happens to me happens, I've stopped caring.", "moderate"),
    ("I'm tired of fighting. I just want it to stop.", "moderate"),
    ("I'm tired of fighting with the council about the bins.", "low"),
    ("My mum will never change, she's always late.", "low"),
])
def test_review_cues_a_sixth_round_and_a_dispute_with_the_council(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("my family would be beter off if i wasnt dragging them down", "moderate"),
    ("I'm feeling beter today, thanks.", "low"),
])
def test_beter_is_better(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I take all my tablets at night now.", "low"),
    ("I take all my pills at bedtime with a glass of milk.", "low"),
    ("Tonight I take all my tablets, I am tired.", "imminent"),
    ("I take all my pills tonight. I'm done.", "imminent"),
    ("I'm going to take all my tablets at night when everyone's asleep.", "imminent"),
])
def test_a_routine_told_in_the_simple_present_sets_no_time(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I don't feel safe with myself right now.", "high"),
    ("I'm scared of myself right now.", "high"),
    ("I'm frightened of what I might do.", "high"),
    ("I don't trust myself not to do something stupid tonight.", "imminent"),
    ("I don't feel safe walking home at night.", "low"),
    ("I don't trust myself to drive in the snow.", "low"),
    ("I can't trust myself not to eat the whole cake.", "low"),
    ("I'm scared of what I might find when I open the results.", "low"),
    ("We had two overdoses come in on my shift last night.", "low"),
])
def test_not_safe_with_oneself_is_a_risk_statement(text, expected):
    assert _lexicons_level(text) == expected


def test_scared_is_no_scar():
    from services.analysis.crisis.reading import read_turn

    def cues(text: str) -> list[str]:
        return [m.concept for s in read_turn(text) for m in s.mentions
                if m.concept == "self_harm_cue"]

    assert cues("I'm scared he's planning something.") == []
    assert cues("I have scars on my arms.") == ["self_harm_cue"]


@pytest.mark.parametrize(("text", "expected"), [
    ("I booked a hotel room for Friday so nobody finds me at home.", "imminent"),
    ("I'll go to the woods so no one finds me.", "high"),
    ("The plan is Friday night with the band in the garage.", "low"),
    ("I hid behind the shed so nobody finds me, the kids love hide and seek.", "low"),
])
def test_a_place_chosen_so_nobody_finds_me_and_a_band_in_the_garage(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("lowkey want to unalive rn", "high"),
    ("thinking about unaliving", "high"),
    ("he unalived the boss in one hit lol", "low"),
    ("i just want to disappear into my bed for the weekend tbh", "low"),
    ("I want to disappear for a week somewhere hot.", "low"),
    ("I want to disappear for good.", "high"),
])
def test_unalive_without_an_object_and_disappearing_somewhere_for_a_while(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I'm ready to meet my maker, sooner the better.", "high"),
    ("The Lord can take me any time, I'd not complain.", "high"),
    ("I don't see much point going on since Margaret passed.", "high"),
    ("I'm ready to meet my maker one day, but not yet, I've the grandkids' weddings to see.",
     "low"),
    ("I don't see much point going on the cruise without Margaret.", "low"),
])
def test_older_patients_meeting_their_maker_and_no_point_going_on(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("Better I am not living, then no problem for my family.", "high"),
    ("Yesterday I was trying to hang, but my brother is coming home early.", "high"),
    ("Life is no meaning for me anymore, I want to go from this world.", "high"),
    ("I am not wanting to wake up so early for work.", "low"),
    ("I don't want to wake up in the morning.", "high"),
    ("I was trying to hang the washing out when it rained.", "low"),
    ("I was trying to jump the queue at the post office.", "low"),
])
def test_non_native_wishes_and_attempts_and_waking_up_early(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I keep thinking about ending things with my boyfriend.", "low"),
    ("i've been cutting uh back on my hours um since like tuesday", "low"),
    ("I think about hanging a lot.", "high"),
])
def test_the_language_models_do_not_read_a_word_of_risk_inside_an_idiom(text, expected):
    assert apply_safety_floor({"level": "low"}, detect_crisis(f"Patient: {text}"))["level"] \
        == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I've been swimming out further and further, hoping I don't make it back.", "high"),
    ("I sat in the car in the garage with the engine running, to end it.", "high"),
    ("I sat in the garage with the engine running to warm it up, it's so cold.", "low"),
])
def test_hoping_not_to_make_it_back_and_an_engine_run_to_end_it(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I've written down the when and the how in my diary.", "imminent"),
    ("We sorted out the when and the how of the wedding.", "low"),
])
def test_the_when_and_the_how_written_down_is_a_plan_with_its_time(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I took about 30 paracetamol last spring.", "high"),
    ("i swallowed around forty of my sertraline last year", "high"),
    ("I took about 30 minutes to get there.", "low"),
    ("I'm just tired of life, doctor.", "high"),
    ("I am tired of the life, I want that it finish now.", "high"),
    ("I'm tired of life in the city, I want to move to the coast.", "low"),
    ("I've written down all the baby's feeds for my husband so he can manage without me.",
     "high"),
    ("I'm teaching my husband to cook so he can manage without me while I'm in hospital.",
     "low"),
    ("I've been holding back my sleeping tablets for a few weeks now.", "high"),
    ("I've been holding back on the biscuits since my diet started.", "low"),
    ("I'll be glad when the tax return's done and dusted.", "low"),
    ("I'll be dead and buried before the council fixes that pothole, mark my words.", "low"),
    ("I wish I was dead and buried.", "high"),
    ("I'm the bloke who botched it with the exhaust.", "high"),
    ("I botched it with the cake for her birthday.", "low"),
])
def test_a_count_said_roughly_tired_of_life_managing_without_me_and_idioms_of_an_end(
        text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I'm past caring whether I'm here or not.", "high"),
    ("I don't care whether I'm here or not for the meeting, they never listen.", "low"),
    ("I'm not fussed about living any more, put it that way, love.", "high"),
    ("I've still got my late husband's heart tablets. I didn't hand them back, and not by "
     "accident.", "high"),
    ("I kept his reading glasses, and not by accident, they remind me of him.", "low"),
    ("This'll be our last appointment, love. No need to book me the next one.", "moderate"),
    ("Since my husband died I ask God every night, please take me also.", "high"),
    ("Please take me to the station, Dad.", "low"),
])
def test_past_caring_medicine_kept_on_purpose_no_next_appointment_and_god_asked(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I looked up on my phone how many of my mirtazapine it would take.", "high"),
    ("I've been reading how many paracetamol it takes to do real damage.", "high"),
    ("I asked the pharmacist how much insulin it would take to bring my sugars down.", "low"),
    ("My sister googled how many of her pills it would take and I'm scared for her.", "low"),
    ("Tonight I'm doing a hot shot in the flat so nobody can narcan me.", "imminent"),
    ("I always use with someone so they can narcan me if it goes wrong.", "low"),
    ("I'm on the 14th floor and the balcony door doesn't lock.", "low"),
    ("I'm doing it on the 14th, I've got the pills.", "imminent"),
])
def test_a_lethal_amount_researched_no_one_to_revive_me_and_a_floor_that_is_no_date(
        text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("When it builds up I smack my head against the bathroom door until it rings.", "high"),
    ("I've been battering me head off the kitchen wall, like, it's the only thing that helps.",
     "high"),
    ("It's like smashing my head against a brick wall with this landlord.", "low"),
    ("I could smack my head, I forgot the parking ticket again.", "low"),
    ("Last night I put my belt round my neck in the wardrobe to see if I could.", "high"),
    ("At school a lad put a belt round my neck for a laugh, he got expelled.", "low"),
    ("I tied my charger round my neck for a bit last night.", "high"),
])
def test_a_head_hit_against_a_wall_and_a_ligature_round_the_neck(text, expected):
    assert _lexicons_level(text) == expected


@pytest.mark.parametrize(("text", "expected"), [
    ("I wouldn't mind at all if the good Lord took me in my sleep.", "high"),
    ("Mum went peacefully, the Lord took her in her sleep.", "low"),
    ("Honestly I wish this cancer would hurry up.", "high"),
    ("I'd be happy if the cancer got a move on, if I'm honest.", "high"),
    ("Dad's cancer got a move on in the spring and he was gone by June.", "low"),
    ("I wish the cancer ward would hurry up with my scan results.", "low"),
])
def test_a_death_in_ones_sleep_or_from_ones_illness_wished_for(text, expected):
    assert _lexicons_level(text) == expected


# Speech-to-text often writes no punctuation: a whole turn is then one sentence.
_RUN_ON = ("so work has been busy and the commute is long and i have been trying to get to "
           "the gym on weekends with my sister but it is hard to keep up ")


def test_a_run_on_without_punctuation_is_read_in_pieces():
    from services.analysis.crisis.reading import MAX_SENTENCE_WORDS, read_turn, tokenize

    text = (_RUN_ON * 40).strip()
    sentences = read_turn(text)
    assert len(sentences) > 1
    assert all(len(s.words) <= MAX_SENTENCE_WORDS for s in sentences)
    assert [w for s in sentences for w in s.words] == tokenize(text)
    # Cut before a conjunction where one is near the limit, so a clause stays whole.
    assert all(s.words[0] in ("so", "and", "but") for s in sentences[1:])


def test_a_sentence_within_the_limit_is_read_whole():
    from services.analysis.crisis.reading import MAX_SENTENCE_WORDS, read_turn

    text = " ".join(["word"] * MAX_SENTENCE_WORDS)
    assert len(read_turn(text)) == 1


def test_a_disclosure_at_the_end_of_a_long_run_on_is_raised():
    text = "Patient: " + _RUN_ON * 40 + "and i have the pills saved up to kill myself tonight"
    assert detect_crisis(text).level == "imminent"
    assert detect_crisis("Patient: " + _RUN_ON * 40).level is None


def test_a_token_longer_than_any_word_is_read_as_its_first_characters():
    from services.analysis.crisis.reading import MAX_WORD_CHARS, read_turn, tokenize

    assert tokenize("x" * 200_000) == ["x" * MAX_WORD_CHARS]
    assert tokenize("I feel pneumonoultramicroscopicsilicovolcanoconiosis") == [
        "i", "feel", "pneumonoultramicroscopicsilicovolcanoconiosis"]
    # A run of points is read as before: a trailing-off inside a sentence, points at its end.
    assert len(read_turn("I just... want it to end")) == 1
    assert len(read_turn("I just want it to end." + "." * 20_000)) == 1


@pytest.mark.parametrize("text, kinds", [
    # An act's word after a plan, a wish, a modal or "thinking about" is one to come.
    ("I have a plan to overdose on my pills tonight", {"intent", "plan"}),
    ("I want to overdose on my pills.", {"suicidal_ideation"}),
    ("I might overdose on my pills.", {"suicidal_ideation"}),
    ("I keep thinking about overdosing on my pills.", {"suicidal_ideation"}),
])
def test_an_act_to_come_is_not_reported_as_a_past_attempt(text, kinds):
    """"I have a plan to overdose on my pills tonight" was imminent, rightly, but one of its
    factors read "Patient reported a past suicide attempt"."""
    found = {signal.kind for signal in detect_crisis(f"Patient: {text}").signals}
    assert "past_attempt" not in found and kinds <= found


@pytest.mark.parametrize("text", [
    "I tried to overdose on my pills last year.",
    "I overdosed on my pills last spring.",
    "I took an overdose of my pills in March.",
])
def test_an_act_done_is_still_a_past_attempt(text):
    assert "past_attempt" in {s.kind for s in detect_crisis(f"Patient: {text}").signals}


@pytest.mark.parametrize("text", [
    # "Gone" of a thing read as the patient's death, and with a time as a plan (imminent).
    "It helps in the morning, but by 2 pm it's gone.",
    "I stopped the lamotrigine in September when I got that rash, like you told me to. "
    "The rash is gone.",
    "The pain will be gone soon, the nurse said.",
    "The cravings are finally gone.",
])
def test_a_thing_gone_is_no_death(text):
    assert detect_crisis(f"Patient: {text}").level is None


@pytest.mark.parametrize("text", [
    "I'll be gone by Friday.",
    "When I'm gone they can have the house.",
    # Others gone make "go too" a wish to join them.
    "My wife's gone, my dog's gone, and I'd just as soon go too and be with them.",
])
def test_the_patient_or_someone_dear_gone_still_counts(text):
    assert detect_crisis(f"Patient: {text}").level in ("high", "imminent")


@pytest.mark.parametrize("text", [
    # An attempt made within the last hours is under way: it was `high`, a history.
    "I took thirty of my pills an hour ago and I feel dizzy.",
    "I cut my wrists a few minutes ago and it won't stop bleeding.",
    "I overdosed 20 minutes ago.",
    "I tried to hang myself last night but the rope broke.",
])
def test_an_attempt_within_the_last_hours_is_imminent(text):
    assessment = detect_crisis(f"Patient: {text}")
    assert assessment.level == "imminent"
    assert any(s.kind == "past_attempt" and s.level == "imminent" for s in assessment.signals)


@pytest.mark.parametrize("text", [
    "I took a whole bottle of Tylenol last year.",
    "I took an overdose two years ago, tonight I feel fine.",
])
def test_an_attempt_long_ago_stays_high(text):
    assert detect_crisis(f"Patient: {text}").level == "high"


@pytest.mark.parametrize("text", [
    # "last time" alone was a farewell: every mention of the previous visit went to review.
    "Since last time I have been sleeping only four hours.",
    "Since the last time we met I've been sleeping better.",
    "Last time I saw her she was fine.",
])
def test_the_last_time_of_before_is_no_farewell(text):
    assessment = detect_crisis(f"Patient: {text}")
    assert assessment.level is None and not assessment.review


def test_a_last_time_to_come_is_still_a_farewell():
    text = "At the party I hugged everyone like it was the last time I'd see them."
    assert [s.kind for s in detect_crisis(f"Patient: {text}").review] == ["farewell"]


@pytest.mark.parametrize("text", [
    # "finish it tonight" of a piece of work was intent with a time: imminent.
    "Work deadlines are brutal; I'm going to finish it tonight no matter what.",
    "My thesis is due Friday. I'm going to finish it tonight.",
])
def test_finishing_a_piece_of_work_is_no_intent(text):
    assert detect_crisis(f"Patient: {text}").level is None


@pytest.mark.parametrize("text", [
    "I can't take work any more, I'm going to finish it tonight.",
    "I've got the pills saved. I'm going to finish it tonight.",
])
def test_finishing_it_with_no_work_named_is_still_intent(text):
    assert detect_crisis(f"Patient: {text}").level == "imminent"



@pytest.mark.parametrize("transcript, level", [
    # A parent's report of the patient's suicidal talk was `low` (read as about someone else).
    ("Parent: Last night he told me he wants to kill himself and he's been looking up how "
     "many pills it takes.\nPatient: Whatever. I don't want to talk about it.", "imminent"),
    ("Clinician: How has she been?\nMom: She said she doesn't want to be here anymore.",
     "high"),
    ("Partner (Dan): He keeps saying we'd be better off without him. He bought a rope last "
     "week.", "imminent"),
])
def test_a_family_members_report_of_the_patient_counts(transcript, level):
    assessment = detect_crisis(transcript)
    assert assessment.level == level
    assert all("as a family member or partner told it" in s.factor
               for s in assessment.signals)


@pytest.mark.parametrize("transcript", [
    "Mother: My brother killed himself ten years ago, so I worry.",
    "Mom: He's doing much better, he's back at school and sleeping well.",
    "Dad: She failed her exam and said it was killing her.",
])
def test_what_a_family_member_tells_of_someone_else_or_of_a_good_week_is_no_signal(transcript):
    assert detect_crisis(transcript).level is None


@pytest.mark.parametrize("transcript", [
    # A grieving widow's wish "to be with him", taken back at once, was `high`: a wish to be
    # dead with an urgent safety-plan task.
    "Patient: Sometimes I just want to be with him. Oh, not like that. I'm not going to do "
    "anything. I mean I miss him.",
    "Patient: Sometimes I just want to be with him.\nClinician: Can you say more about that?\n"
    "Patient: Oh, not like that. I'm not going to do anything. I mean I miss him.",
])
def test_a_wish_taken_back_at_once_goes_to_review(transcript):
    assessment = detect_crisis(transcript)
    assert assessment.level is None
    assert [cue.kind for cue in assessment.review] == ["taken_back"]


@pytest.mark.parametrize("transcript", [
    "Patient: I wish I were dead. Not like that, I mean I'd never do it, but yes, I wish it.",
    "Patient: Sometimes I just want to be with him.\nClinician: Can you say more about that?\n"
    "Patient: Yes. I think about the pills in the cabinet.",
])
def test_a_wish_kept_or_followed_by_more_is_still_raised(transcript):
    assert detect_crisis(transcript).level == "high"


def test_no_not_like_that_to_a_question_about_acting_keeps_the_wish():
    transcript = ("Client: Sometimes I wish I could go to sleep and not wake up.\n"
                  "Counselor: Have you had thoughts about actually ending your life?\n"
                  "Client: No, not like that. I couldn't do that to my mom.")
    assert detect_crisis(transcript).level == "high"


@pytest.mark.parametrize("transcript, level", [
    ("Patient: I interpret for my father: he says he does not want to live any more.", "high"),
    ("Patient: The interpreter says he has decided to go tonight, he has the pills ready.",
     "imminent"),
    ("Patient: She says, I'm translating word for word: 'I ask God every night to take me.'",
     "high"),
    ("Caller: Interpreter here: he says he tried to hang himself last week, his son found him.",
     "high"),
])
def test_an_interpreters_relay_is_read_as_the_patients_own_words(transcript, level):
    assert detect_crisis(transcript).level == level


@pytest.mark.parametrize("transcript", [
    "Patient: I interpret for my mother: she says she feels tired today but sleeps better.",
    "Patient: I'm an interpreter and I translate for patients who talk about suicide all day.",
    "Patient: The translator said my brother wanted to die after the accident, years ago.",
])
def test_an_interpreter_without_a_relayed_disclosure_raises_nothing(transcript):
    assert detect_crisis(transcript).level in (None, "low", "moderate")


def test_an_interpreters_relay_is_quoted_in_the_first_person():
    text = "I interpret for my mother: she says she asks God every night to take her."
    assert as_the_patient_said(text) == "I asks God every night to take me."
    assert as_the_patient_said("I'm studying to be an interpreter.") == \
        "I'm studying to be an interpreter."


@pytest.mark.parametrize("transcript, level", [
    ("Patient: Ah'm no wantin tae be here ony mair.", "high"),
    ("Patient: Ah'm no goin back tae that job.", None),
    ("Patient: I'm no longer afraid of the dark.", None),
])
def test_scots_am_no_before_a_verb_is_am_not(transcript, level):
    assert detect_crisis(transcript).level == level


@pytest.mark.parametrize("transcript, level", [
    ("Patient: Burned my forearm with a cigarette a couple of times.", "high"),
    ("Patient: I cut my shins with a blade last week.", "high"),
    ("Patient: I burned my foot on the barbecue, clumsy me.", None),
    ("Patient: I cut my forearm on a broken glass at work, needed stitches.", None),
])
def test_self_harm_to_any_part_of_the_body(transcript, level):
    assert detect_crisis(transcript).level == level


@pytest.mark.parametrize("transcript, escalated", [
    ("Patient: i have a stash of percs i never told anyone about. about 30 of them", True),
    ("Patient: I've been wondering whether the Humalog and the Lantus together would do it "
     "if I took the lot.", True),
    ("Patient: I take Lantus at night and NovoRapid with meals, my sugars are better.", False),
    ("Patient: He asked if I had any percs to sell.", False),
])
def test_street_and_brand_names_of_medicines_are_means(transcript, escalated):
    assert (detect_crisis(transcript).level in ("high", "imminent")) is escalated


def test_an_interpreters_frame_before_the_patients_own_words_shifts_no_pronoun():
    assert as_the_patient_said("She says, I'm translating word for word: 'I want to be with "
                               "my husband, he is waiting for me.'") == \
        "I want to be with my husband, he is waiting for me."
    assert detect_crisis("Patient: I was translating a document at work: it says he killed "
                         "himself.").level in (None, "low", "moderate")


@pytest.mark.parametrize("transcript, level", [
    ("Patient: I'm going to drink the weed killer on Sunday.", "imminent"),
    ("Patient: I'm going to drink the paraquat on Sunday.", "imminent"),
    ("Patient: I've got sheep dip in the barn and I think about swallowing some.", "high"),
    ("Patient: We spray pesticide on the barley every spring, and I wear the mask.", None),
    ("Patient: Dad drank the weed killer by accident when he was a kid, he was fine.", None),
])
def test_drinking_a_poison_is_a_method(transcript, level):
    assert detect_crisis(transcript).level == level


@pytest.mark.parametrize("transcript", [
    "Patient: I'm designing a pamphlet about storing pesticides safely because of the suicide "
    "risk on farms.",
    "Patient: As the farm safety officer I give a safety talk on locking up paraquat, because "
    "of suicides.",
])
def test_safety_leaflets_and_talks_are_work_not_risk(transcript):
    assert detect_crisis(transcript).level in (None, "low", "moderate")


@pytest.mark.parametrize("transcript, level", [
    ("Patient: I've got bleach under the sink. I'm going to drink it tonight.", "imminent"),
    ("Patient: I've got a bottle of weed killer in the shed. I'll drink it on Sunday.",
     "imminent"),
    ("Patient: There's antifreeze in the garage, I keep thinking about drinking it.", "high"),
    ("Patient: I bought a smoothie, I'm going to drink it tonight.", None),
    ("Patient: We use paraquat on the fields. You must never drink it, it's deadly.", None),
    ("Patient: I mix the weed killer in a bucket and I'm careful not to swallow it.", None),
])
def test_drinking_it_of_a_poison_the_turn_names_is_the_act(transcript, level):
    assert detect_crisis(transcript).level == level


@pytest.mark.parametrize("transcript, level", [
    ("Patient: I put the hose in the car exhaust yesterday but my son came home.", "high"),
    ("Patient: I ran a hose through the window last night with the engine on.", "high"),
    ("Patient: I washed the car with the hose this morning.", None),
])
def test_a_hose_in_the_exhaust_is_the_method_whatever_the_preposition(transcript, level):
    assert detect_crisis(transcript).level == level


@pytest.mark.parametrize("transcript, level", [
    ("Patient: I cut my arm shaving my legs.", None),
    ("Patient: I cut my leg shaving.", None),
    ("Patient: I cut my arm on purpose while I was shaving.", "high"),
    ("Patient: I cut my arm. I was shaving later too.", "high"),
])
def test_an_injury_told_as_an_accident_is_not_raised_by_the_phrase_patterns(transcript, level):
    assert detect_crisis(transcript).level == level


def test_a_negation_running_into_the_wish_is_part_of_it():
    # "would never" ran into "never wake up" and denied the wish: it came out `low`.
    assessment = detect_crisis("Patient: I sometimes wish I'd never wake up. But I'm fine, I "
                               "still go to work.")
    assert [s.kind for s in assessment.signals] == ["wish_to_be_dead"]
    assert detect_crisis("Patient: I would never wake up early if I could help it.").level is None


def test_trouble_swallowing_pills_is_no_method():
    # It was a method and a past attempt.
    assert detect_crisis("Patient: I have trouble swallowing pills.").level is None
    assert detect_crisis("Patient: I have trouble swallowing. I took all my pills last night "
                         "to end it.").level == "high"


@pytest.mark.parametrize("text", [
    # Each was `high`: means or a method's place at hand at this moment.
    "I've got a vial of fentanyl and a syringe from work in my car and I'm sitting in it right "
    "now. I don't trust myself.",
    "I'm sitting in the car in the garage. The engine's off for now, but the hose is already "
    "taped on.",
    "I'm parked up at the lookout with a bottle of Jack and all my Seroquel. I'm going to take "
    "them once I finish this call.",
    "The rope's up in the shed and I'm standing in there now.",
])
def test_means_at_hand_now_is_imminent(text):
    assert detect_crisis(f"Patient: {text}").level == "imminent"


@pytest.mark.parametrize("text", [
    "The rifle's in the truck, it's always in the truck, and I been sitting in the truck a lot "
    "lately, just sitting.",
    "My husband never locks the gun safe, and when I want to die I go and stand in front of it.",
    "I've caught myself wondering how many of the heart pills it would take. Then I sit there "
    "with the bottle in my hand.",
])
def test_means_at_hand_as_a_habit_stays_high(text):
    assert detect_crisis(f"Patient: {text}").level == "high"


@pytest.mark.parametrize("text", [
    # Each was `high`: hurt, or poisoned, and needing care now.
    "Cut my wrist. Bled through two tea towels. Feeling dizzy.",
    "I swallowed a load of Nurofen Plus to stop feeling things, not to die, but now my ears are "
    "ringing and I can't stop throwing up.",
    "I cut my wrist, not to die, only for the pain, but now it is bleeding very much and I feel "
    "dizzy.",
])
def test_harm_needing_care_now_is_imminent(text):
    assert detect_crisis(f"Patient: {text}").level == "imminent"


def test_what_will_not_stop_is_not_always_bleeding():
    assert detect_crisis("Patient: when she won't stop crying i go in the bathroom and bite my "
                         "arm really hard till it bruises").level == "high"


def test_an_ending_beside_a_time_named_alone_is_intent():
    # It was `high`, ideation: the time was two sentences away.
    assessment = detect_crisis("Patient: Tonight. After my parents go to sleep. I'm done.")
    assert assessment.level == "imminent"
    assert "intent" in [s.kind for s in assessment.signals]
    assert detect_crisis("Patient: Tomorrow. I'm done with this job.").level is None


@pytest.mark.parametrize(("text", "level"), [
    # "go and" broke "want to be with"; and "want to be with her" of a girlfriend was `high`.
    ("Eight months since my wife went. I just want to go and be with her, that's all I want "
     "anymore.", "high"),
    ("My wife died last year. I want to be with her.", "high"),
    ("Sometimes I just want to be with him.", "high"),
    ("I miss my girlfriend so much, I just want to be with her.", None),
    ("I love my girlfriend, I want to go and be with her this weekend.", None),
])
def test_wanting_to_be_with_someone_is_a_wish_where_a_death_is_told(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


def test_goodbyes_and_a_day_named_as_the_day_are_a_plan_with_its_time():
    # It was `moderate`, a farewell to review.
    assert detect_crisis("Patient: Gave the dog to me sister this arvo and cancelled me phone "
                         "plan. Tonight's the night, mate.").level == "imminent"
    assert apply_safety_floor({"level": "low"}, detect_crisis(
        "Patient: I said goodbye to my team today. Friday is my last day, I'm retiring."
    ))["level"] == "moderate"


@pytest.mark.parametrize(("text", "level"), [
    # text-speak "enuf"; ", you know," a filler that pushed a denial out of reach; a "dark
    # patch" read as a fentanyl patch.
    ("ive been reading about how many oxycodones would be enuf. not going to do it right now i "
     "just keep looking", "high"),
    ("I'm, honestly, like, not thinking about, you know, ending things or hurting myself or "
     "anything. I just, yeah, feel a bit flat.", None),
    ("I went through a dark patch after my first marriage and tried to go to sleep for good. "
     "That was 1998; I've been steady ever since.", None),
])
def test_words_of_speech_and_text(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # It was `imminent`: a preparation long gone is history to ask about.
    ("I was standing on the ledge last year.", "high"),
    ("Last year I stood on the ledge of the car park roof.", "high"),
    ("I wrote the note last night and the rope is in the garage.", "imminent"),
])
def test_a_preparation_long_gone_is_not_imminent(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


def test_a_day_of_the_week_dates_an_act_as_recent_not_resolved():
    # It was `low`: "I'm basically fine now" read as the turn's recovery.
    assessment = detect_crisis("Patient: I OD'd on Tuesday but it wasn't a big deal, the hostel "
                               "staff had naloxone. I'm basically fine now.")
    assert [s.kind for s in assessment.signals] == ["past_attempt"]


@pytest.mark.parametrize(("text", "level"), [
    # Marks on the patient's body told small or out of sight were `low`.
    ("It's only a few scratches on my thighs, nowhere anyone would see. I keep them clean.",
     "high"),
    ("It's just a few little nicks on my ankles, nothing like before, honestly.", "high"),
    ("only a few scratches on my arms, not deep, dw", "high"),
    # A cause named, an accident or someone else's marks stay theirs.
    ("I've got a few little scratches on my arms from the cat.", None),
    ("I've only got a few bruises on my legs after the football.", None),
    ("Only a few small burns on my hands, I'm a line cook.", None),
    ("I have a few scars on my knees from when I was little.", None),
])
def test_marks_told_small_are_self_harm_unless_a_cause_is_named(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    ("My arms look like a barcode at this point. Scan me and see what I'm worth, ha.", "high"),
    ("my arms look like railway tracks lol", "high"),
    ("My legs look like a zebra from the sunburn lines.", None),
    ("My hair looks like a zebra after that dye job.", None),
    ("The scanner couldn't read the barcode on my arm band.", None),
])
def test_arms_likened_to_rows_of_lines_are_self_harm(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


def test_a_weekday_in_the_plural_is_a_habit_not_a_recent_day():
    assert detect_crisis("Patient: I drive to work on purpose on Sundays to avoid the "
                         "traffic.").level is None


@pytest.mark.parametrize(("text", "level"), [
    # Each was `low`: a death hoped for, told as something that befalls the patient.
    ("If the tractor rolled on me one of these days, I'd not be sorry. Be a mercy, really.",
     "high"),
    ("tbh wish the MS would hurry up and finish me off already.", "high"),
    ("After a run of night shifts I lie there hoping my heart just packs in while I'm asleep.",
     "high"),
    ("I hope the ice gives way so we can go skating indoors.", None),
    # "plane" was read as "plan".
    ("I made a plan for the weekend, then a plane ticket for the summer.", None),
])
def test_a_death_that_befalls_the_patient_hoped_for_is_a_wish(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was `low`: a firearm, or a medicine opened or all of it, in the patient's hands now.
    ("I've got my husband's gun in my lap right now. I don't even know why I got it out.",
     "imminent"),
    ("I'm parked by the rail crossing with the pill bottle open in my lap right now.",
     "imminent"),
    ("I'm holding my rifle in my hands, cleaning it for hunting season.", None),
    ("My dad has his gun in his lap watching TV.", None),
])
def test_lethal_means_in_the_patients_hands_now_are_imminent(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


def test_a_question_about_the_means_at_hand_sets_no_emergency():
    # The trained readers raise it (`high`); means at hand made it `imminent`.
    assert detect_crisis("Patient: I have my pills in front of me, which ones do I take in "
                         "the morning?").level != "imminent"


@pytest.mark.parametrize("text", [
    # Each was `low`. "just acting" in the study words read, "just" dropped, as any "act", so
    # "act on it" was read as a performance.
    "dont freak out but im pretty sure im going to act on it soon. its fine, im calm about it",
    "tonights the night honestly. im not even scared anymore",
    "Ah'm gonnae dae it the night, that's me. Cannae dae another day o' this.",
])
def test_intent_told_in_text_speak_dialect_or_as_acting_on_it(text):
    assert detect_crisis(f"Patient: {text}").level == "imminent"


def test_a_part_played_is_still_acting():
    assert detect_crisis("Patient: In the play I'm in, my character says 'I want to die' every "
                         "night. It's draining to rehearse, but it's just acting.").level is None


@pytest.mark.parametrize(("text", "level"), [
    # Each was `low`.
    ("I just want to stop being alive.", "high"),
    ("I just want to go to sleep for good. Be with my mum again, you know?", "high"),
    ("so over existing fr, just unsubscribe me from life atp", "high"),
    ("I don't want to stop being here, I love this town.", None),
    ("I went through a dark patch after my first marriage and tried to go to sleep for good. "
     "That was 1998; I've been steady ever since.", None),
])
def test_wishes_to_stop_being_alive_in_other_words(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # The first was `low`: the means unnamed, the count and the hour told.
    ("Already took them. Forty. Half an hour ago.", "imminent"),
    ("i already took them like 30 mins ago, the whole bottle. im scared now", "imminent"),
    ("I took it an hour ago, 12 units of insulin as usual.", None),
    ("I took them all an hour ago, my morning meds.", None),
    ("She took the lot an hour ago, I'm scared for her.", None),
])
def test_an_overdose_told_by_its_count_within_hours_is_under_way(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Any medicine of an overdose's amount, or a drug that kills in any amount, in the
    # patient's hands now, named in the sentence or the one before (the first and the third
    # were `low`).
    ("I've got a full box of my amitriptyline in my lap right now.", "imminent"),
    ("There's a syringe of potassium chloride from the ward in front of me. I'm holding it "
     "now.", "imminent"),
    ("My dad's nembutal from the vet practice. It's in my hand right now.", "imminent"),
    ("I've got my inhaler in my hand right now, the nurse is watching my technique.", None),
    ("I have the cake knife in my hand right now, it's her birthday.", None),
])
def test_any_lethal_medicine_in_the_patients_hands_now_is_imminent(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was `low`: an overdose injected, told with the hour.
    ("I injected the whole pen of my NovoRapid about half an hour ago. Feeling weird.",
     "imminent"),
    ("injected all my insulin an hour ago, sorry for bothering you", "imminent"),
    ("The district nurse injected my insulin this morning.", None),
])
def test_an_overdose_injected_within_the_last_hours_is_an_attempt_under_way(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Was `low`: the patient cutting now, bleeding, with no body part named.
    ("I'm cutting in the bathroom right now, there's so much blood.", "imminent"),
    # Was `high`: "onions" was not read as the "onion" cut in the kitchen.
    ("I'm cutting onions right now.", None),
    ("I'm cutting vegetables right now and I nicked my thumb, there's a lot of blood.", None),
    ("I cut the grass this morning.", None),
])
def test_cutting_now_with_bleeding_is_self_harm_and_what_is_cut_is_read(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was `low`: the means told as ready, the patient's own.
    ("I've written to my brother. The tablets are ready.", "imminent"),
    ("Everything's paid up and the meds are ready in the kitchen.", "imminent"),
    ("My pills are ready for pickup at the chemist on Friday.", None),
    ("Grandad's tablets are ready in his dosette box.", None),
])
def test_means_told_as_ready_are_a_plan(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "raised"), [
    # The lexicons did not raise these (the language models raised some): the method the
    # patient would choose, told as a condition.
    ("If I ever went, it would be the pills in the drawer.", True),
    ("If I was to go, it'd be the garage.", True),
    ("If I ever went back to Ireland, it would be to Cork.", False),
    ("If I went to the gym, it would be at night when it's quiet.", False),
])
def test_the_method_the_patient_would_choose_is_a_method(text, raised):
    assert _lexicons_raise(f"Patient: {text}") is raised
    assert (detect_crisis(f"Patient: {text}").level == "high") is raised


@pytest.mark.parametrize(("text", "level"), [
    # Words read as said (all but the stockpile were `low`).
    ("been thinkin aboot daein masel in, every night", "high"),  # Scots "daein"
    ("gonna dip out for good this weekend, no one will notice", "imminent"),  # slang
    ("I've been squirrelling away my diazepam, there's forty-odd now.", "high"),
    ("It's a wee plan, that's all. The viaduct on Saturday.", "imminent"),
    ("Gonna dip out of the party early tonight, I'm shattered.", None),
    ("I've been squirrelling away money for Christmas presents.", None),
    ("We've got a little plan for Saturday, the zoo and then pizza.", None),
])
def test_dialect_slang_and_minimised_plans_are_read(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "raised"), [
    # A height named by its floor is a method's place for the language models to read.
    ("I keep looking out of the window. We're on the fourteenth floor. It'd be quick.", True),
    ("Our new office is on the 19th floor, the view over the river is lovely.", False),
    ("The kids love the balcony, we're twenty-two floors up.", False),
])
def test_a_height_named_by_its_floor_is_read_by_the_models(text, raised):
    level = detect_crisis(f"Patient: {text}").level
    assert (level in ("high", "imminent")) is raised


@pytest.mark.parametrize("text", [
    # Each was raised: a word of English "corrected" into a word of risk ("craving" into the
    # "carving" of self-harm, "hiking" into "hiding" means).
    "I've been craving sugar all week, it's the new meds.",
    "Went hiking on Saturday, left my pills at home by mistake.",
])
def test_a_word_of_english_is_no_misspelling_of_a_word_of_risk(text):
    assert detect_crisis(f"Patient: {text}").level is None


@pytest.mark.parametrize(("word", "read_as"), [
    ("prison", "prison"), ("craving", "craving"), ("soothing", "soothing"),
    ("garbage", "garbage"), ("typing", "typing"),
    # Misspellings are still read as the words they miss.
    ("sucide", "suicide"), ("overdosd", "overdosed"), ("thinkin", "thinking"),
])
def test_the_misspelling_tolerance_leaves_words_of_english_alone(word, read_as):
    from services.analysis.crisis.reading import _correct

    assert _correct(word) == read_as


def test_every_listed_word_of_english_is_one_the_tolerance_would_change():
    """real_words.txt holds only words the lexicons would misread (no stale entries; rewrite it
    with scripts/build_real_words.py after a lexicon change)."""
    from services.analysis.crisis.reading import _REAL_WORDS, corrected

    assert len(_REAL_WORDS) > 1000
    assert [word for word in sorted(_REAL_WORDS) if corrected(word) == word] == []


def test_the_word_list_script_keeps_only_words_the_tolerance_would_change(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "build_real_words", Path(__file__).parents[2] / "scripts" / "build_real_words.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    words = tmp_path / "words"
    words.write_text("Prison\nprison's\ntable\ncraving\nhello\n", encoding="utf-8")
    assert script.real_words((words,)) == ["craving", "prison"]


@pytest.mark.parametrize(("text", "level"), [
    # Each was `high`: something done now for a time to come, self-harm under way, the patient
    # at a method's place now.
    ("I've booked a hotel room for Friday night, on my own. It's my goodbye to all of this.",
     "imminent"),
    ("I'm burning my wrist with a cigarette right now, I can't stop.", "imminent"),
    ("I'm on the roof now. I keep thinking about jumping.", "imminent"),
    # Not: a leaving do (a goodbye to review), cutting less, a commute.
    ("I've booked my leaving do for Friday night, time to say goodbye to the team.", None),
    ("I'm cutting less now, twice this month instead of every day.", "high"),
    ("On the platform now, train's late again, I'll be ten minutes late to session.", None),
])
def test_what_is_done_now_for_later_or_under_way_is_imminent(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was `high`: "odd" was text-speak for "OD'd", so feeling odd was an overdose, and a
    # count said roughly ("forty odd years ago") no longer dated an attempt as long over.
    ("I've been feeling a bit odd since the new tablets.", None),
    ("That's odd, I thought I had more of my pills left.", None),
    ("I cut my wrists in 1990, thirty odd years ago, and I've been well since.", None),
    # Still read: "odd on" as "overdosed on", and a rough count of tablets.
    ("i odd on my meds last night", "imminent"),
    ("I took 30 odd paracetamol an hour ago.", "imminent"),
])
def test_odd_is_no_overdose_and_a_rough_count_is_a_count(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Was `high`: "dye" was always read as "die".
    ("I want to dye my hair pink for the summer.", None),
    ("My daughter got hair dye all over the bathroom.", None),
    # Still read: "dye" misspelt for "die".
    ("sometimes i wish i could dye in my sleep", "high"),
    ("i wanna dye tbh", "high"),
])
def test_dye_is_die_misspelt_only_where_nothing_is_dyed(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was raised: medicine taken as prescribed (all of it, on schedule), a tablet's
    # strength read as a count, "every morning" read as an overdose's "every".
    ("Yes, I took all my medication this week.", None),
    ("I've taken all my tablets this week, not missed one.", None),
    ("I took all my meds this morning like I'm supposed to.", None),
    ("Taking my sertraline 100 every morning, no missed doses. Sleeping a bit better.", None),
    # Still raised: all of it at once, or beside words of dying; a count before the medicine.
    ("I took all my pills at once this week.", "high"),
    ("I take all my tablets every morning, but honestly I want to die.", "high"),
    ("I took 30 sertraline an hour ago.", "imminent"),
    ("I'm going to take every pill I have tonight.", "imminent"),
])
def test_medicine_taken_as_prescribed_is_ordinary_talk(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Was `high` through the second language model: the intent's object is an idiom.
    ("I'm going to jump at the chance if they offer it.", None),
    ("I'm going to jump off the bridge at the first chance I get.", "imminent"),
])
def test_an_intent_whose_object_is_an_idiom_is_not_read_by_the_models(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was raised, in whole sessions written apart: everyday phrases read as words of risk
    # ("to admit" as admitted to hospital, "let you know how" as a plan's "know how", a pill
    # count as a stockpile's counting, "I have to say" as intent).
    ("The walk helps more than I want to admit. Years of roofing and now a walk around the "
     "block is my big achievement.", None),
    ("One for the cabinet and one for my bag. I'll let you know how the test dose goes.", None),
    ("Sunday morning, pill count, refill check, then I write the week in the log.", None),
    # Still read: admitted to hospital, knowing how, counting one's pills to have enough, and
    # a plain "I have to end it tonight".
    ("I got admitted after I took the pills last month.", "high"),
    ("I know how I'd do it, the rope in the garage.", "imminent"),
    ("I've been counting my pills, there's enough now.", "high"),
    ("I have to end it tonight.", "imminent"),
])
def test_everyday_phrases_are_not_words_of_risk(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


def test_i_have_to_admit_is_no_intent():
    # Was `imminent`: "I have to" is an intent entry ("I have to end it").
    assert detect_crisis("Patient: I have to admit I've been thinking about ending it.").level \
        == "high"


@pytest.mark.parametrize(("text", "level"), [
    # An absence told by how long it lasts or where it is spent, and a "do it" the turn goes
    # on to name as something ordinary (all but the holiday were `imminent`).
    ("I told my wife I'd be gone all weekend for the fishing trip.", None),
    ("I'll be gone on holiday the week after next.", None),
    ("I'm going to do it, I'm going to ask her out on Friday.", None),
    ("I'm going to do it. I'm going to hand my notice in on Monday.", None),
    # Still read: gone for good, and a "do it" the turn names as the act.
    ("Soon I'll be gone and they'll be better off.", "imminent"),
    ("I'm going to do it tonight, I'm going to end it.", "imminent"),
    ("I'm going to do it tonight. I'm going to take all my pills.", "imminent"),
])
def test_an_absence_for_a_while_and_a_do_it_named_as_ordinary_are_not_risk(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was `high`: a thing dead, tablets collected from the chemist, boredom.
    ("My battery is dead and I need a charger.", None),
    ("I'm going to the chemist to collect my tablets later.", None),
    ("it's so quiet at work, i want to die of boredom lol", None),
    # Still read: the patient dead, tablets collected up.
    ("Part of me is dead inside and I want it over.", "high"),
    ("I've been collecting my tablets for months, there's a lot now.", "high"),
])
def test_a_thing_dead_and_tablets_collected_from_the_chemist_are_not_risk(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Was `imminent`: "took a lot" of something named is no overdose's "the lot".
    ("The nurse took a lot of blood for the tests this morning.", None),
    ("I took a lot of them an hour ago, I feel sick.", "imminent"),
    ("swallowed the lot an hour ago", "imminent"),
])
def test_a_lot_of_something_named_is_no_overdose(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


def test_ordinary_turns_of_a_second_writer_are_rarely_raised():
    """300 ordinary patient turns written apart from the detector after the round on
    everyday phrases (adherence, things dead, "gone" for a while, "do it" named as an errand)
    was under way, full of the words it confuses (``ordinary_turns_eval_b.json``), measured and
    never tuned on: 15 raised to high or imminent (17 with the detector before that round).
    A guard of the measured figure, not a goal."""
    turns = json.loads((Path(__file__).parent / "data" / "ordinary_turns_eval_b.json")
                       .read_text(encoding="utf-8"))["turns"]
    assert len(turns) == 300
    raised = [t for t in turns if detect_crisis(f"Patient: {t}").level in ("high", "imminent")]
    assert len(raised) <= 15


@pytest.mark.parametrize(("text", "level"), [
    # Each was `high`: "just" before an act of taking tells it is minutes old.
    ("I've just swallowed a whole box of my sleeping tablets. I feel strange.", "imminent"),
    ("i just took all my pills", "imminent"),
    # Not: taken as usual, a photo, an act dated long ago.
    ("I've just taken my morning tablets.", None),
    ("I just took a photo of the sunset.", None),
    ("I just took all my pills last year and survived.", "high"),
])
def test_an_overdose_just_taken_is_under_way(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Was `imminent`: the patient's own caring read as someone asked to care after them.
    ("I'm going to cut my hours at work to look after my dad.", None),
    # Still read: someone asked to look after what the patient leaves.
    ("I asked my sister to look after the kids after I'm gone.", "imminent"),
    ("My brother will have to look after mum when I'm gone.", "high"),
])
def test_the_patient_caring_is_no_preparation(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was `high`: a death with its time, decided in the sentence after.
    ("This weekend I go to sleep for good. My mind is made up.", "imminent"),
    # Not: a decision about something else, with the time in its own sentence.
    ("I want to sleep for good. I've decided to go to the gym on Saturday.", "high"),
])
def test_a_death_with_its_time_decided_in_the_next_breath_is_imminent(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Was `high`: "had" (the tablets the patient had) dated the whole turn as gone by; and
    # `low`: "took every" was not read as taking all.
    ("Rough night. I took all the tramadol I had around midnight. Still a bit woozy.",
     "imminent"),
    ("Took every co-codamol I had after tea. Feeling woozy now.", "imminent"),
    # Not: the harm told of an attempt long ago, or of tablets taken as usual.
    ("I took an overdose last year and was woozy for days.", "high"),
    ("My new tablets make me woozy.", None),
    # "took every" is "took all": an overdose, unless a dose schedule is told.
    ("I took every pill I had last night.", "imminent"),
    ("I took every dose this week.", None),
    ("I took every one of my sertraline this week, like you asked.", None),
])
def test_feeling_woozy_after_an_overdose_of_the_last_hours_is_harm_now(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Was `high`: means held in the patient's hands now.
    ("I've got all of dad's tablets, I'm holding them now and I want to take the lot.",
     "imminent"),
    # Was `low`: a brand of paraquat is the poison it is.
    ("I've got gramoxone in the shed and I'm going to drink it tonight.", "imminent"),
    ("I spray gramoxone on the fence line every spring.", None),
])
def test_means_held_now_and_a_poison_by_its_brand(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Was `high`: a question whether a dose taken by mistake is an overdose.
    ("I took my blood pressure pill twice by mistake. Is that an overdose?", None),
    ("Would that count as an overdose, two paracetamol and a Lemsip?", None),
    # Still an overdose: one the patient took.
    ("I took an overdose on Sunday. Is that what you wanted to hear?", "high"),
])
def test_asking_whether_a_dose_is_an_overdose_is_no_attempt(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was `low`: going for good, with a time.
    ("When the lease runs out I'm going for good.", "imminent"),
    ("After the funeral I'm just going. Going for good.", "imminent"),
    # A move named is no leaving of life (the first was already `moderate` by "leave for
    # good").
    ("I'm leaving for good in June, moving to Leeds this time.", None),
    ("I'm moving to Leeds in June, going for good this time.", None),
])
def test_going_for_good_is_read_unless_a_move_is_named(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Was `low`: "at work" in "nobody at work" read as an accident's setting.
    ("I've started cutting my thighs again, where nobody at work can see.", "high"),
    ("I cut my hand at work on the slicer.", None),
])
def test_people_at_work_are_no_accidents_setting(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was `low`.
    ("Ah keep thinkin aboot toppin mesel.", "high"),
    ("I just want the big sleep, to be honest.", "high"),
    ("I hope my chest just stops in my sleep.", "high"),
    ("I've thought about eating my service weapon.", "high"),
    ("I think it's fair to say I won't see another birthday. Decided.", "imminent"),
    # "over dosed" written apart, read as before; not: someone seen at Christmas, someone
    # else's overdose by mistake.
    ("they discharged me after i over dosed last weekend and i feel the same", "high"),
    ("I won't see my sister at Christmas this year.", None),
    ("My nan over dosed on her heart pills by mistake, she's fine.", None),
])
def test_wishes_methods_and_overdoses_in_other_words(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was `imminent`: a soap's storyline, a commute over a bridge.
    ("There was an overdose storyline on EastEnders last night and my daughter asked about it.",
     None),
    ("I cross the bridge on the way to work every day and I'm fine.", None),
])
def test_a_storyline_and_a_commute_are_not_risk(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Was `low` and `high`: on the way now to a method's place, with the means.
    ("I'm heading up to the cliffs now with the rope.", "imminent"),
    ("I'm going to the bridge now with the rope.", "imminent"),
    ("Bottle of wine. All of my oxycodone. Locked in the bathroom.", "imminent"),
    # Not: the means for an outing, tablets carried as everyone carries them.
    ("I'm heading to the river now with the rope for the boat.", None),
    ("We're going climbing at the cliffs now, I've got the rope.", None),
    ("I'm walking the dog by the river now, got my tablets in my bag.", None),
])
def test_on_the_way_now_with_the_means_is_imminent(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was `low`: a death that no longer sounds bad, a drowning told by its stones, a drop
    # measured, a home cleared for whoever comes after, arms lined from a few words back.
    ("Death doesn't sound so bad anymore, honestly.", "high"),
    ("I keep picturing the river, pockets full of stones.", "high"),
    ("I measured the drop from the car park roof. It's enough.", "imminent"),
    ("I'm clearing out the flat so whoever has to clean up after me has less to do.", "high"),
    ("My arms are starting to look like a barcode again.", "high"),
    # Was `high`: bleeding now, after a cut made "before I rang you", is harm needing care now.
    ("I cut my leg before I rang you and it's still bleeding through the towel.", "imminent"),
    # Not: someone else's sunburn; a cut long before; a knee after a run (was `high`).
    ("My daughter's forearms are starting to look like a barcode from the sunburn.", None),
    ("Before I moved here I cut myself and it wouldn't stop bleeding.", "high"),
    ("My knee feels like it got hit by a bus after the run.", None),
])
def test_deaths_drops_and_marks_told_around_and_harm_since_the_call(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was `low`: means held now, told by holding them or sitting with them, in an
    # overdose's amount.
    ("I'm holding all the sleeping tablets right now, my hand's full of them.", "imminent"),
    ("I'm sitting here with two full boxes of Nytol and a bottle of vodka.", "imminent"),
    # Not: someone else's tablets, one box read as a leaflet is read.
    ("I'm holding the baby right now, she's got her tablets for the ear infection.", None),
    ("I'm sitting here with a full box of my new tablets, trying to read the leaflet.", None),
])
def test_means_held_or_sat_with_now_are_imminent(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was `low` or `high`: a room or a car sealed beside the method.
    ("alredy bought the charcol and taped up the windows. just wanted to say thank you before",
     "imminent"),
    ("Everything's set up in the garage for later. The car, the tape round the door.",
     "imminent"),
    # Not: windows taped for painting, with no method named.
    ("I taped up the windows and the skirting boards before painting the lounge.", None),
])
def test_a_room_or_a_car_sealed_beside_the_method_is_a_plan(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was `low` (the second was raised by the language models alone, and read by the
    # lexicons as a hypothetical): a death welcomed before its condition, "tell you what" as no
    # hypothetical, clocking off for good, the sea walked into, a palm held on the hob.
    ("Wouldn't be upset if I just carked it in my sleep, not gonna lie.", "high"),
    ("I tell you what, if I didn't wake up tomorrow I wouldn't be one bit sorry.", "high"),
    ("Honestly mate I'm cooked. Wouldn't mind clocking off permanent, if you get me.", "high"),
    ("I walked into the sea last summer. The tide just kept handing me back.", "high"),
    ("I've started holding my palm on the hob until it blisters.", "high"),
    # Not: a printer's death welcomed; "tell you what" before an ordinary plan.
    ("I wouldn't be upset if the printer carked it.", None),
    ("Tell you what, if it rains tomorrow we'll do the session by phone.", None),
])
def test_deaths_welcomed_and_acts_told_in_other_words(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


@pytest.mark.parametrize(("text", "level"), [
    # Each was `high`: a time set by an event or a meal of the day.
    ("this is my last night. im done. not telling anyone but u", "imminent"),
    ("after finals im done. like done done. not coming back at all", "imminent"),
    ("got the blade, bathroom's locked, i'm ending it once mum's gone to work", "imminent"),
    # Feeling fine hours after an overdose is no recovery (each was `low`).
    ("I took about thirty of my paracetamol at teatime. I feel okay now.", "imminent"),
    ("I took twenty of my sertraline an hour ago. I'm fine now.", "imminent"),
    # Not: a course finished, a room tidied, an attempt on a day gone by, a dose as prescribed,
    # an overdose long recovered from.
    ("After finals I'm done with chemistry, switching to economics.", None),
    ("Once mum's gone to work I'm going to tidy my room.", None),
    ("On Boxing Day at teatime I took thirty of my paracetamol.", "high"),
    ("At Christmas I took thirty of my paracetamol at teatime.", "high"),
    ("I took my tablets this morning. I feel okay now.", None),
    ("I took an overdose years ago, but I'm fine now.", None),
])
def test_times_set_by_an_event_or_a_meal_make_intent_and_attempts_imminent(text, level):
    assert detect_crisis(f"Patient: {text}").level == level
