"""Crisis detection measured on statements written apart from the detector (README figures).

Only the tuning half was looked at while the detector was changed; the held-out half is
measured here and nowhere read. Run with ``-s`` to see the figures.
"""

from __future__ import annotations

from services.analysis.crisis import apply_safety_floor, detect_crisis
from services.analysis.crisis.phrases import detect_phrases
from tests.services.crisis_blind import HELD_OUT, TUNING, measure, split_blind_set

# The goals (recall >= 90 %, false alarms <= 10 %) are NOT met on the held-out half:
# measured 28/74 (38 %) and 6/55 (11 %). These floors guard the measured figures against
# regression; they are not the goals.
MEASURED_MIN_RECALL = 0.37
MEASURED_MAX_FALSE_ALARMS = 0.11


def _level(statement: dict) -> str:
    """The level the analysis reports for the statement as a patient line, over a "low"."""
    assessment = detect_crisis(f"Patient: {statement['text']}")
    return apply_safety_floor({"level": "low"}, assessment)["level"]


def _figures(half: str):
    statements = split_blind_set()[half]
    return measure(statements, [_level(statement) for statement in statements])


def test_split_is_stable_and_covers_every_kind():
    halves = split_blind_set()
    tuning_ids = {s["id"] for s in halves[TUNING]}
    held_ids = {s["id"] for s in halves[HELD_OUT]}
    assert not tuning_ids & held_ids
    assert {s["kind"] for s in halves[TUNING]} == {s["kind"] for s in halves[HELD_OUT]}
    assert abs(len(tuning_ids) - len(held_ids)) <= 5
    assert split_blind_set()[HELD_OUT] == halves[HELD_OUT]


def test_blind_set_figures():
    tuning, held_out = _figures(TUNING), _figures(HELD_OUT)
    print(f"\ntuning half:   {tuning.line()}\nheld-out half: {held_out.line()}")
    assert held_out.recall >= MEASURED_MIN_RECALL
    assert held_out.false_alarm_rate <= MEASURED_MAX_FALSE_ALARMS


def test_concept_reading_catches_more_than_the_phrases_alone_on_the_held_out_half():
    statements = split_blind_set()[HELD_OUT]
    phrases = measure(statements, [detect_phrases(f"Patient: {s['text']}").level or "low"
                                   for s in statements])
    combined = _figures(HELD_OUT)
    print(f"\nheld-out, phrases only: {phrases.line()}")
    assert combined.caught >= 2 * phrases.caught
