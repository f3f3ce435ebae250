"""Whole sessions written apart from the detector (``data/sessions/``): ordinary sessions,
which the safety floor must not escalate, and sessions in which the patient discloses risk
somewhere in the middle, which it must. Files ending in ``_a`` are the tuning material, files
ending in ``_b`` and ``_c`` are held out (measured, never read while changing the detector).

The statement sets (``crisis_blind``) are single statements; these measure what a clinic
sees: a whole transcript, where ordinary words combine by accident and "it" has an antecedent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from services.analysis.crisis import detect_crisis

SESSIONS_DIR = Path(__file__).parent / "data" / "sessions"
# The benchmark's three 5,000-word ordinary sessions, written apart as well; tuning material.
BENCH_SESSIONS_DIR = Path(__file__).resolve().parents[2] / "bench" / "data"
ESCALATED = ("high", "imminent")


def load(kind: str, half: str) -> list[dict]:
    """``kind``: "ordinary" or "disclosure"; ``half``: "a" (tuning), "b" or "c" (held out).
    The ordinary tuning sessions include the benchmark's."""
    path = SESSIONS_DIR / f"{kind}_sessions_{half}.json"
    sessions = json.loads(path.read_text(encoding="utf-8"))["sessions"]
    return sessions + bench_sessions() if (kind, half) == ("ordinary", "a") else sessions


def bench_sessions() -> list[dict]:
    """The benchmark's sessions (``bench/data/session_*.txt``), as ``load`` gives sessions."""
    return [{"id": path.stem.removeprefix("session_"),
             "transcript": path.read_text(encoding="utf-8")}
            for path in sorted(BENCH_SESSIONS_DIR.glob("session_*.txt"))]


@dataclass(frozen=True)
class SessionFigures:
    ordinary: int
    ordinary_escalated: int
    disclosures: int
    disclosures_escalated: int
    imminent_expected: int
    imminent_caught: int

    def line(self) -> str:
        return (f"ordinary sessions escalated {self.ordinary_escalated}/{self.ordinary}, "
                f"disclosure sessions escalated {self.disclosures_escalated}/"
                f"{self.disclosures}, imminent {self.imminent_caught}/{self.imminent_expected}")


def measure(ordinary: list[dict], disclosures: list[dict], **options) -> SessionFigures:
    ordinary_levels = [detect_crisis(s["transcript"], **options).level for s in ordinary]
    disclosure_levels = [detect_crisis(s["transcript"], **options).level for s in disclosures]
    return SessionFigures(
        ordinary=len(ordinary),
        ordinary_escalated=sum(level in ESCALATED for level in ordinary_levels),
        disclosures=len(disclosures),
        disclosures_escalated=sum(level in ESCALATED for level in disclosure_levels),
        imminent_expected=sum(s["expected_level"] == "imminent" for s in disclosures),
        imminent_caught=sum(s["expected_level"] == "imminent" and level == "imminent"
                            for s, level in zip(disclosures, disclosure_levels, strict=True)),
    )


# A neutral opening before a statement of the blind sets: the statement as a turn of a
# conversation, where nothing before it spoke of suicide or self-harm.
OPENING = "Clinician: Thanks for coming in. How has this week been?\nPatient: "


def in_conversation(statement: str) -> str:
    return OPENING + statement
