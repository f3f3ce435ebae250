"""The safety floor on whole sessions written apart from it (``crisis_sessions``): every
session with a disclosure is escalated; the figures for ordinary sessions are printed (run with
``-s``) and reported in docs/safety-floor.md."""

from __future__ import annotations

import pytest

from tests.services import crisis_sessions as sessions


@pytest.mark.parametrize("half", ["a", "b", "c"])
def test_every_disclosure_line_is_a_patient_line_of_its_session(half):
    for session in sessions.load("disclosure", half):
        lines = session["transcript"].splitlines()
        for line in session["disclosure"].splitlines():
            assert line in lines and line.startswith("Patient: "), session["id"]


@pytest.mark.parametrize("half", ["a", "b", "c"])
def test_sessions_with_a_disclosure_are_escalated(half):
    figures = sessions.measure(sessions.load("ordinary", half),
                               sessions.load("disclosure", half))
    print(f"\nsessions {half} ({'tuning' if half == 'a' else 'held out'}): {figures.line()}")
    assert figures.disclosures_escalated == figures.disclosures


def test_a_statement_reads_the_same_after_an_opening_turn():
    """A disclosure with no lead-up in a session: the held-out statements after a neutral
    opening question are raised exactly as they are alone."""
    from services.analysis.crisis import detect_crisis
    from tests.services.crisis_blind import HELD_OUT, split_blind_set

    for statement in split_blind_set()[HELD_OUT]:
        alone = detect_crisis(f"Patient: {statement['text']}").level
        assert detect_crisis(sessions.in_conversation(statement["text"])).level == alone, \
            statement["id"]
