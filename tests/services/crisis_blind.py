"""The blind crisis-statement sets: one deterministic split into a tuning half and a held-out
half, and the figures docs/safety-floor.md reports.

Each set was written by someone who never read the detector (``data/crisis_statements_*.json``,
one file per writer). Only the tuning half may be looked at while changing the detector; the
held-out half is measured, never read.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

from services.analysis.crisis import apply_safety_floor, detect_crisis

# Every set written apart from the detector, each by a writer who never read it.
BLIND_SETS = sorted((Path(__file__).parent / "data").glob("crisis_statements_*.json"))
# Sets written the same way but read in full while the detector was changed: no held-out
# half, so their figures say how it does on what it was tuned on, and are reported apart.
READ_SETS = sorted((Path(__file__).parent / "data").glob("crisis_read_*.json"))
TUNING = "tuning"
HELD_OUT = "held_out"
ESCALATED_LEVELS = ("high", "imminent")


def _stable_rank(statement_id: str) -> str:
    return hashlib.sha256(f"crisis-blind-split:{statement_id}".encode()).hexdigest()


def load_statements(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["statements"]


def split_one_set(path: Path) -> dict[str, list[dict]]:
    """Split one set in two halves, stratified by kind: within each kind the statements are
    ordered by a hash of their id and dealt alternately, so each half holds every kind and the
    split never changes when the detector does."""
    statements = load_statements(path)
    by_kind: dict[str, list[dict]] = {}
    for statement in statements:
        by_kind.setdefault(statement["kind"], []).append(statement)
    halves: dict[str, list[dict]] = {TUNING: [], HELD_OUT: []}
    for kind_number, kind in enumerate(sorted(by_kind)):
        ordered = sorted(by_kind[kind], key=lambda s: _stable_rank(s["id"]))
        # Kinds with an odd count give their extra statement to alternating halves.
        for index, statement in enumerate(ordered, start=kind_number):
            halves[TUNING if index % 2 == 0 else HELD_OUT].append(statement)
    return halves


def split_blind_set(paths: list[Path] | None = None) -> dict[str, list[dict]]:
    """The halves of every blind set together, each set split on its own (so adding a set
    never moves a statement of another between halves)."""
    halves: dict[str, list[dict]] = {TUNING: [], HELD_OUT: []}
    for path in BLIND_SETS if paths is None else paths:
        for half, statements in split_one_set(path).items():
            halves[half] += statements
    return halves


@dataclass(frozen=True)
class BlindFigures:
    escalate: int
    caught: int
    no_escalate: int
    false_alarms: int
    imminent_expected: int
    imminent_caught: int
    soft_cues: int
    soft_cues_reviewed: int

    @property
    def recall(self) -> float:
        return self.caught / self.escalate

    @property
    def false_alarm_rate(self) -> float:
        return self.false_alarms / self.no_escalate

    def line(self) -> str:
        return (
            f"recall {self.caught}/{self.escalate} ({self.recall:.0%}), "
            f"false alarms {self.false_alarms}/{self.no_escalate} ({self.false_alarm_rate:.0%}), "
            f"imminent {self.imminent_caught}/{self.imminent_expected}, "
            f"soft cues at moderate {self.soft_cues_reviewed}/{self.soft_cues}"
        )


def measure(statements: list[dict], levels: list[str]) -> BlindFigures:
    """Figures for levels ("low" … "imminent") given to ``statements`` in the same order."""
    pairs = list(zip(statements, levels, strict=True))
    return BlindFigures(
        escalate=sum(1 for s, _ in pairs if s["escalate"]),
        caught=sum(1 for s, level in pairs if s["escalate"] and level in ESCALATED_LEVELS),
        no_escalate=sum(1 for s, _ in pairs if not s["escalate"]),
        false_alarms=sum(
            1 for s, level in pairs if not s["escalate"] and level in ESCALATED_LEVELS
        ),
        imminent_expected=sum(1 for s, _ in pairs if s["expected_band"] == "imminent"),
        imminent_caught=sum(
            1 for s, level in pairs if s["expected_band"] == "imminent" and level == "imminent"
        ),
        soft_cues=sum(1 for s, _ in pairs if s["expected_band"] == "moderate"),
        soft_cues_reviewed=sum(
            1 for s, level in pairs if s["expected_band"] == "moderate" and level == "moderate"
        ),
    )


def detector_level(statement: dict) -> str:
    """The level the analysis reports for the statement as a patient line, over a "low"."""
    assessment = detect_crisis(f"Patient: {statement['text']}")
    return apply_safety_floor({"level": "low"}, assessment)["level"]


def measure_detector(statements: list[dict]) -> BlindFigures:
    """The detector's figures on ``statements``."""
    return measure(statements, [detector_level(statement) for statement in statements])
