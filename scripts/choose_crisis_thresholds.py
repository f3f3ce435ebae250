"""Compare ways of using a second language model (a candidate trained by
``scripts/train_crisis_model.py --candidate DIR``) beside the committed one inside the crisis
detector, on material neither model was trained on and on the project's own plain tests.

    .venv/bin/python scripts/choose_crisis_thresholds.py DIR [--show] [--install] [--writers N ...]

Both models are run with onnxruntime as ``services/analysis/crisis/model_reader.py`` runs the
committed one (one thread, each text read alone, long turns in windows). Three sets:

(a) the tuning halves of writers 24, 25 and 27 (``train_crisis_model.py --candidate`` leaves
    the writers after ``--through``, 23 unless told, out of the candidate's training; the
    committed model never saw them): the material thresholds are chosen on; ``--writers``
    names others (the committed model has not seen writer 12 or a later one, the doubting
    model writer 18 or a later one);
(b) the statements and transcripts that tests/services/test_crisis.py,
    test_crisis_model_reader.py and tests/e2e/test_safety_e2e.py assert are raised (high or
    imminent) or not, read from their parametrize lists, the corpus manifest and ``LITERALS``;
    a policy that keeps every one as the committed detector has it is marked ``*`` (the
    installed thresholds do not: docs/safety-floor.md says which eight they raise, and why);
(c) tests/services/data/ordinary_turns_eval.json (400 ordinary turns): the share raised must
    not grow.

The held-out halves are never read here.

Each policy keeps the committed detector as it is (lexicons, word reader, committed model and
its gates, the review of ordinary plans) and adds a risk statement where a patient turn the
model reads (``model_reader.reads``), in a transcript where no reader found a suicide or
self-harm signal, meets the policy's rule; or, for "replace", runs the detector with the
candidate in the committed model's place. A rule sees, per turn: the committed model's score
``c``, the candidate's ``k``, the word reader's ``r``, whether the turn names a word of risk
(``model_reader.threshold``'s two gates) and whether the lexicons hold those words at a
distance (a denial, someone else's).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import inspect
import json
import re
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import services.analysis.crisis as crisis  # noqa: E402
from services.analysis.crisis import apply_safety_floor, assertion, concepts, reader  # noqa: E402
from services.analysis.crisis import model_reader as language_model  # noqa: E402
from services.analysis.crisis.reader import RISK_CONCEPTS  # noqa: E402
from services.analysis.crisis.reading import names  # noqa: E402
from tests.services.crisis_blind import TUNING, split_blind_set  # noqa: E402

DATA = ROOT / "tests" / "services" / "data"
CHOICE_SETS = ("crisis_statements_writer24.json", "crisis_statements_writer25.json",
               "crisis_statements_writer27.json")
RAISED = ("high", "imminent")
# Tests that take one "text" and assert it raised (True) or not (False), by test name.
TEXT_TESTS = {
    "test_negated_statements_are_not_signals": False,
    "test_idioms_are_not_signals": False,
    "test_third_person_statements_are_not_signals": False,
    "test_varied_crisis_phrasings_are_caught": True,
    "test_varied_non_crisis_phrasings_stay_quiet": False,
    "test_former_false_negatives_are_caught": True,
    "test_euphemisms_for_taking_ones_life_are_read": True,
    "test_not_sticking_around_is_read": True,
    "test_a_year_long_past_dates_what_is_told_with_it": False,
    "test_a_year_does_not_date_what_goes_on_or_an_attempt": True,
    "test_wordings_of_the_earlier_sets_and_plain_disclosures_read_by_the_lexicons_alone": True,
    "test_ordinary_plans_named_as_such_stay_quiet": False,
    "test_risk_told_in_the_present_is_not_what_a_turn_calls_resolved": True,
    "test_a_resolved_turn_told_in_the_past_stays_resolved": False,
    "test_an_act_the_patient_wills_is_no_topic_of_a_qualifier_beside_it": True,
    "test_a_topic_studied_warned_of_or_quoted_stays_a_topic": False,
    "test_imminent_findings_are_never_doubted": True,
    "test_the_second_model_leaves_plain_safe_statements_unraised": False,
    "test_the_second_model_is_not_asked_where_the_lexicons_hold_the_words_at_a_distance": False,
    "test_a_modifier_beside_risk_the_readers_hear_is_not_doubted": True,
    "test_hyperbole_no_reader_hears_as_risk_goes_to_review": False,
    "test_everyday_preparations_every_trained_reader_hears_as_ordinary_go_to_review": False,
    "test_everyday_preparations_a_trained_reader_hears_as_risk_stay_raised": True,
    "test_a_thing_gone_is_no_death": False,
    "test_a_word_of_english_is_no_misspelling_of_a_word_of_risk": False,
    "test_an_act_done_is_still_a_past_attempt": True,
    "test_an_act_to_come_is_not_reported_as_a_past_attempt": True,
    "test_an_attempt_long_ago_stays_high": True,
    "test_an_attempt_within_the_last_hours_is_imminent": True,
    "test_finishing_a_piece_of_work_is_no_intent": False,
    "test_finishing_it_with_no_work_named_is_still_intent": True,
    "test_harm_needing_care_now_is_imminent": True,
    "test_intent_told_in_text_speak_dialect_or_as_acting_on_it": True,
    "test_means_at_hand_as_a_habit_stays_high": True,
    "test_means_at_hand_now_is_imminent": True,
    "test_the_last_time_of_before_is_no_farewell": False,
    "test_the_patient_or_someone_dear_gone_still_counts": True,
}
# Parametrized tests that are not about whether a statement is raised.
NOT_STATEMENTS = {
    "test_floor_never_lowers_and_reaches_the_floor", "test_unknown_level_becomes_floor_or_moderate",
    "test_floor_is_idempotent", "test_max_level", "test_max_level_rejects_unknown_levels",
    "test_is_negated", "test_a_time_to_come_is_the_patients_own_and_ahead",
    "test_corpus_signals_are_well_formed", "test_modifiers_a_finding_may_be_doubted_beside",
    "test_the_exact_kernel_is_asked_for_unless_the_cpu_has_vnni",
    # Readings of a turn's parts, not levels.
    "test_a_plans_parts_with_a_time_to_come", "test_a_time_named_on_its_own_is_a_time_set",
    "test_something_taken_within_the_last_hours",
}
# Statements asserted in tests without a parametrize list: (text, raised, imminent).
LITERALS = [
    ("Patient: I have a plan for the weekend.", False, False),
    ("Patient: I am not wanting to be living anymore, doctor.", True, False),
    ("Patient: We keep a rifle in the closet for hunting.", False, False),
    ("Patient: Work was fine. I slept well.", False, False),
    ("Patient: I'm fixin to head to the store.", False, False),
    ("Patient: I wanted to die last year, not anymore though.", False, False),
    ("Patient: Back in college I used to want to die.", False, False),
    ("Patient: my best freind tried to od last weekend and shes back in the dorms now", False,
     False),
    ("Patient: I don't have any plan to kill myself and I never have.", False, False),
    ("Patient: I stack the firewood in the garage and split it with the axe in the fall.", False,
     False),
    ("Therapist: Do you have a plan for the holidays?\nPatient: Yes, we're visiting family.",
     False, False),
    ("Therapist: Have you had any thoughts of ending your life?\n"
     "Therapist: Have you thought about how you would kill yourself?\n", False, False),
    ("Patient: I'm going to kill myself.", True, True),
    ("Patient: I've been saving my pills and I'm going to take them all on Friday.", True, True),
    ("Patient: I just want to die. I wrote goodbye letters to my kids.", True, False),
    ("Patient: I've been stockpiling my pills.", True, False),
    ("Patient: I think about suicide a lot. I have a plan.", True, False),
    ("Patient: I want to die. We keep a rifle in the closet.", True, False),
    ("Patient: Ah'm gonnae kill myself on Friday.", True, True),
    ("Patient: I think about the cold water off the pier. I think it would be peaceful to just "
     "go in.", True, False),
    ("Patient: i've got fresh marks on my legs, didn't mean to tell you that", True, False),
    ("Patient: Once the divorce is finalised I'm checking out for good.", True, True),
]


# The second model's thresholds (plans, methods or means alone / a word of risk), chosen with
# this script on (a)-(c) for the candidate trained by `train_crisis_model.py --candidate
# --through 23`, read only where the lexicons hold none of a turn's words of risk at a distance
# (the detector's rule; the row "candidate alone, not distanced 0.998/0.99"): (a) 176 of 225
# raised against the earlier second model's 166, false alarms 7 of 105 as before, (c) as
# before. Eight of (b)'s safe statements are raised at these thresholds, none at 0.9985/0.999
# (170 of 225, false alarms 7). Accepting those eight was decided with the held-out halves
# counted both ways as well (docs/safety-floor.md says so beside the figures).
SECOND_ESCALATE_AT = (0.998, 0.99)


@dataclass
class Item:
    text: str
    raised: bool
    imminent: bool = False
    source: str = ""


@dataclass
class Turn:
    """What a rule sees of one patient turn read by ``_first_read_as_risk``."""
    read: bool  # the model reads it (model_reader.reads)
    committed: bool  # the committed detector's rule raises it
    timed: bool
    risk_words: bool
    distanced: bool
    c: float = 0.0
    k: float = 0.0
    r: float = 0.0


@dataclass
class Features:
    level: str  # the committed detector's level (over a model's "low")
    lexical: bool  # raised by a finding of the lexicons (the trained readers were not asked)
    turns: list[Turn] = field(default_factory=list)


def scorer(loaded: language_model.LoadedModel) -> Callable[[str], float]:
    """A model's score of a turn (the highest of its windows), each text read once."""
    return functools.cache(functools.partial(language_model.turn_score, loaded=loaded))


def _module_items(module) -> list[Item]:
    items: list[Item] = []
    for name, function in inspect.getmembers(module, inspect.isfunction):
        if not name.startswith("test_") or name in NOT_STATEMENTS:
            continue
        for mark in getattr(function, "pytestmark", []):
            if mark.name != "parametrize":
                continue
            argnames, values = mark.args[0], mark.args[1]
            argnames = [a.strip() for a in argnames.split(",")] if isinstance(argnames, str) \
                else list(argnames)
            for value in values:
                if hasattr(value, "marks"):  # a pytest.param: its values
                    value = value.values
                row = dict(zip(argnames, value if len(argnames) > 1 else (value,), strict=True))
                items.extend(_row_items(name, row, module))
    return items


def _row_items(name: str, row: dict, module) -> list[Item]:
    if "entry" in row:
        entry = row["entry"]
        text = (module.CORPUS / entry["file"]).read_text(encoding="utf-8")
        return [Item(text, entry["category"] == "crisis",
                     entry["expect_min_level"] == "imminent", f"{name}:{entry['file']}")]
    if "answer" in row:
        transcript = f"Therapist: Have you had thoughts of killing yourself?\nPatient: " \
                     f"{row['answer']}\n"
        return [Item(transcript, "affirmative" in name, False, name)]
    if "text" not in row:
        return []  # a test of a word's or a concept's reading, with no statement
    text = row["text"]
    if not re.match(r"[A-Z][a-z]+: ", text):
        text = f"Patient: {text}"
    if "raised" in row:
        return [Item(text, row["raised"], False, name)]
    if "read" in row:
        # Whether the models read it: the test asserts only that an unread one stays unraised.
        return [] if row["read"] else [Item(text, False, False, name)]
    if "expected" in row:
        return [Item(text, row["expected"] in RAISED, row["expected"] == "imminent", name)]
    if "level" in row:
        return [Item(text, row["level"] in RAISED, row["level"] == "imminent", name)]
    if "kind" in row:
        return [Item(text, True, False, name)]
    if name not in TEXT_TESTS:
        raise SystemExit(f"{name}: say in TEXT_TESTS whether its statements are raised")
    return [Item(text, TEXT_TESTS[name], "imminent" in name or "never_doubted" in name, name)]


def test_items() -> list[Item]:
    sys.path.insert(0, str(ROOT))
    from tests.services import test_crisis, test_crisis_model_reader

    items = _module_items(test_crisis) + _module_items(test_crisis_model_reader)
    items += [Item(text, raised, imminent, "literal") for text, raised, imminent in LITERALS]
    seen: dict[str, Item] = {}
    for item in items:
        seen.setdefault(item.text, item)
    return list(seen.values())


def choice_items(sets: tuple[str, ...] = CHOICE_SETS) -> list[Item]:
    statements = split_blind_set([DATA / name for name in sets])[TUNING]
    return [Item(f"Patient: {s['text']}", s["escalate"], s["expected_band"] == "imminent",
                 s["id"]) for s in statements]


def ordinary_items() -> list[Item]:
    turns = json.loads((DATA / "ordinary_turns_eval.json").read_text(encoding="utf-8"))["turns"]
    return [Item(f"Patient: {t}", False, False, "ordinary") for t in turns]


def features(item: Item, committed: Callable[[str], float],
             candidate: Callable[[str], float]) -> Features:
    """The committed detector's level, and what a rule sees of each turn it asked the trained
    readers about."""
    seen: list[Turn] = []
    original = crisis._first_read_as_risk

    def recording(turns, readings, *, trained_reader, score, second_model):
        for index, sentences in readings.items():
            text = turns[index].text
            read = language_model.reads(sentences)
            c = committed(text) if read else 0.0
            agrees = read and crisis._both_agree(text, sentences, c)
            seen.append(Turn(
                read=read,
                committed=(read and (c >= language_model.threshold(sentences) or agrees)) or
                crisis._trained_reading(text, sentences),
                timed=concepts.time_to_come(sentences),
                risk_words=names(sentences, RISK_CONCEPTS),
                distanced=assertion.distanced(sentences, language_model.GATE_CONCEPTS),
                c=c, k=candidate(text) if read else 0.0, r=reader.score(text)))
        return original(turns, readings, trained_reader=trained_reader, score=score,
                        second_model=second_model)

    crisis._first_read_as_risk = recording
    try:
        # The committed model alone: the second model never reads a turn.
        assessment = crisis.detect_crisis(item.text, second_model=False)
    finally:
        crisis._first_read_as_risk = original
    level = apply_safety_floor({"level": "low"}, assessment)["level"]
    lexical = level in RAISED and not any(
        s.kind == crisis.RISK_STATEMENT for s in assessment.signals)
    return Features(level, lexical, seen)


def outcome(found: Features, rule) -> str:
    """The level with ``rule(turn)`` added to the committed detector's own rule."""
    if found.lexical or not found.turns:
        return found.level
    for turn in found.turns:
        if turn.committed or (turn.read and rule(turn)):
            return "imminent" if turn.timed else "high"
    return found.level


@dataclass
class Figures:
    caught: int
    escalate: int
    alarms: int
    calm: int
    imminent: int
    imminent_expected: int
    wrong: list[Item]

    def line(self) -> str:
        return (f"{self.caught:3d}/{self.escalate} raised, {self.alarms:3d}/{self.calm} false, "
                f"imminent {self.imminent}/{self.imminent_expected}")


def figures(items: list[Item], levels: list[str]) -> Figures:
    wrong = [i for i, level in zip(items, levels, strict=True)
             if (level in RAISED) != i.raised or (i.imminent and level != "imminent")]
    pairs = list(zip(items, levels, strict=True))
    return Figures(
        caught=sum(1 for i, lv in pairs if i.raised and lv in RAISED),
        escalate=sum(1 for i, _ in pairs if i.raised),
        alarms=sum(1 for i, lv in pairs if not i.raised and lv in RAISED),
        calm=sum(1 for i, _ in pairs if not i.raised),
        imminent=sum(1 for i, lv in pairs if i.imminent and lv == "imminent"),
        imminent_expected=sum(1 for i, _ in pairs if i.imminent), wrong=wrong)


def replaced_levels(items: list[Item], candidate: language_model.LoadedModel,
                    settings: dict) -> list[str]:
    """Levels with the candidate in the committed model's place, at ``settings``."""
    loaded = language_model.LoadedModel(
        candidate.session, candidate.tokenizer, settings["escalate_at"],
        settings["escalate_at_risk_words"], tuple(settings["agree_at"]),
        tuple(settings["agree_at_risk_words"]), tuple(settings["ordinary_below"]))
    with language_model.in_place_of(language_model.MODEL_DIR, loaded):
        return [apply_safety_floor({"level": "low"},
                                   crisis.detect_crisis(i.text, second_model=False))["level"]
                for i in items]


def _candidate_over(turn: Turn, plan_at: float, risk_at: float) -> bool:
    """The candidate's score at its threshold: ``risk_at`` beside a word of risk, else
    ``plan_at`` (as ``model_reader.second_threshold``)."""
    return turn.k >= (risk_at if turn.risk_words else plan_at)


def add_on_policies() -> dict[str, object]:
    """Rules added to the committed detector's own, by name."""
    policies: dict[str, object] = {"committed": lambda t: False}
    for plan_at, risk_at in ((0.999, 0.9995), (0.999, 0.999), (0.999, 0.99), (0.998, 0.99),
                             (0.998, 0.985), (0.998, 0.98), (0.995, 0.95), (0.99, 0.9),
                             (0.99, 0.8), (0.98, 0.6)):
        policies[f"candidate alone {plan_at}/{risk_at}"] = \
            lambda t, p=plan_at, w=risk_at: _candidate_over(t, p, w)
    # The candidate alone where the lexicons do not hold the words at a distance.
    for plan_at, risk_at in ((0.999, 0.998), (0.999, 0.99), (0.9985, 0.999), (0.998, 0.999),
                             (0.998, 0.99)):
        policies[f"candidate alone, not distanced {plan_at}/{risk_at}"] = \
            lambda t, p=plan_at, w=risk_at: _candidate_over(t, p, w) and not t.distanced
    # The candidate at a lower threshold where the committed model or the word reader also
    # rates the turn above a floor (their errors are partly their own).
    for k_plan, k_risk in ((0.99, 0.9), (0.98, 0.8), (0.95, 0.6), (0.9, 0.5)):
        for c_floor in (0.05, 0.2, 0.5):
            for r_floor in (0.3, 0.5, 0.7, 2.0):
                policies[f"k>={k_plan}/{k_risk} & (c>={c_floor} | r>={r_floor})"] = (
                    lambda t, p=k_plan, w=k_risk, cf=c_floor, rf=r_floor:
                    _candidate_over(t, p, w) and (t.c >= cf or t.r >= rf)
                    and not t.distanced)
    # Only in the words-of-risk gate (plans and means alone as the committed detector has it).
    for k_risk in (0.9, 0.8, 0.6, 0.5, 0.3):
        for c_floor in (0.05, 0.2, 0.5):
            for r_floor in (0.3, 0.5, 2.0):
                policies[f"risk words: k>={k_risk} & (c>={c_floor} | r>={r_floor})"] = (
                    lambda t, w=k_risk, cf=c_floor, rf=r_floor:
                    t.risk_words and t.k >= w and (t.c >= cf or t.r >= rf) and not t.distanced)
    for plan_at, risk_at in ((0.995, 0.95), (0.99, 0.9), (0.98, 0.8), (0.95, 0.7)):
        policies[f"mean(c,k) {plan_at}/{risk_at}"] = \
            lambda t, p=plan_at, w=risk_at: (t.c + t.k) / 2 >= (w if t.risk_words else p)
        policies[f"min(c,k) {plan_at / 2:.3f}/{risk_at / 2:.3f}"] = \
            lambda t, p=plan_at / 2, w=risk_at / 2: min(t.c, t.k) >= (w if t.risk_words else p)
    return policies


REPLACEMENTS = [
    {"escalate_at": e, "escalate_at_risk_words": w, "agree_at": a, "agree_at_risk_words": ar,
     "ordinary_below": [0.01, 0.15]}
    for e, w in ((0.998, 0.98), (0.995, 0.95), (0.99, 0.9))
    for a, ar in (([2.0, 2.0], [2.0, 2.0]), ([0.98, 0.85], [0.7, 0.65]))
]


def install(candidate: Path) -> None:
    """The candidate's graph and tokenizer as the detector's second model, with settings that
    say where they came from and at which thresholds it reads."""
    target = language_model.SECOND_DIR
    target.mkdir(exist_ok=True)
    for name in (language_model.MODEL_FILE, language_model.TOKENIZER_FILE):
        shutil.copyfile(candidate / name, target / name)
    trained = json.loads((candidate / language_model.SETTINGS_FILE).read_text(encoding="utf-8"))
    graph = (target / language_model.MODEL_FILE).read_bytes()
    settings = {
        "about": "Settings of the second model of services/analysis/crisis/model_reader.py, "
                 "trained by scripts/train_crisis_model.py --candidate and written by "
                 "scripts/choose_crisis_thresholds.py --install; do not edit by hand.",
        "base": trained["base"],
        "escalate_at": SECOND_ESCALATE_AT[0],
        "escalate_at_risk_words": SECOND_ESCALATE_AT[1],
        "max_tokens": trained["max_tokens"],
        "model_sha256": hashlib.sha256(graph).hexdigest(),
        "trained_on": trained["trained_on"],
    }
    (target / language_model.SETTINGS_FILE).write_text(json.dumps(settings, indent=1) + "\n",
                                                       encoding="utf-8")
    print(f"wrote {target}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("candidate", type=Path, help="the candidate's model directory")
    parser.add_argument("--show", action="store_true",
                        help="list the statements of (a) and (b) each policy gets wrong")
    parser.add_argument("--max-alarms", type=int, default=0,
                        help="(a) false alarms a policy may add to the committed detector's")
    parser.add_argument("--install", action="store_true",
                        help="copy the candidate to services/analysis/crisis/second_model/ with "
                             "SECOND_ESCALATE_AT as its settings")
    parser.add_argument("--writers", type=int, nargs="+", default=None,
                        help="(a) from these writers' tuning halves instead of CHOICE_SETS "
                             "(writers no installed model was trained on: 24, 25, 27-29)")
    args = parser.parse_args()
    choice_sets = CHOICE_SETS if args.writers is None else tuple(
        f"crisis_statements_writer{n}.json" for n in args.writers)
    if args.install:
        install(args.candidate)
        return 0
    committed_model, candidate_model = language_model.model(), language_model.load(args.candidate)
    committed, candidate = scorer(committed_model), scorer(candidate_model)
    sets = {"a": choice_items(choice_sets), "b": test_items(), "c": ordinary_items()}
    found = {name: [features(i, committed, candidate) for i in items]
             for name, items in sets.items()}
    results: list[tuple[str, dict[str, Figures]]] = []
    for name, rule in add_on_policies().items():
        results.append((name, {s: figures(sets[s], [outcome(f, rule) for f in found[s]])
                               for s in sets}))
    for settings in REPLACEMENTS:
        name = (f"replace {settings['escalate_at']}/{settings['escalate_at_risk_words']} "
                f"agree {settings['agree_at']}/{settings['agree_at_risk_words']}")
        results.append((name, {s: figures(items, replaced_levels(items, candidate_model,
                                                                 settings))
                               for s, items in sets.items()}))
    base = results[0][1]
    base_wrong_b = {i.text for i in base["b"].wrong}
    print(f"(a) tuning halves of {len(choice_sets)} sets: {len(sets['a'])}; (b) test statements: "
          f"{len(sets['b'])}; (c) ordinary turns: {len(sets['c'])}")
    for name, figs in results:
        broken = [i for i in figs["b"].wrong if i.text not in base_wrong_b]
        keeps = not broken and figs["c"].alarms <= base["c"].alarms and \
            figs["a"].alarms <= base["a"].alarms + args.max_alarms
        print(f"{'*' if keeps else ' '} {name:48s} (a) {figs['a'].line()} | (b) wrong "
              f"{len(figs['b'].wrong)} (new {len(broken)}) | (c) raised {figs['c'].alarms}")
        if args.show:
            for item in broken:
                print(f"      (b) {item.text!r} expected raised={item.raised}")
    if args.show:
        print("\n(a) the committed detector's misses and false alarms:")
        for item in base["a"].wrong:
            print(f"   {item.source} raised={item.raised} {item.text!r}")
    print("* keeps (b) and (c) as the committed detector has them, and (a)'s false alarms "
          f"within {args.max_alarms} of its")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
