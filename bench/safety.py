"""Crisis-detection time on a 5,000-word transcript: the detector in the tree beside the one at
b27d70d (the phrase-pattern detector before concept reading), loaded from git history into a
temporary package rather than kept as a copy in the tree; and the language models on the
kernel this CPU's sessions use beside the exact 8-bit kernel."""

from __future__ import annotations

import importlib
import json
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

from bench.figures import transcript
from bench.table import Row
from tests.e2e.service import PROJECT_ROOT
from tests.services.crisis_sessions import bench_sessions

BASELINE_COMMIT = "b27d70d"
BASELINE_FILES = ("services/analysis/crisis.py", "services/analysis/transcript.py")
WORDS = 5_000
GOAL_P50_MS = 40.0
# A disclosure at the end, so both detectors read the whole transcript and report something.
DISCLOSURE = "Patient: Honestly, I've been saving up my pills and I think about taking them all."
MIN_RUNS = 20
CORPUS = PROJECT_ROOT / "tests" / "services" / "transcripts"


def corpus_transcript(words: int) -> str:
    """The test corpus's sessions (crisis, negated, third-person, ordinary) run together up to
    ``words``: denser in risk language than the ordinary transcript, so more for the detector
    to read."""
    lines: list[str] = []
    count = 0
    while count < words:
        for path in sorted(CORPUS.glob("*.txt")):
            for line in path.read_text(encoding="utf-8").splitlines():
                lines.append(line)
                count += len(line.split())
                if count >= words:
                    return "\n".join(lines)
    return "\n".join(lines)


def quiet_transcript(words: int) -> str:
    """The worst case for the language model: ordinary patient turns that the lexicons do not
    raise (so no signal spares the model any turn) and that each name something it reads (a
    medicine, a plan, a time, rope or a rifle), between clinician questions, up to ``words``
    (the 185 such turns of the evaluation set, the first 56 of them said twice)."""
    from services.analysis.crisis import detect_crisis
    from services.analysis.crisis.model_reader import reads
    from services.analysis.crisis.reading import read_turn

    turns = json.loads((PROJECT_ROOT / "tests" / "services" / "data" /
                        "ordinary_turns_eval.json").read_text(encoding="utf-8"))["turns"]
    read = [t for t in turns if detect_crisis(f"Patient: {t}").level is None
            and reads(read_turn(t))]
    lines: list[str] = []
    count = 0
    for turn in read * (1 + words // max(1, sum(len(t.split()) for t in read))):
        lines += ["Clinician: Tell me more about that.", f"Patient: {turn}"]
        count += len(turn.split()) + 5
        if count >= words:
            break
    return "\n".join(lines)


def spoken_monologue(words: int) -> tuple[str, str]:
    """The patient turns of the sessions written apart run together into one patient turn of
    ``words`` words, as speech-to-text writes it (no punctuation, lower case) and as written:
    a run-on sentence is read in pieces, so the first should cost about what the second does."""
    turns = [line.partition(":")[2].strip() for session in bench_sessions()
             for line in session["transcript"].splitlines()
             if line.lower().startswith("patient:")]
    kept: list[str] = []
    count = 0
    for turn in turns:
        kept.append(turn)
        count += len(turn.split())
        if count >= words:
            break
    written = " ".join(kept)
    spoken = re.sub(r"[.,!?;:\u2026\u2014-]+", " ", written).lower()
    return f"Patient: {spoken}", f"Patient: {written}"


def _baseline_detector(workdir: Path) -> Callable[[str], object]:
    """``detect_crisis`` as it was at BASELINE_COMMIT, imported from files written out of git."""
    package = "crisis_baseline"
    root = workdir / "baseline"
    (root / package).mkdir(parents=True, exist_ok=True)
    (root / package / "__init__.py").write_text("")
    for path in BASELINE_FILES:
        source = subprocess.run(["git", "show", f"{BASELINE_COMMIT}:{path}"], cwd=PROJECT_ROOT,
                                check=True, capture_output=True, text=True).stdout
        source = source.replace("from services.analysis.transcript import",
                                f"from {package}.transcript import")
        (root / package / Path(path).name).write_text(source)
    sys.path.insert(0, str(root))
    try:
        return importlib.import_module(f"{package}.crisis").detect_crisis
    finally:
        sys.path.remove(str(root))


def _timings_ms(detect: Callable[[str], object], text: str, duration_s: float) -> list[float]:
    detect(text)  # warm caches and compiled patterns once, outside the figures
    timings: list[float] = []
    deadline = time.perf_counter() + duration_s
    while len(timings) < MIN_RUNS or time.perf_counter() < deadline:
        start = time.perf_counter()
        detect(text)
        timings.append((time.perf_counter() - start) * 1000)
    return timings


def _p(timings: list[float], q: float) -> float:
    return statistics.quantiles(timings, n=100, method="inclusive")[q - 1]


def safety_figures(workdir: Path, duration_s: int, connections: int) -> list[Row]:
    """Detection time p50 and p99, new detector beside today's (``connections`` is unused:
    detection is a function call, timed in this process)."""
    from services.analysis.crisis import detect_crisis

    workdir.mkdir(parents=True, exist_ok=True)
    baseline = _baseline_detector(workdir)
    rows: list[Row] = []
    risk_dense = ("risk-dense corpus", corpus_transcript(WORDS))
    written_apart = tuple((f"ordinary session written apart ({s['id']})", s["transcript"])
                          for s in bench_sessions())
    texts = (("ordinary session", transcript(WORDS) + "\n" + DISCLOSURE), risk_dense,
             ("ordinary talk the language model reads (185 turns)", quiet_transcript(WORDS)),
             *written_apart)
    for label, text in texts:
        old = _timings_ms(baseline, text, duration_s / 4)
        new = _timings_ms(detect_crisis, text, duration_s / 4)
        new_p50, old_p50 = statistics.median(new), statistics.median(old)
        rows += [
            Row(f"crisis detection p50, {WORDS:,} words, {label}", new_p50,
                f"{BASELINE_COMMIT} detector", old_p50, "ms", goal=f"p50 < {GOAL_P50_MS:.0f} ms",
                met=new_p50 < GOAL_P50_MS, note=f"{len(new)} runs"),
            Row(f"crisis detection p99, {WORDS:,} words, {label}", _p(new, 99),
                f"{BASELINE_COMMIT} detector", _p(old, 99), "ms"),
        ]
    spoken, written = spoken_monologue(WORDS)
    unpunctuated = _timings_ms(detect_crisis, spoken, duration_s / 4)
    punctuated = _timings_ms(detect_crisis, written, duration_s / 4)
    rows.append(Row(f"crisis detection p50, {WORDS:,}-word patient monologue without "
                    "punctuation (speech-to-text)", statistics.median(unpunctuated),
                    "the same, punctuated", statistics.median(punctuated), "ms",
                    note=f"{len(unpunctuated)} runs"))
    # The texts on which the models do the most work, short of the 185 turns (1-2 s a run).
    rows += _exact_kernel_rows((risk_dense, *written_apart), duration_s)
    rows += _blind_set_rows(baseline)
    return rows


def _exact_kernel_rows(texts: tuple[tuple[str, str], ...], duration_s: int) -> list[Row]:
    """Detection p50 with the language models on the kernel this CPU's sessions use beside the
    exact 8-bit kernel (``session.x64quantprecision``), which they ask for only on CPUs
    without AVX-512 VNNI: what asking for it everywhere would cost (on a CPU without it the
    two are the same kernel)."""
    from services.analysis.crisis import detect_crisis, model_reader

    exact = {d: model_reader.load(d, exact_kernel=True) for d in model_reader.MODEL_DIRS}
    rows: list[Row] = []
    for label, text in texts:
        installed = _timings_ms(detect_crisis, text, duration_s / 4)
        with ExitStack() as stack:
            for directory, loaded in exact.items():
                stack.enter_context(model_reader.in_place_of(directory, loaded))
            on_exact = _timings_ms(detect_crisis, text, duration_s / 4)
        rows.append(Row(f"crisis detection p50, {WORDS:,} words, {label}, this CPU's kernel",
                        statistics.median(installed), "exact 8-bit kernel",
                        statistics.median(on_exact), "ms", note=f"{len(installed)} runs"))
    return rows


def _blind_set_rows(baseline: Callable[[str], object]) -> list[Row]:
    """Recall and false alarms on the held-out half of the statements written apart from the
    detector, beside the b27d70d detector on the same statements (a level of high or above
    counts as escalated, as in the analysis)."""
    from services.analysis.crisis import apply_safety_floor, detect_crisis
    from tests.services.crisis_blind import HELD_OUT, measure, split_blind_set

    statements = split_blind_set()[HELD_OUT]

    def levels(detect: Callable[[str], object]) -> list[str]:
        return [apply_safety_floor({"level": "low"}, detect(f"Patient: {s['text']}"))["level"]
                if detect is detect_crisis else (detect(f"Patient: {s['text']}").level or "low")
                for s in statements]

    new, old = measure(statements, levels(detect_crisis)), measure(statements, levels(baseline))
    # The same halves without the language model: what it adds and what it takes back.
    without_model = measure(statements, [apply_safety_floor({"level": "low"}, detect_crisis(
        f"Patient: {s['text']}", model_reader=False))["level"] for s in statements])
    return [
        Row(f"crisis recall, held-out blind half ({new.escalate} statements)", new.recall * 100,
            "without the language model %", without_model.recall * 100, "%", goal=">= 90 %",
            met=new.recall >= 0.9),
        Row(f"crisis false alarms, held-out blind half ({new.no_escalate} statements)",
            new.false_alarm_rate * 100, "without the language model %",
            without_model.false_alarm_rate * 100, "%", goal="<= 10 %",
            met=new.false_alarm_rate <= 0.1),
        Row(f"crisis recall, held-out blind half ({new.escalate} statements)", new.recall * 100,
            f"{BASELINE_COMMIT} detector %", old.recall * 100, "%", goal=">= 90 %",
            met=new.recall >= 0.9),
        Row(f"crisis false alarms, held-out blind half ({new.no_escalate} statements)",
            new.false_alarm_rate * 100, f"{BASELINE_COMMIT} detector %",
            old.false_alarm_rate * 100, "%", goal="<= 10 %", met=new.false_alarm_rate <= 0.1),
        Row("intent with a time or plan with means at imminent", new.imminent_caught,
            f"{BASELINE_COMMIT} detector", old.imminent_caught,
            f"of {new.imminent_expected}", goal="all",
            met=new.imminent_caught == new.imminent_expected),
    ]
