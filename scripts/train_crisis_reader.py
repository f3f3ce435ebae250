"""Train the crisis detector's reader (services/analysis/crisis/reader.py) and write its weights.

    .venv/bin/python scripts/train_crisis_reader.py [--cross-validate]

Trains on
* the tuning halves of every statement set written apart from the detector
  (tests/services/data/crisis_statements_*.json, split by tests/services/crisis_blind.py; the
  held-out halves are never read here);
* plainly worded disclosures and risk-free statements (reader_training_plain.json), so that
  the reader does not learn that a statement with the word "suicide" in it is safe, which the
  statement sets alone teach (their safe statements are full of risk words in denials and
  other people's stories, and their risky ones often avoid them);
* ordinary patient turns of therapy sessions and intake calls (reader_training_ordinary_*.json)
  and risk-free turns that use risky words (a bridge club tonight, pills cut in half, a rifle
  for hunting: reader_training_risky_words.json), so that everyday talk stays quiet.
Needs scikit-learn (requirements-dev.txt); the service itself only reads the JSON this writes.

--cross-validate prints how the threshold was chosen: each of the writers 5-8 in turn is left
out, the reader is trained on everything else (a quarter of the extra material is left out with
it), and the left-out writer's tuning half is scored with the lexicon detector beside it.
When the reader was added, those four writers' statements had not been used to tune the
lexicons, so the lexicons' findings on them were as on new wording (docs/safety-floor.md); the
lexicons have since been tuned on these tuning halves, so run now it shows tuning figures for
the lexicons and the reader's addition on top of them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sklearn.feature_extraction.text import TfidfVectorizer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

from services.analysis.crisis.reader import MODEL_PATH  # noqa: E402
from services.analysis.transcript import normalize_text  # noqa: E402
from tests.services.crisis_blind import TUNING, split_blind_set  # noqa: E402

DATA = ROOT / "tests" / "services" / "data"
# Chosen by --cross-validate: the reader adds a statement the lexicons missed at this
# probability, with no false alarm on ordinary turns.
ESCALATE_AT = 0.9
C = 30.0
MIN_DF = 2
# Sets never used to tune the lexicons: the cross-validation's test writers.
FRESH_WRITERS = ("w5", "w6", "w7", "w8")


def writer(statement: dict) -> str:
    """"w5" for "w5_012" and "w17" for "w17-161" (later writers' ids); the first set's ids
    ("b064") name no writer."""
    return re.split(r"[_-]", statement["id"])[0] if re.match(r"w\d+[_-]", statement["id"]) \
        else "w1"


# What this reader is trained on, named, so that material added later for the language model
# (scripts/train_crisis_model.py: writers 9-11, reader_training_denials.json) leaves this
# reader as it was validated. Retrained on that material it raised an idiom ("killing myself
# at the gym", 0.92) and dropped "I want to die haha" (0.88) of tests/services/test_crisis.py.
READER_SETS = ("crisis_statements_blind.json",
               *(f"crisis_statements_writer{n}.json" for n in range(2, 9)))
READER_EXTRA = ("reader_training_ordinary_a.json", "reader_training_ordinary_b.json",
                "reader_training_plain.json", "reader_training_risky_words.json")


def reader_tuning() -> list[dict]:
    """The tuning halves this reader is trained on (READER_SETS)."""
    return split_blind_set([DATA / name for name in READER_SETS])[TUNING]


def extra_material(names: tuple[str, ...] | None = READER_EXTRA) -> list[dict]:
    """reader_training_*.json (those named, or all with None): labelled "statements", or
    risk-free "turns"."""
    rows: list[dict] = []
    paths = sorted(DATA.glob("reader_training_*.json")) if names is None else \
        [DATA / name for name in names]
    for path in paths:
        content = json.loads(path.read_text(encoding="utf-8"))
        rows += [{"text": s["text"], "escalate": s["escalate"]}
                 for s in content.get("statements", [])]
        rows += [{"text": turn, "escalate": False} for turn in content.get("turns", [])]
    return rows


def fit(rows: list[dict]) -> tuple[TfidfVectorizer, LogisticRegression]:
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=MIN_DF, sublinear_tf=True)
    matrix = vectorizer.fit_transform([normalize_text(row["text"]) for row in rows])
    classifier = LogisticRegression(C=C, max_iter=5000, class_weight="balanced")
    classifier.fit(matrix, [row["escalate"] for row in rows])
    return vectorizer, classifier


def to_json(vectorizer: TfidfVectorizer, classifier: LogisticRegression) -> dict:
    coefficients = classifier.coef_[0]
    return {
        "about": "Weights of services/analysis/crisis/reader.py, written by "
                 "scripts/train_crisis_reader.py; do not edit by hand.",
        "escalate_at": ESCALATE_AT,
        "intercept": round(float(classifier.intercept_[0]), 6),
        "terms": [[term, round(float(vectorizer.idf_[column]), 6),
                   round(float(coefficients[column]), 6)]
                  for term, column in sorted(vectorizer.vocabulary_.items())],
    }


def cross_validate(tuning: list[dict], extra: list[dict]) -> None:
    from services.analysis.crisis import apply_safety_floor, detect_crisis, reader
    from services.analysis.crisis.reading import read_turn

    def lexicons_escalate(text: str) -> bool:
        assessment = detect_crisis(f"Patient: {text}", trained_reader=False)
        level = apply_safety_floor({"level": "low"}, assessment)["level"]
        return level in ("high", "imminent")

    counts = dict.fromkeys(("caught", "escalate", "alarms", "calm", "lexicon_caught",
                            "lexicon_alarms", "ordinary_raised", "ordinary"), 0)
    for fold, left_out in enumerate(FRESH_WRITERS):
        held_extra = [row for i, row in enumerate(extra) if i % 4 == fold]
        train = [s for s in tuning if writer(s) != left_out] + \
                [row for i, row in enumerate(extra) if i % 4 != fold]
        raw = to_json(*fit(train))
        model = reader.ReaderModel({t: (i, c) for t, i, c in raw["terms"]}, raw["intercept"],
                                   ESCALATE_AT)

        def raised(text: str, model: reader.ReaderModel = model) -> bool:
            text = normalize_text(text)
            return (reader.worth_reading(read_turn(text))
                    and reader.score(text, model) >= model.escalate_at)

        for statement in (s for s in tuning if writer(s) == left_out):
            lexicons = lexicons_escalate(statement["text"])
            escalated = lexicons or raised(statement["text"])
            key = "escalate" if statement["escalate"] else "calm"
            counts[key] += 1
            counts["caught" if statement["escalate"] else "alarms"] += escalated
            counts["lexicon_caught" if statement["escalate"] else "lexicon_alarms"] += lexicons
        ordinary = [row for row in held_extra if not row["escalate"]]
        counts["ordinary"] += len(ordinary)
        counts["ordinary_raised"] += sum(raised(row["text"]) for row in ordinary)
    print(f"writers 5-8, each left out in turn ({counts['escalate']} to escalate, "
          f"{counts['calm']} not):\n"
          f"  lexicons alone:     recall {counts['lexicon_caught'] / counts['escalate']:.1%}, "
          f"false alarms {counts['lexicon_alarms'] / counts['calm']:.1%}\n"
          f"  lexicons + reader:  recall {counts['caught'] / counts['escalate']:.1%}, "
          f"false alarms {counts['alarms'] / counts['calm']:.1%}\n"
          f"  risk-free turns the reader raised: {counts['ordinary_raised']} of "
          f"{counts['ordinary']}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cross-validate", action="store_true")
    args = parser.parse_args()
    tuning, extra = reader_tuning(), extra_material()
    if args.cross_validate:
        cross_validate(tuning, extra)
        return 0
    MODEL_PATH.write_text(json.dumps(to_json(*fit(tuning + extra)), separators=(",", ":"))
                          + "\n", encoding="utf-8")
    print(f"wrote {MODEL_PATH.relative_to(ROOT)} from {len(tuning)} tuning statements and "
          f"{len(extra)} others")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
