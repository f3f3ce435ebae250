"""ConText assertion by medspaCy against the concept reader's hand-written windows, on the
TUNING half of the blind set only (docs/safety-floor.md).

medspaCy is not a project dependency (it brings spaCy); run from a virtualenv that has it:

    python -m venv /tmp/mvenv && /tmp/mvenv/bin/pip install medspacy==1.3.1
    /tmp/mvenv/bin/python bench/medspacy_context.py [-v]

medspaCy runs a blank English pipeline with its default ConText rules; the concept reader's
matches are its target spans, and a span ConText marks negated, hypothetical, historical or
family is dropped. Everything else (turn-level resolution, academic topics, idioms, the kinds
built from asserted concepts) is the project's own, so only the assertion step differs.
"""

import glob
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
# The project's own pure-Python dependencies (marshmallow) from its virtualenv, after medspaCy's.
sys.path.extend(glob.glob(str(ROOT / ".venv/lib/python3*/site-packages")))

import medspacy  # noqa: E402
from spacy.tokens import Doc, Span  # noqa: E402

from services.analysis.crisis import apply_safety_floor, assertion, concepts, detect_crisis  # noqa: E402
from tests.services.crisis_blind import TUNING, measure, split_blind_set  # noqa: E402

nlp = medspacy.load(medspacy_enable=["medspacy_pyrush", "medspacy_context"])
context = nlp.get_pipe("medspacy_context")
original = concepts.asserted_concepts

def medspacy_asserted(sentences):
    resolved = assertion.turn_is_resolved(sentences)
    result = []
    for s in sentences:
        if resolved or assertion.has(s, "academic"):
            result.append([])
            continue
        idioms = [(m.start, m.end) for m in s.mentions if m.concept == "idiom"]
        targets = [m for m in s.mentions if m.concept not in assertion.MODIFIER_CONCEPTS
                   and not any(m.start < e and st < m.end for st, e in idioms)]
        doc = Doc(nlp.vocab, words=s.words,
                  sent_starts=[True] + [False] * (len(s.words) - 1))
        spans = []
        for m in targets:
            spans.append(Span(doc, m.start - s.offset, m.end - s.offset, label=m.concept))
        # Concept mentions overlap, which doc.ents cannot hold: a span group can.
        doc.spans["medspacy_spans"] = spans
        context.input_span_type = "group"
        context.span_group_name = "medspacy_spans"
        doc = context(doc)
        kept = [m for m, span in zip(targets, doc.spans["medspacy_spans"], strict=True)
                if not (span._.is_negated or span._.is_hypothetical or span._.is_historical
                        or span._.is_family)]
        result.append(kept)
    return result

def level(s):
    return apply_safety_floor({"level": "low"}, detect_crisis(f"Patient: {s['text']}"))["level"]

tuning = split_blind_set()[TUNING]
for name, fn in (("hand-written windows", original), ("medspaCy ConText", medspacy_asserted)):
    concepts.asserted_concepts = fn
    t0 = time.perf_counter()
    levels = [level(s) for s in tuning]
    dt = (time.perf_counter() - t0) * 1000 / len(tuning)
    print(f"{name:22s} tuning: {measure(tuning, levels).line()}  ({dt:.1f} ms/statement)")
    if "-v" in sys.argv and fn is medspacy_asserted:
        concepts.asserted_concepts = original
        base = [level(s) for s in tuning]
        for s, a, b in zip(tuning, levels, base, strict=True):
            if a != b:
                print("  diff", s["kind"], "hand:", b, "medspacy:", a, "|", s["text"])
