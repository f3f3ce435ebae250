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

from services.analysis.crisis import model_reader as language_model  # noqa: E402
from tests.services.crisis_blind import (  # noqa: E402
    HELD_OUT,
    READ_SETS,
    TUNING,
    load_statements,
    measure_detector,
    split_blind_set,
)


def candidate(directory: Path, at: tuple[float, float] | None) -> language_model.LoadedModel:
    """The candidate, at ``at`` or the installed second model's thresholds."""
    installed = language_model.second()
    plan_at, risk_at = at or (installed.escalate_at, installed.escalate_at_risk_words)
    return dataclasses.replace(language_model.load(directory), escalate_at=plan_at,
                               escalate_at_risk_words=risk_at)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("candidate", type=Path, help="the candidate's model directory")
    parser.add_argument("--at", type=float, nargs=2, metavar=("PLAN", "RISK"),
                        help="the candidate's thresholds (default: the installed model's)")
    args = parser.parse_args()
    trying = candidate(args.candidate, tuple(args.at) if args.at else None)
    with language_model.in_place_of(language_model.SECOND_DIR, trying):
        halves = split_blind_set()
        for half in (TUNING, HELD_OUT):
            print(f"{half}: {measure_detector(halves[half]).line()}", flush=True)
        for path in READ_SETS:
            print(f"read in full, {path.name}: "
                  f"{measure_detector(load_statements(path)).line()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
