"""The language-model reader (services/analysis/crisis/model_reader.py): what it adds, what it
sends to review, what it never touches, and what it costs an ordinary session."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from services.analysis.crisis import (
    DOUBTED_CUE,
    ORDINARY_CUE,
    ORDINARY_KINDS,
    RISK_STATEMENT,
    apply_safety_floor,
    as_the_patient_said,
    assertion,
    concepts,
    detect_crisis,
    model_reader,
)
from services.analysis.crisis.reading import read_turn
from services.analysis.transcript import normalize_text, split_turns
from tests.services.crisis_blind import HELD_OUT, TUNING, split_blind_set
from tests.services.crisis_sessions import bench_sessions

DATA = Path(__file__).parent / "data"


def _floor(text: str, **readers: bool) -> str:
    return apply_safety_floor({"level": "low"}, detect_crisis(text, **readers))["level"]


def test_the_committed_model_is_the_one_its_settings_describe():
    settings = json.loads((model_reader.MODEL_DIR / model_reader.SETTINGS_FILE).read_text())
    graph = (model_reader.MODEL_DIR / model_reader.MODEL_FILE).read_bytes()
    assert hashlib.sha256(graph).hexdigest() == settings["model_sha256"]
    assert 0.5 < settings["escalate_at"] < 1


def test_plain_disclosures_score_high_and_ordinary_talk_low():
    risky, ordinary = model_reader.scores([
        "I want to kill myself and I have the pills saved up.",
        "We took the kids to the lake on Sunday and it was lovely.",
    ])
    loaded = model_reader.model()
    assert risky >= loaded.escalate_at
    assert ordinary < 0.5


def test_a_text_scores_the_same_whatever_is_read_beside_it():
    texts = ["I can't do this anymore, I want to be gone.", "Work was fine.",
             "My sister is visiting next week and we are going to see a film together."]
    together = model_reader.scores(texts)
    for text, score in zip(texts, together, strict=True):
        assert model_reader.scores([text]) == [score]
    assert model_reader.scores([texts[0], texts[0]]) == [together[0]] * 2


# Scores of the exact 8-bit products (as an x86 CPU with VNNI, or any CPU with
# session.x64quantprecision, computes them); the saturating kernel of CPUs without VNNI read
# 0.989681 / 0.989455 for the first two, enough to move statements across the thresholds.
REFERENCE_SCORES = {
    "I want to die lol": (0.992197, 0.998549),
    "I have a plan for the weekend.": (0.992040, 0.912117),
    "Our neighbour overdosed on his methadone": (0.001578, 0.001162),
}


def test_a_text_scores_the_same_on_every_cpu():
    texts = list(REFERENCE_SCORES)
    first = model_reader.scores(texts)
    second = model_reader.scores(texts, model_reader.second())
    for text, score, second_score in zip(texts, first, second, strict=True):
        assert score == pytest.approx(REFERENCE_SCORES[text][0], abs=2e-5), text
        assert second_score == pytest.approx(REFERENCE_SCORES[text][1], abs=2e-5), text


def test_the_session_scores_as_the_exact_kernel_does():
    """Whichever kernel this CPU's session runs (the default one where the CPU has VNNI), its
    scores are the exact kernel's, bit for bit, for short turns and for long ones read in
    windows."""
    texts = [*REFERENCE_SCORES, *(s["transcript"][:3000] for s in bench_sessions())]
    windows = [w for text in texts for w in model_reader.windows(text)]
    assert len(windows) > len(texts)
    for directory in model_reader.MODEL_DIRS:
        exact = model_reader.load(directory, exact_kernel=True)
        assert model_reader.scores(windows, model_reader.loaded_from(directory)) == \
            model_reader.scores(windows, exact)


@pytest.mark.parametrize(("flags", "needed"), [
    ("fpu sse4_1 avx2 avx512f avx512bw", True),
    ("fpu sse4_1 avx2 avx512f avx512_vnni", False),
    ("fpu sse4_1 avx2 avx_vnni", True),
])
def test_the_exact_kernel_is_asked_for_unless_the_cpu_has_vnni(tmp_path, flags, needed):
    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text(f"processor\t: 0\nflags\t\t: {flags}\n\nprocessor\t: 1\n"
                       f"flags\t\t: {flags}\n", encoding="utf-8")
    assert model_reader.exact_kernel_needed(cpuinfo) is needed


def test_the_exact_kernel_is_asked_for_where_the_flags_cannot_be_read(tmp_path):
    arm = tmp_path / "arm"
    arm.write_text("processor\t: 0\nFeatures\t: fp asimd asimddp\n", encoding="utf-8")
    assert model_reader.exact_kernel_needed(arm)
    assert model_reader.exact_kernel_needed(tmp_path / "missing")


def _tuning_statements_where(condition) -> list[dict]:
    """Tuning-half statements as the detector reads them (an interpreter's relay in the
    patient's own words, ``as_the_patient_said``) that meet ``condition``."""
    statements = ({**s, "text": as_the_patient_said(s["text"])}
                  for s in split_blind_set()[TUNING])
    return [s for s in statements if condition(s)]


def test_it_adds_risk_statements_the_other_readers_miss():
    """Tuning-half statements (training material) that only the model raises: the mechanism;
    how far it generalises is what the held-out halves measure."""
    added = _tuning_statements_where(
        lambda s: s["escalate"]
        and _floor(f"Patient: {s['text']}", model_reader=False) not in ("high", "imminent")
        and _floor(f"Patient: {s['text']}") in ("high", "imminent"))
    assert len(added) >= 10
    assessment = detect_crisis(f"Patient: {added[0]['text']}")
    assert [signal.kind for signal in assessment.signals] == [RISK_STATEMENT]


def test_it_lowers_only_findings_every_trained_reader_doubts_and_only_to_review():
    """The trained readers never lower a finding alone. Together they send to review
    (moderate) a turn whose only findings are plans, methods, means or intent when both rate it
    as ordinary talk, and a turn with a past time or someone else in it when all three read no
    current risk; everything else the lexicons find stays as found. Three disclosures of the
    tuning halves are lowered, to review, each told with no word of risk that both trained
    readers hear as ordinary talk: writer 24's "I cancelled the dentist, the gym and the
    holiday in June. It's just easier …" (everyday cancellations), and writer 36's "Once the
    baby's christening is done Sunday I'm checking out. She'll have her mum." ("checking out"
    with a day, as of a hotel) and "I checked the life insurance. It pays out after two years.
    It's been two years and a month." (a policy's terms)."""
    order = ["low", "moderate", "high", "imminent"]
    lowered = {ORDINARY_CUE: [], DOUBTED_CUE: []}
    for statement in split_blind_set()[TUNING]:
        text = f"Patient: {statement['text']}"
        without = detect_crisis(text, model_reader=False)
        with_model = detect_crisis(text)
        if order.index(_floor(text)) < order.index(_floor(text, model_reader=False)):
            assert _floor(text) == "moderate"
            cues = [r.kind for r in with_model.review if r.kind in lowered]
            assert len(cues) == 1
            lowered[cues[0]].append(statement)
            if cues[0] == ORDINARY_CUE:
                assert {signal.kind for signal in without.signals} <= ORDINARY_KINDS
            else:
                assert without.level == "high"  # imminent findings are never doubted
                assert assertion.carries_modifier(read_turn(statement["text"]), statement["text"])
        elif without.level is not None:
            assert with_model == without
    assert lowered[ORDINARY_CUE] and lowered[DOUBTED_CUE]
    # The disclosures the readers lower, listed so that a new one is seen; w38_031 ("This
    # afternoon I drink the bleach, a little, then I vomit.") came with writer 38's set.
    assert sorted(s["id"] for found in lowered.values() for s in found if s["escalate"]) == \
        ["pa_124", "w36_033", "w36_073", "w38_031"]


@pytest.mark.parametrize("text", [
    "Patient: I tried to drown myself when I was sixteen.",
    "Patient: In my twenties I tried to kill myself, and lately I want to again.",
    "Patient: When I was at school I burned my arms with a lighter, and last night I did it "
    "again.",
    "Patient: Do you ever feel like you want to die? Because I do, every single day.",
    "Patient: Is it normal to want to kill myself every day?",
    "Patient: I cut myself again last night lol.",
    "Patient: i want to die lol",
])
def test_a_modifier_beside_risk_the_readers_hear_is_not_doubted(text):
    assert detect_crisis(text).level == "high"


@pytest.mark.parametrize("text, modified", [
    ("When I was at school I burned my arms with a lighter.", True),
    ("My cousin overdosed on his tablets at the weekend.", True),
    ("For my nursing exam: what dose of paracetamol causes liver failure?", True),
    ("For my nursing exam I need to know what dose causes liver failure.", True),
    ("I sliced my thumb open on the mandoline. Do I need stitches?", True),
    ("this commute is killing me fr, kms lol", True),
    ("my group chat is so dumb im literally dead \U0001F480", True),
    ("Ha. Everything is dying this week.", True),
    ("I want to die.", False),
    ("I've got the pills and I'm taking them tonight.", False),
    ("I never said it, but I felt like I wanted to die.", False),
])
def test_modifiers_a_finding_may_be_doubted_beside(text, modified):
    assert assertion.carries_modifier(read_turn(text), text) is modified


@pytest.mark.parametrize("text", [
    "Patient: this commute is killing me fr, kms lol",
    "Patient: my group chat is so dumb im literally dead \U0001F480",
])
def test_hyperbole_no_reader_hears_as_risk_goes_to_review(text):
    assert detect_crisis(text, model_reader=False).level == "high"
    assessment = detect_crisis(text)
    assert assessment.level is None
    assert [r.kind for r in assessment.review] == [DOUBTED_CUE]


def test_an_old_attempt_told_with_the_present_goes_to_review_when_no_reader_hears_risk():
    text = ("Patient: Back in my twenties I took an overdose. I'm sixty now, happily retired, "
            "and my only worry is my hip.")
    assert detect_crisis(text, model_reader=False).level == "high"
    assessment = detect_crisis(text)
    assert assessment.level is None
    assert [r.kind for r in assessment.review] == [DOUBTED_CUE]
    assert _floor(text) == "moderate"
    assert "Needs review" in apply_safety_floor({"level": "low"}, assessment)["factors"][0]


def test_ordinary_turns_written_for_the_purpose_are_not_raised():
    """400 ordinary patient turns written apart from the detector (plans with a time, medicines
    taken as prescribed, rope, rifles and bridges in hobbies): the model adds no alarm to
    them. The lexicons raise 10 of them on their own (known; docs/safety-floor.md); both
    trained readers together send 3 of those to review."""
    turns = json.loads((DATA / "ordinary_turns_eval.json").read_text())["turns"]
    raised = [t for t in turns if _floor(f"Patient: {t}") in ("high", "imminent")]
    without = [t for t in turns if _floor(f"Patient: {t}", model_reader=False)
               in ("high", "imminent")]
    assert set(raised) < set(without)
    assert len(without) <= 10
    assert len(raised) <= 7
    for turn in set(without) - set(raised):
        assert _floor(f"Patient: {turn}") == "moderate"


@pytest.mark.parametrize("text", [
    "Patient: I'm going to kill myself on Friday.",
    "Patient: I have the rope in the garage and I plan to hang myself tonight.",
    "Patient: I really want to die. I have the pills saved up for Friday.",
])
def test_imminent_findings_are_never_doubted(text):
    assert detect_crisis(text).level == "imminent"


def test_only_turns_naming_something_of_risk_are_read():

    turns = split_turns(normalize_text(
        "Clinician: How was your week?\n"
        "Patient: Fine. Work was long but my team is nice.\n"
        "Clinician: And the new job?\n"
        "Patient: Busy, but I like my team.\n"
        "Patient: Some nights I think everyone would be better off if I was dead."))
    readings = {i: read_turn(t.text) for i, t in enumerate(turns) if t.role != "clinician"}
    assert [index for index, sentences in readings.items()
            if model_reader.reads(sentences)] == [4]


def test_long_turns_are_read_in_windows_of_whole_sentences():
    text = " ".join(f"Sentence number {i} has exactly seven words." for i in range(30))
    windows = model_reader.windows(text)
    assert len(windows) > 1
    assert " ".join(windows) == text
    assert model_reader.windows("I want to go home. Now!") == ["I want to go home. Now!"]
    assert all(len(w.split()) <= model_reader.WINDOW_WORDS for w in windows)


def test_of_a_long_turn_only_the_windows_that_name_a_word_of_risk_are_read():
    """A window of ordinary talk beside one naming pills costs a model call and tells the model
    nothing: only windows that would pass the gate on their own are scored, unless none does."""
    ordinary = " ".join(["Work has been busy and the commute to the office is long."] * 7)
    risk = "I have been saving up my pills in the drawer."
    text = f"{ordinary} {risk} {ordinary}"
    assert len(model_reader.windows(text)) == 3
    read = model_reader.read_windows(text)
    assert len(read) == 1 and risk in read[0]
    assert model_reader.read_windows(f"{ordinary} {ordinary}") == \
        model_reader.windows(f"{ordinary} {ordinary}")
    assert model_reader.read_windows(risk) == [risk]


# Ordinary talk as speech-to-text writes it: no punctuation at all.
_UNPUNCTUATED = ("so work has been busy and the commute is long and i have been trying to get "
                 "to the gym on weekends with my sister ")


def test_a_long_sentence_without_punctuation_is_read_in_windows():
    text = (_UNPUNCTUATED * 12).strip()
    windows = model_reader.windows(text)
    assert len(windows) > 1
    assert " ".join(windows) == text
    assert all(len(w.split()) <= model_reader.WINDOW_WORDS for w in windows)


def test_a_disclosure_late_in_a_long_unpunctuated_turn_is_read_by_the_model():
    """The model reads 128 tokens at once: a disclosure past them in a turn with no sentence
    end was never read."""
    disclosure = "i have been saving up my pills and i am going to take them all tonight"
    loaded = model_reader.model()
    assert model_reader.turn_score(disclosure) >= loaded.escalate_at
    assert model_reader.turn_score(_UNPUNCTUATED * 6) < loaded.escalate_at
    assert model_reader.turn_score(_UNPUNCTUATED * 6 + disclosure) >= loaded.escalate_at


def test_a_disclosure_late_in_a_long_turn_is_read():
    filler = " ".join(["Work has been busy and the commute is long."] * 20)
    text = f"Patient: {filler} Honestly I want to kill myself, I have the pills ready."
    assert detect_crisis(text).level in ("high", "imminent")


def test_the_training_script_never_reads_the_held_out_halves():
    import importlib.util

    root = Path(__file__).resolve().parents[2]
    spec = importlib.util.spec_from_file_location(
        "train_crisis_reader", root / "scripts" / "train_crisis_reader.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    source = (root / "scripts" / "train_crisis_model.py").read_text()
    # It trains on the tuning halves and the extra material, as the word-count reader does.
    assert "split_blind_set()[TUNING], extra_material(None)" in source
    assert "HELD_OUT" not in source
    seen = {row["text"] for row in split_blind_set()[TUNING] + module.extra_material()}
    assert not any(s["text"] in seen for s in split_blind_set()[HELD_OUT])


@pytest.mark.parametrize(("text", "timed"), [
    ("I'm going home to my father on Sunday.", True),
    ("tmrw nite after my shift im going 2 the bridge", True),
    ("After the hearing on Wednesday I'll drive out to the reservoir.", True),
    ("I went to the reservoir on Sunday.", False),  # a time gone by
    ("Every other weekend I'll have the kids.", False),  # recurring
    ("My husband says he will find me whenever I leave.", False),  # someone else's
    ("I'm going home to my father.", False),  # no time
    # A commitment, or a day named as the day, sets it as an intent does.
    ("It's happening tonight. I've made peace with it.", True),
    ("Tonight's the night I finally do it.", True),
    ("It happened last night.", False),
    # A day of the month, a holiday, a time of day.
    ("I'm going to the bridge on the 3rd.", True),
    ("I'll go to the lake at Easter.", True),
    ("I'm going before sunrise.", True),
    ("I've been going there since about Easter.", False),  # a time gone by
])
def test_a_time_to_come_is_the_patients_own_and_ahead(text, timed):
    assert concepts.time_to_come(concepts.read_turn(text)) is timed


@pytest.mark.parametrize(("text", "timed"), [
    # A time named on its own sets the time of what the turn tells.
    ("Thursday. Garage. Engine on. Door shut.", True),
    ("There's a bridge on the bypass. Saturday morning, early, before anyone's about.", True),
    ("New Year's Eve. Nobody will notice one more bang from my shed.", True),
    ("I pass that pillar every week. Next run's Thursday.", True),
    ("Last Thursday. That's when it got bad.", False),  # a time gone by
    ("At night. That's when it gets bad.", False),  # a habit
    ("Thursday was when I first thought of it.", False),
])
def test_a_time_named_on_its_own_is_a_time_set(text, timed):
    assert concepts.time_to_come(concepts.read_turn(text)) is timed


@pytest.mark.parametrize(("text", "timed"), [
    ("i have the rope and theres a tree in the park behind my flat. thinkin sunday", True),
    ("I've got the tablets. My wife's away Friday night.", True),
    # A time gone by, a condition, a count, someone else's time: none is the plan's.
    ("On Saturday I drove my car into a pole with the rope in the boot.", False),
    ("I keep the pills in the cabinet. It's the third time this month I've counted them.", False),
    ("She let me have the kids for Thanksgiving. I think about the car in the garage.", False),
    ("when things get bad at night I look at the pills", False),
    # No method, means or preparation: the time alone is not a plan's.
    ("I feel like giving up this week.", False),
])
def test_a_plans_parts_with_a_time_to_come(text, timed):
    assert concepts.time_with_a_plan(concepts.read_turn(text)) is timed


@pytest.mark.parametrize(("text", "taken"), [
    ("um i already took them like the whole bottle maybe twenty minutes ago", True),
    ("I swallowed all of them earlier today.", True),
    ("Took a few extra of me tablets last night.", False),  # a night gone by: ask about it
    ("I took them two years ago.", False),
    ("I thought about it twenty minutes ago.", False),  # nothing taken
])
def test_something_taken_within_the_last_hours(text, taken):
    assert concepts.taken_within_hours(concepts.read_turn(text)) is taken


@pytest.mark.parametrize(("text", "level"), [
    ("Just cut myself. It's gaping. Still pouring. Alone.", "imminent"),
    ("cut way deeper than i meant to, theres blood everywhere n im feeling kinda faint",
     "imminent"),
    ("I cut myself last night, just small ones on my arm.", "high"),
    ("I cut myself last year and it wouldn't stop bleeding, I still have the scar.", "high"),
])
def test_self_harm_that_needs_emergency_care_now_is_imminent(text, level):
    assert detect_crisis(f"Patient: {text}").level == level


def test_something_taken_within_hours_says_so():
    # The lexicons now find it (an overdose told by its count); it was a risk statement only
    # the trained readers raised. Either way the factor says the attempt is under way.
    signals = detect_crisis("Patient: um i already took them like the whole bottle of the "
                            "sleeping ones maybe twenty minutes ago").signals
    assert [(s.kind, s.level) for s in signals] == [("past_attempt", "imminent")]
    assert "made within the last hours" in signals[0].factor


def test_means_taken_out_an_hour_ago_are_at_hand_not_taken():
    signals = detect_crisis("Patient: Got the farm rifle across me knees right now, mate. "
                            "Took the rounds out of the safe an hour ago.").signals
    assert [s.level for s in signals] == ["imminent"]
    assert "taken within the last hours" not in signals[0].factor


def test_a_disclosure_only_the_readers_catch_is_imminent_when_it_sets_a_time():
    """Intent with a time is imminent (the issue's rule) also where only the trained readers
    recognise the intent: on the tuning half, the statements they raise with a time set are
    the ones their writers expected at imminent, but two: "I'm calling because I got
    discharged Friday. After the, um. After I tried." (an attempt, expected high), where the
    day of the discharge and "I'm calling" read as a time set, and "… oxycodone in the kitchen
    cabinet and, uh, when things get bad like this week I go stand in front of that cabinet"
    (means, expected high), where a condition's week reads as the plan's; and two the rule
    itself makes imminent though their writers expected high: "Ladder. Garage. Rope. Next
    week, when the house is empty." (a plan with a time) and "There's a bottle o' paracetamol
    and a half-bottle o' whisky on the table in front of me. That's what I'm lookin' at right
    now while we talk." (means at hand now). Writer 35 expected high where a vague time is
    told ("im gona do it soon … ive made my mind up", "I'll go off the pier some night when
    the tide's in", "I am going away soon") and of a wish with a day ("ah wish ah'd jist no
    wake up the morra"); the rule reads each as set for a time."""
    levels = {}
    for statement in split_blind_set()[TUNING]:
        signals = detect_crisis(f"Patient: {statement['text']}").signals
        if [signal.kind for signal in signals] == [RISK_STATEMENT]:
            levels[statement["id"]] = (signals[0].level, statement["expected_band"])
    timed = [expected for level, expected in levels.values() if level == "imminent"]
    assert timed.count("imminent") >= 3
    assert len(timed) - timed.count("imminent") <= 8
    assert sum(1 for level, _ in levels.values() if level == "high") >= 50


def test_a_turn_naming_a_word_of_risk_is_read_at_a_lower_threshold():
    """Ordinary life is full of plans and pills, much less of words of death and self-harm: a
    turn naming only a plan or means needs the model near certain, one naming a word of risk
    the lexicons did not take as asserted a little less."""

    loaded = model_reader.model()
    assert loaded.escalate_at_risk_words < loaded.escalate_at
    plan_only = "I have a plan for the weekend."
    assert model_reader.threshold(read_turn(plan_only)) == loaded.escalate_at
    assert loaded.escalate_at_risk_words <= model_reader.scores([plan_only])[0] < \
        loaded.escalate_at
    assert detect_crisis(f"Patient: {plan_only}").level is None
    raised_below_the_plan_threshold = _tuning_statements_where(
        lambda s: s["escalate"]
        and _floor(f"Patient: {s['text']}", model_reader=False) not in ("high", "imminent")
        and _floor(f"Patient: {s['text']}") in ("high", "imminent")
        and max(model_reader.scores(model_reader.windows(s["text"]))) < loaded.escalate_at
        # Not what the second model raises at its own thresholds.
        and max(model_reader.scores(model_reader.windows(s["text"]), model_reader.second())) <
        model_reader.second_threshold(read_turn(s["text"])))
    assert raised_below_the_plan_threshold
    for statement in raised_below_the_plan_threshold:
        sentences = read_turn(statement["text"])
        if _floor(f"Patient: {statement['text']}", trained_reader=False) in ("high", "imminent"):
            # Raised by the model alone (not by its agreement with the word reader).
            assert model_reader.threshold(sentences) == loaded.escalate_at_risk_words


def test_both_readers_agreeing_raise_what_neither_raises_alone():
    """Where the language model and the word reader both rate a turn as a disclosure, lower
    thresholds hold than either needs alone; not where the lexicons hold the turn's words of
    risk at a distance (a denial), and for methods, means and plans only when the word reader
    is surer. Statements from reader_training_plain_b.json, on which neither reader was
    trained (the second model was, and is held out here: it raises the first alone)."""
    from services.analysis.crisis import reader

    for text in ("I think about the cold water off the pier. I think it would be peaceful to "
                 "just go in.",
                 "i've got fresh marks on my legs, didn't mean to tell you that"):
        sentences = read_turn(text)
        model_at, reader_at = model_reader.agreement(sentences)
        score = model_reader.scores([text])[0]
        assert model_at <= score < model_reader.threshold(sentences)
        assert reader.score(text) >= reader_at
        assert _floor(f"Patient: {text}", trained_reader=False, second_model=False) == "low"
        assert _floor(f"Patient: {text}", model_reader=False) == "low"
        assert _floor(f"Patient: {text}", second_model=False) == "high"

    denial = "I don't have any plan to kill myself and I never have."
    model_at, reader_at = model_reader.agreement(read_turn(denial))
    assert model_reader.scores([denial])[0] >= model_at
    assert reader.score(denial) >= reader_at
    assert assertion.distanced(read_turn(denial), model_reader.GATE_CONCEPTS)
    assert detect_crisis(f"Patient: {denial}").level is None

    firewood = "I stack the firewood in the garage and split it with the axe in the fall."
    model_at, reader_at = model_reader.agreement(read_turn(firewood))
    assert model_reader.scores([firewood])[0] >= model_at > reader_at > reader.score(firewood)
    assert detect_crisis(f"Patient: {firewood}").level is None


def test_a_plan_told_in_words_of_dying_is_never_ordinary_talk():
    """Both trained readers rate this disclosure as ordinary talk; it names its act in words
    of dying, so it is not sent to review."""
    from services.analysis.crisis import reader

    text = "Once the divorce is finalised I'm checking out for good."
    model_below, reader_below = model_reader.model().ordinary_below
    assert model_reader.scores([text])[0] < model_below
    assert reader.score(text) < reader_below
    assert assertion.names_dying(read_turn(text))
    assert detect_crisis(f"Patient: {text}").level == "imminent"


def test_the_second_model_is_the_one_its_settings_describe():
    settings = json.loads((model_reader.SECOND_DIR / model_reader.SETTINGS_FILE).read_text())
    graph = (model_reader.SECOND_DIR / model_reader.MODEL_FILE).read_bytes()
    assert hashlib.sha256(graph).hexdigest() == settings["model_sha256"]
    loaded = model_reader.second()
    assert loaded.escalate_at_risk_words < loaded.escalate_at < 1
    assert model_reader.second() is loaded  # loaded once per process


@pytest.mark.parametrize("text", [
    "I stack the firewood in the garage and split it with the axe in the fall.",
    "I took my pills this morning.",
    "Next week I'm going to start walking again, at least twenty minutes after dinner.",
    "Fine, fine. A little better than last time I think.",
])
def test_the_second_model_leaves_plain_safe_statements_unraised(text):
    """It rates these near certain, just below the thresholds chosen for it
    (scripts/choose_crisis_thresholds.py): they stay unraised."""

    score = model_reader.scores([text], model_reader.second())[0]
    assert 0.97 < score < model_reader.second_threshold(read_turn(text))
    assert detect_crisis(f"Patient: {text}").level is None


@pytest.mark.parametrize("text", [
    "My sister googled how many of her pills it would take and I'm scared for her.",
    "I keep thinking about my mom's overdose last year, it still hurts.",
])
def test_the_second_model_is_not_asked_where_the_lexicons_hold_the_words_at_a_distance(text):
    """Someone else's overdose: the second model rates it above its threshold; the lexicons
    hold its words of risk at a distance, so the second model's reading does not count."""
    sentences = read_turn(text)
    assert assertion.distanced(sentences, model_reader.GATE_CONCEPTS)
    assert model_reader.scores([text], model_reader.second())[0] >= \
        model_reader.second_threshold(sentences)
    assert detect_crisis(f"Patient: {text}").level is None


def test_the_doubting_model_is_the_one_its_settings_describe():
    settings = json.loads((model_reader.DOUBT_DIR / model_reader.SETTINGS_FILE).read_text())
    graph = (model_reader.DOUBT_DIR / model_reader.MODEL_FILE).read_bytes()
    assert hashlib.sha256(graph).hexdigest() == settings["model_sha256"]
    assert model_reader.doubter() is model_reader.doubter()  # loaded once per process
    # Not the second model: the retrained one rarely hears no risk where this one does.
    assert settings["model_sha256"] != json.loads(
        (model_reader.SECOND_DIR / model_reader.SETTINGS_FILE).read_text())["model_sha256"]


def test_the_second_model_adds_what_the_other_readers_miss():
    """Tuning-half statements that only the second model raises (training material for it: the
    mechanism; the held-out halves measure what it adds): as a risk statement, or by keeping
    the other readers from doubting what the lexicons found."""
    texts = [f"Patient: {s['text']}" for s in split_blind_set()[TUNING] if s["escalate"]]
    raised = [t for t in texts if _floor(t) in ("high", "imminent")]
    added = [t for t in raised if _floor(t, second_model=False) not in ("high", "imminent")]
    assert len(added) >= 5
    kinds = [[signal.kind for signal in detect_crisis(t).signals] for t in added]
    assert sum(1 for found in kinds if found == [RISK_STATEMENT]) >= 5
    for text, found in zip(added, kinds, strict=True):
        if found != [RISK_STATEMENT]:
            assert DOUBTED_CUE not in [r.kind for r in detect_crisis(text).review]
            assert DOUBTED_CUE in [r.kind for r in detect_crisis(text, second_model=False).review]


def test_the_phrase_patterns_tell_which_turn_raised_what():
    from services.analysis.crisis.phrases import scan_phrases

    turns = split_turns(normalize_text(
        "Patient: Work was fine this week.\nClinician: And at home?\n"
        "Patient: I want to kill myself."))
    assessment, by_turn = scan_phrases(turns)
    assert list(by_turn) == [2]
    assert {s.kind for s in by_turn[2]} == {s.kind for s in assessment.signals} != set()


@pytest.mark.parametrize("text", [
    "I rehearsed my wedding speech in front of the mirror.",
    "We did a dry run of the school pickup before term starts.",
    "It was a trial run for the new schedule at work.",
    "I cancelled my gym membership to save money.",
    "I paid off my credit card this month, finally!",
    "I deactivated my Facebook because it was making me anxious.",
    "We picked a date for the christening.",
    "I need to update my life insurance beneficiary since the divorce.",
    "I tied up loose ends at work before my vacation.",
    "I scouted a few new apartments this weekend.",
    "I lost my nerve at the job interview.",
    "I'm wrapping things up at work before I retire.",
    "The neighbours take care of my cat when we travel.",
    "I almost did it, I almost asked her out.",
    "I counted out the money for rent.",
    "I won't need my winter coat anymore, I'm moving to Florida.",
    "I sorted everything for the move next week.",
    "We put everything in order before the audit.",
])
def test_everyday_preparations_every_trained_reader_hears_as_ordinary_go_to_review(text):
    """What prepares for a death in a disclosure prepares for a move, a party or a budget in
    ordinary talk. Alone (no word of dying, no note, letter or farewell), and with every
    trained reader hearing no risk, it is a review cue, not a suicide plan."""
    assert _floor(f"Patient: {text}", model_reader=False) in ("high", "imminent")
    assessment = detect_crisis(f"Patient: {text}")
    assert assessment.level is None
    assert ORDINARY_CUE in [r.kind for r in assessment.review]
    assert _floor(f"Patient: {text}") == "moderate"


@pytest.mark.parametrize("text", [
    "I've put my affairs in order. I won't be needing any of it.",
    "I've picked a date.",
    "I cancelled my phone contract and paid off my debts so nobody is left with anything.",
    "I rehomed my dog and told my sister where my will is.",
    "I've been tying up loose ends so it's easier for everyone after.",
    "My affairs are sorted and the date is set.",
    "I've been getting my affairs in order, I just feel like it's time.",
    "I deleted my social media and cancelled my gym, I won't need them where I'm going.",
    "Found a home for my cat. She deserves someone who'll be around.",
])
def test_everyday_preparations_a_trained_reader_hears_as_risk_stay_raised(text):
    assert _floor(f"Patient: {text}") in ("high", "imminent")


@pytest.mark.parametrize(("text", "read"), [
    ("I banged my head on the cupboard door this morning.", False),
    ("I banged my head on the doorframe moving the sofa, look at the lump.", False),
    ("I bang my head on the wall when it gets too much.", True),
    ("I burned my arm on the stove on purpose last night.", True),
])
def test_a_self_harm_word_told_as_an_accident_is_not_the_models_to_read(text, read):
    """The models cannot see the accident the lexicons read ("on the cupboard door") and rate
    the words of the act: such a sentence is not theirs to read, and stays unraised."""
    assert model_reader.reads(read_turn(text)) is read
    if not read:
        assert detect_crisis(f"Patient: {text}").level is None


def test_a_turn_the_second_model_reads_as_risk_is_not_doubted():
    """The first and the doubting model heard no risk, the second model near certain risk: the
    turn was sent to review as doubted and then raised again as a risk statement. Every trained
    reader includes the second one, so the lexicons' finding stands."""
    assessment = detect_crisis("Patient: Cancelled my Netflix and Spotify, gave my PS5 to my "
                               "nephew. Won't need any of it.")
    assert [(s.kind, s.level) for s in assessment.signals] == [("plan", "high")]
    assert DOUBTED_CUE not in [r.kind for r in assessment.review]
