"""The language-model reader: a fine-tuned sentence encoder's opinion on patient turns.

all-MiniLM-L6-v2 fine-tuned to tell a disclosure of current suicide or self-harm risk from
everything else (``scripts/train_crisis_model.py``; the quantized graph, its tokenizer and its
threshold are in ``model/`` beside this file). Unlike the lexicons it reads wording nobody
wrote an entry for, and unlike the word-count reader it reads word order.

Alone it only ever adds a signal; with the word-count reader it also adds at lower thresholds
and sends plans and means both rate as ordinary talk to review (``services.analysis.crisis``).
It reads the patient turns in which the lexicons found any word of risk, method, means or
plan, asserted or not (of a long turn, only the windows that do), so an ordinary session costs
a few model calls, not one per turn or window. Runs with onnxruntime on one thread per call
(the web server's threads and the workers are the parallelism).

A second model (``second_model/``: the same base trained on about three times the material,
``scripts/train_crisis_model.py --candidate --through 23``) reads the same turns and adds a
risk statement alone where it is near certain (``second_threshold``) and the lexicons hold
none of the turn's words of risk at a distance; its thresholds are written by
``scripts/choose_crisis_thresholds.py``. It only adds: it is asked only when the committed
model and the word reader did not raise a turn.

A third, the doubting model (``doubt_model/``: the second model before it was retrained,
``--through 17``), only doubts: a lexicon finding beside a modifier, or an everyday
preparation, goes to review when every trained reader, this one included, hears no risk in
it. The retrained second model rates every word of risk higher and so rarely hears none: as
the doubter it let 12 more of the held-out halves' safe statements through
(docs/safety-floor.md).
"""

from __future__ import annotations

import functools
import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from services.analysis.crisis.assertion import told_as_an_accident
from services.analysis.crisis.reader import RISK_CONCEPTS
from services.analysis.crisis.reading import Mention, Sentence, names, read_turn, run_on_pieces

MODEL_DIR = Path(__file__).with_name("model")
SECOND_DIR = Path(__file__).with_name("second_model")
DOUBT_DIR = Path(__file__).with_name("doubt_model")
# Every model the detector runs: the committed, the second and the doubting model.
MODEL_DIRS = (MODEL_DIR, SECOND_DIR, DOUBT_DIR)
MODEL_FILE = "crisis_model.onnx"
TOKENIZER_FILE = "tokenizer.json"
SETTINGS_FILE = "settings.json"
# A turn longer than this is read in windows of whole sentences (the model reads 128 tokens).
WINDOW_WORDS = 80
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# Lexicon concepts that make a patient turn worth the model's time: the word-count reader's
# words of risk, and methods, means (medicines included), plans and intent, asserted or not.
GATE_CONCEPTS = RISK_CONCEPTS | frozenset({
    "access", "acquired", "act_pronoun", "covert", "dark_state", "firearm", "intent", "means",
    "method", "method_weak", "plan",
})

_lock = threading.Lock()
# Each model directory's model, loaded once per process.
_loaded: dict[Path, LoadedModel] = {}


@dataclass(frozen=True)
class LoadedModel:
    session: object  # onnxruntime.InferenceSession
    tokenizer: object  # tokenizers.Tokenizer
    escalate_at: float  # at or above: a risk statement where the lexicons found none
    # The same for a turn naming a word of risk (RISK_CONCEPTS) the lexicons did not take as
    # asserted; methods, means and plans alone need escalate_at.
    escalate_at_risk_words: float
    # Lower thresholds where the word-count reader agrees (both at or above theirs): each
    # reader's errors are partly its own, so agreement is evidence neither gives alone.
    # (model, word reader) for a turn naming only methods, means or plans / a word of risk.
    agree_at: tuple[float, float]
    agree_at_risk_words: tuple[float, float]
    # (model, word reader): below both, a turn whose only lexicon findings are plans, methods,
    # means or intent reads as ordinary talk (a review cue, not a crisis signal).
    ordinary_below: tuple[float, float]


def loaded_from(directory: Path) -> LoadedModel:
    """The model in ``directory``, loaded once per process (about 0.3 s) on first use."""
    found = _loaded.get(directory)
    if found is None:
        with _lock:
            found = _loaded.get(directory)
            if found is None:
                found = _loaded[directory] = load(directory)
    return found


def model() -> LoadedModel:
    """The committed model."""
    return loaded_from(MODEL_DIR)


def second() -> LoadedModel:
    """The second model: only its ``escalate_at`` and ``escalate_at_risk_words`` are used
    (``second_threshold``)."""
    return loaded_from(SECOND_DIR)


def doubter() -> LoadedModel:
    """The doubting model: only its scores are used (``TurnScores.doubt``)."""
    return loaded_from(DOUBT_DIR)


def preload() -> None:
    """The three models loaded now (gunicorn's master and the RQ worker, before they fork)."""
    for directory in MODEL_DIRS:
        loaded_from(directory)


@contextmanager
def in_place_of(directory: Path, loaded: LoadedModel) -> Iterator[None]:
    """``loaded`` read as the model of ``directory`` in this process until the block ends:
    how the measuring scripts try a candidate without installing it."""
    saved = _loaded.get(directory)
    _loaded[directory] = loaded
    try:
        yield
    finally:
        if saved is None:
            _loaded.pop(directory, None)
        else:
            _loaded[directory] = saved


def load(directory: Path, *, exact_kernel: bool | None = None) -> LoadedModel:
    """The model, tokenizer and settings in ``directory``, read from disk now; on the exact
    8-bit kernel where ``exact_kernel_needed`` (or ``exact_kernel`` says so)."""
    import onnxruntime
    from tokenizers import Tokenizer

    settings = json.loads((directory / SETTINGS_FILE).read_text(encoding="utf-8"))
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    if exact_kernel is None:
        exact_kernel = exact_kernel_needed()
    if exact_kernel:
        # x86 CPUs without VNNI (AVX2, AVX-512F) saturate the 8-bit products of the quantized
        # graph's default kernel; this has them use the exact one, so a turn scores the same
        # on every server (a safety floor must not depend on the CPU it runs on).
        options.add_session_config_entry("session.x64quantprecision", "1")
    session = onnxruntime.InferenceSession(str(directory / MODEL_FILE), options,
                                           providers=["CPUExecutionProvider"])
    tokenizer = Tokenizer.from_file(str(directory / TOKENIZER_FILE))
    tokenizer.enable_truncation(settings["max_tokens"])
    # Settings without these rules: agreement never decides, nothing reads as ordinary.
    never = (2.0, 2.0)
    return LoadedModel(session, tokenizer, float(settings["escalate_at"]),
                       float(settings.get("escalate_at_risk_words", settings["escalate_at"])),
                       _pair(settings.get("agree_at", never)),
                       _pair(settings.get("agree_at_risk_words", never)),
                       _pair(settings.get("ordinary_below", (0.0, 0.0))))


# The CPU flag under which the default kernel was measured to score exactly as the exact one.
# A CPU with AVX-VNNI alone is treated as one without: not measured here.
_VNNI_FLAG = "avx512_vnni"


@functools.cache
def exact_kernel_needed(cpuinfo: Path = Path("/proc/cpuinfo")) -> bool:
    """Whether sessions must ask for the exact 8-bit kernel (``session.x64quantprecision``):
    yes unless the CPU has AVX-512 VNNI. With it the default kernel is already exact
    (bit for bit the same scores), and the option would still have onnxruntime rewrite the
    weights for a slower kernel (a call costs about 60% more). Where the flags cannot be read
    (another OS, another architecture, where the option does nothing), it is asked for."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    for line in text.splitlines():
        if line.startswith("flags"):
            return _VNNI_FLAG not in line.partition(":")[2].split()
    return True


def _pair(values: list[float]) -> tuple[float, float]:
    model_at, reader_at = values
    return float(model_at), float(reader_at)


def scores(texts: list[str], loaded: LoadedModel | None = None) -> list[float]:
    """The probability (0..1) that each text discloses current suicide or self-harm risk.
    Each text is read alone: the quantized graph scales its activations per call, so a text
    read in a batch would score slightly differently beside different neighbours. A text said
    twice is read once."""
    loaded = loaded or model()
    found: dict[str, float] = {}
    for text in dict.fromkeys(texts):
        ids = np.array([loaded.tokenizer.encode(text).ids], dtype=np.int64)
        logits = loaded.session.run(["logits"], {
            "input_ids": ids, "attention_mask": np.ones_like(ids),
            "token_type_ids": np.zeros_like(ids)})[0][0]
        # Softmax over two classes: the probability of the second.
        found[text] = float(1.0 / (1.0 + np.exp(logits[0] - logits[1])))
    return [found[text] for text in texts]


def turn_score(text: str, loaded: LoadedModel | None = None) -> float:
    """The score of a turn: the highest of its windows' that the model reads."""
    return max(scores(read_windows(text), loaded))


def read_windows(text: str) -> list[str]:
    """The windows of a turn the model reads: of a long turn, those that would pass the gate
    as turns of their own (``reads``); a window of ordinary talk beside one of risk tells the
    model nothing the other does not, and costs a call. All of them where none would pass
    (the turn's words of risk read only across windows)."""
    every = windows(text)
    if len(every) == 1:
        return every
    return [window for window in every if reads(read_turn(window))] or every


def windows(text: str) -> list[str]:
    """A turn as the model reads it: whole (as written, punctuation and all, as it was
    trained), or, past WINDOW_WORDS, in runs of whole sentences of up to WINDOW_WORDS; a
    sentence longer than that (speech-to-text without punctuation) in pieces, else the model
    would read only its first 128 tokens."""
    if len(text.split()) <= WINDOW_WORDS:
        return [text]
    out: list[str] = []
    current: list[str] = []
    count = 0
    for sentence in (piece for whole in _SENTENCE_END.split(text)
                     for piece in run_on_pieces(whole, WINDOW_WORDS)):
        words = len(sentence.split())
        if current and count + words > WINDOW_WORDS:
            out.append(" ".join(current))
            current, count = [], 0
        current.append(sentence)
        count += words
    if current:
        out.append(" ".join(current))
    return out


def reads(sentences: list[Sentence]) -> bool:
    """Whether the model reads a patient turn: one naming a word of risk, a method, means, a
    plan or intent (GATE_CONCEPTS), asserted or not, outside an idiom and, for a self-harm
    word, outside a sentence told as an accident."""
    return any(m.concept in GATE_CONCEPTS and not _inside_an_idiom(s, m)
               and not (m.concept in _SELF_HARM_WORDS and told_as_an_accident(s))
               for s in sentences for m in s.mentions)


# A self-harm word in a sentence the lexicons read as an accident ("I banged my head on the
# cupboard door this morning"): the models, which cannot see the accident, read it as an act.
_SELF_HARM_WORDS = frozenset({"self_harm_act", "self_harm_cue"})


def _inside_an_idiom(sentence: Sentence, mention: Mention) -> bool:
    """A word of risk inside an idiom that holds no more than it ("cutting back on my hours",
    "ending things with my boyfriend"), or an intent whose object the idiom is ("going to
    jump at the chance"): it names no risk for the model to read."""
    return any(i.concept == "idiom" and (
        (i.start <= mention.start and mention.end <= i.end)
        or (mention.concept in _INTENDING and mention.end == i.start))
        for i in sentence.mentions)


# Words of intent that take the idiom after them as their object.
_INTENDING = frozenset({"intent", "desire", "commitment"})


def threshold(sentences: list[Sentence]) -> float:
    """The score at which a turn the model reads is a risk statement: lower where it names a
    word of risk than where it names only methods, means or plans, of which ordinary life is
    full."""
    loaded = model()
    return loaded.escalate_at_risk_words if names(sentences, RISK_CONCEPTS) else \
        loaded.escalate_at


def second_threshold(sentences: list[Sentence]) -> float:
    """The second model's ``threshold``: the score at which, alone, it reads a turn as a risk
    statement (lower where the turn names a word of risk)."""
    loaded = second()
    return loaded.escalate_at_risk_words if names(sentences, RISK_CONCEPTS) else \
        loaded.escalate_at


def agreement(sentences: list[Sentence]) -> tuple[float, float]:
    """The (model, word reader) scores at which a turn the model reads is a risk statement
    when both readers agree; like ``threshold``, lower where it names a word of risk."""
    loaded = model()
    return loaded.agree_at_risk_words if names(sentences, RISK_CONCEPTS) else loaded.agree_at


class TurnScores:
    """The model's score of a turn's text (the highest of its windows), each distinct text
    read once (one per transcript); ``second`` and ``doubt`` the same for the second and the
    doubting model."""

    def __init__(self) -> None:
        self._known: dict[tuple[Path, str], float] = {}

    def __call__(self, text: str) -> float:
        return self._score(MODEL_DIR, text)

    def second(self, text: str) -> float:
        return self._score(SECOND_DIR, text)

    def doubt(self, text: str) -> float:
        return self._score(DOUBT_DIR, text)

    def _score(self, directory: Path, text: str) -> float:
        known = self._known.get((directory, text))
        if known is None:
            known = self._known[directory, text] = turn_score(text, loaded_from(directory))
        return known
