"""Measure the crisis detector with a candidate second model in the installed one's place,
without installing it: the figures tests/services/test_crisis_blind.py prints (tuning halves,
held-out halves, writer 26's set read in full), for a candidate trained by
``scripts/train_crisis_model.py --candidate DIR``.

    .venv/bin/python scripts/measure_crisis_candidate.py DIR [--at PLAN RISK]

In this process only, the candidate adds risk statements as the second model does, at
``--at`` (plans, methods or means alone / a word of risk; the installed thresholds unless
told). Doubting stays with the doubting model (``model_reader.doubter``). Only counts of the
held-out halves are printed, as the blind test prints them.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from services.analysis.crisis import apply_safety_floor, detect_crisis  # noqa: E402
from services.analysis.crisis import model_reader as language_model  # noqa: E402
from tests.services.crisis_blind import (  # noqa: E402
    HELD_OUT,
    READ_SETS,
    TUNING,
    load_statements,
    measure,
    split_blind_set,
)


def use_candidate(directory: Path, at: tuple[float, float] | None) -> None:
    """The candidate as the detector's second model, at ``at`` or the installed thresholds."""
    installed = language_model.second()
    plan_at, risk_at = at or (installed.escalate_at, installed.escalate_at_risk_words)
    language_model._second = dataclasses.replace(
        language_model._load(directory), escalate_at=plan_at, escalate_at_risk_words=risk_at)


def _level(statement: dict) -> str:
    return apply_safety_floor({"level": "low"},
                              detect_crisis(f"Patient: {statement['text']}"))["level"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("candidate", type=Path, help="the candidate's model directory")
    parser.add_argument("--at", type=float, nargs=2, metavar=("PLAN", "RISK"),
                        help="the candidate's thresholds (default: the installed model's)")
    args = parser.parse_args()
    use_candidate(args.candidate, tuple(args.at) if args.at else None)
    halves = split_blind_set()
    for half in (TUNING, HELD_OUT):
        statements = halves[half]
        print(f"{half}: {measure(statements, [_level(s) for s in statements]).line()}",
              flush=True)
    for path in READ_SETS:
        statements = load_statements(path)
        print(f"read in full, {path.name}: "
              f"{measure(statements, [_level(s) for s in statements]).line()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
