"""The trained reader: a second opinion on one patient turn, learned from statements.

A linear model over word and word-pair frequencies (TF-IDF, logistic regression) trained on
the tuning halves of the statement sets written apart from the detector, plainly worded
disclosures and ordinary session talk (``scripts/train_crisis_reader.py``; the weights are
``reader_model.json`` beside this file). It catches wording the concept lexicons have no entry
for ("I won't be a problem much longer", "the rope in the barn is for me").

It only ever adds a signal, never removes one: it reads a turn only when the lexicons found a
word of risk in it (death, self-harm, a method or means, a farewell, a burden …) asserted as the
patient's own, and speaks only at a high probability. Trained on statements, it is not
reliable enough to overrule a lexicon finding: in cross-validation, letting it do so turned
plain disclosures ("I really want to die") into misses.

Scoring is plain Python, the same arithmetic as scikit-learn's ``TfidfVectorizer`` and
``LogisticRegression.predict_proba`` (a test compares them), so the service does not load
scikit-learn, NumPy or SciPy for it.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cache
from itertools import pairwise
from pathlib import Path

from services.analysis.crisis.assertion import asserted_concepts
from services.analysis.crisis.reading import Sentence, names

MODEL_PATH = Path(__file__).with_name("reader_model.json")
# scikit-learn's default token pattern: runs of two or more word characters.
_TOKEN = re.compile(r"(?u)\b\w\w+\b")
# Lexicon concepts that make a turn worth the reader's time (lexicon.json): words of death,
# self-harm, methods and means, preparation, farewells and burden. Modifiers (negation, time,
# someone else) and bare verbs (want, think) do not.
RISK_CONCEPTS = frozenset({
    "burden", "death_weak", "death_wish", "farewell", "hope_doubted", "hopeless",
    "past_act", "preparation", "preparation_weak", "self_harm_act", "self_harm_cue",
    "self_harm_deliberate", "self_kill", "self_kill_weak", "survival_regret", "worth_living",
})


@dataclass(frozen=True)
class ReaderModel:
    weights: dict[str, tuple[float, float]]  # term -> (idf, coefficient)
    intercept: float
    escalate_at: float  # probability at or above which a turn is a risk statement


@cache
def model() -> ReaderModel:
    raw = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    return ReaderModel(weights={term: (idf, coef) for term, idf, coef in raw["terms"]},
                       intercept=raw["intercept"], escalate_at=raw["escalate_at"])


def terms(text: str) -> list[str]:
    """Words and adjacent word pairs, lower-cased, as the vectorizer counts them."""
    tokens = _TOKEN.findall(text.lower())
    return tokens + [f"{a} {b}" for a, b in pairwise(tokens)]


def score(text: str, reader: ReaderModel | None = None) -> float:
    """The probability (0..1) that the statement discloses current suicide or self-harm risk."""
    reader = reader or model()
    counts = Counter(term for term in terms(text) if term in reader.weights)
    if not counts:
        return _sigmoid(reader.intercept)
    # Sublinear term frequency times idf, L2-normalised, then the linear model.
    values = {term: (1.0 + math.log(count)) * reader.weights[term][0]
              for term, count in counts.items()}
    norm = math.sqrt(sum(value * value for value in values.values()))
    logit = reader.intercept + sum(value / norm * reader.weights[term][1]
                                   for term, value in values.items())
    return _sigmoid(logit)


def worth_reading(sentences: list[Sentence]) -> bool:
    """Whether the lexicons found a word of risk in the turn asserted as the patient's own
    present experience (not denied, hypothetical, someone else's, studied or long past):
    word counts cannot tell "I don't want to die" from "I want to die", the assertion
    reading can."""
    if not names(sentences, RISK_CONCEPTS):
        return False  # most turns: no word of risk at all, no assertion reading needed
    return any(mention.concept in RISK_CONCEPTS
               for mentions in asserted_concepts(sentences) for mention in mentions)


def _sigmoid(logit: float) -> float:
    if logit >= 0:
        return 1.0 / (1.0 + math.exp(-logit))
    odds = math.exp(logit)
    return odds / (1.0 + odds)
