"""The trained reader (services/analysis/crisis/reader.py): its arithmetic is scikit-learn's,
its weights are what the training script makes of the committed data, and it only ever adds.
Measured without the language model (test_crisis_model_reader.py), to see this reader alone."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

from services.analysis.crisis import RISK_STATEMENT, detect_crisis, reader
from services.analysis.crisis.reading import read_turn

ROOT = Path(__file__).resolve().parents[2]


def _training_script():
    spec = importlib.util.spec_from_file_location(
        "train_crisis_reader", ROOT / "scripts" / "train_crisis_reader.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _model_from(raw: dict) -> reader.ReaderModel:
    return reader.ReaderModel({term: (idf, coef) for term, idf, coef in raw["terms"]},
                              raw["intercept"], raw["escalate_at"])


def test_scoring_is_scikit_learns_arithmetic():
    texts = ["I want to go to sleep and not wake up.", "We went to the lake on Sunday.",
             "I've been thinking about the pills in the cabinet.", "My sister is visiting.",
             "Everyone would be better off without me.", "Work was fine, a bit long."]
    labels = [True, False, True, False, True, False]
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), min_df=1, sublinear_tf=True)
    classifier = LogisticRegression(C=30.0, max_iter=5000).fit(vectorizer.fit_transform(texts),
                                                               labels)
    model = _model_from(_training_script().to_json(vectorizer, classifier))
    probes = [*texts, "the pills, the lake and the cabinet", "nothing the model has seen", ""]
    expected = classifier.predict_proba(vectorizer.transform(probes))[:, 1]
    for text, probability in zip(probes, expected, strict=True):
        assert reader.score(text, model) == pytest.approx(probability, abs=1e-5)


def test_committed_weights_are_what_the_script_trains():
    script = _training_script()

    trained = script.to_json(*script.fit(script.reader_tuning() + script.extra_material()))
    committed = json.loads(reader.MODEL_PATH.read_text(encoding="utf-8"))
    assert committed["escalate_at"] == trained["escalate_at"]
    assert committed["intercept"] == pytest.approx(trained["intercept"], abs=1e-4)
    assert [t[0] for t in committed["terms"]] == [t[0] for t in trained["terms"]]
    for (_, idf, coef), (_, idf2, coef2) in zip(committed["terms"], trained["terms"],
                                                strict=True):
        assert idf == pytest.approx(idf2, abs=1e-4) and coef == pytest.approx(coef2, abs=1e-3)


def test_the_reader_never_reads_its_own_training_held_out_halves():
    """The held-out halves stay unseen: the script trains on the tuning halves only."""
    from tests.services.crisis_blind import HELD_OUT, TUNING, split_blind_set

    halves = split_blind_set()
    script = _training_script()
    seen = {row["text"] for row in halves[TUNING] + script.extra_material(None)}
    assert not any(statement["text"] in seen for statement in halves[HELD_OUT])


# Tuning-half statements (training material) the lexicons alone leave below "high": they show
# the mechanism; how far it generalises is what the held-out halves measure.
READER_ADDS = ["b212", "w6_125"]


@pytest.mark.parametrize("statement_id", READER_ADDS)
def test_the_reader_adds_what_the_lexicons_miss(statement_id):
    from tests.services.crisis_blind import TUNING, split_blind_set

    [statement] = [s for s in split_blind_set()[TUNING] if s["id"] == statement_id]
    text = f"Patient: {statement['text']}"
    assert detect_crisis(text, trained_reader=False, model_reader=False).level is None
    assessment = detect_crisis(text, model_reader=False)
    assert assessment.level == "high"
    assert [signal.kind for signal in assessment.signals] == [RISK_STATEMENT]
    assert "reads as current suicide or self-harm risk" in assessment.signals[0].factor


@pytest.mark.parametrize("text", [
    "Patient: I don't want to die, I want the pain to stop.",
    "Patient: My cousin wrote letters to everyone before he died.",
    "Patient: We're going to the lake this weekend with the kids.",
    "Patient: Yeah. He knows I'm struggling.",
])
def test_denials_other_people_and_ordinary_talk_are_not_read(text):
    sentences = read_turn(text.split(":", 1)[1])
    assert not reader.worth_reading(sentences) or reader.score(text) < \
        reader.model().escalate_at
    assert RISK_STATEMENT not in {signal.kind for signal in
                                  detect_crisis(text, model_reader=False).signals}


def test_the_reader_never_lowers_or_replaces_a_lexicon_finding():
    text = "Patient: I really want to die. I have the pills saved up for Friday."
    with_reader = detect_crisis(text, model_reader=False)
    without = detect_crisis(text, trained_reader=False, model_reader=False)
    assert with_reader == without and with_reader.level == "imminent"
