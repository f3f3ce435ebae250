"""How much time POST /api/therapy/analyze-session adds on top of the model's own latency.

One run, side by side: the bare round trip of the `openai` client to an OpenAI-compatible
server on 127.0.0.1 that answers at once, the endpoint on the same server (so the difference is
the service's own overhead: auth, validation, redaction, prompt building, normalisation, the
safety floor, storage and metering), the endpoint on the rules analyzer, and the pieces alone.

    .venv/bin/python bench/analysis_overhead.py [--iterations 200] [--words 5000]

Uses a throw-away SQLite database and an embedded Redis unless DATABASE_URL / REDIS_URL are set.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from openai import OpenAI

from app import create_app
from services.analysis import crisis, redaction, rules
from services.analysis.prompts import build_messages
from services.organizations import create_organization
from services.tokens import create_token
from tests.fakes.openai_server import FakeOpenAI

LINES = (
    ("Clinician", "How have things been since we last met?"),
    ("Patient", "Work has been stressful and I have only been sleeping about five hours."),
    ("Clinician", "What did you notice when the stress peaked on Tuesday?"),
    ("Patient", "My mood was low, I skipped lunch and I kept replaying the meeting."),
    ("Clinician", "Let's look at the thought record you brought in."),
    ("Patient", "I wrote that everyone thinks I'm failing, but the evidence was thin."),
    ("Clinician", "That is a good catch. How is the sertraline 50 mg going?"),
    ("Patient", "Some nausea the first week, better now. My PHQ-9 this morning was 11."),
    ("Clinician", "For homework, keep the thought record daily and try the wind-down routine."),
    ("Patient", "I can do that. My sister said she would walk with me on weekends."),
    ("Clinician", "Let's schedule a follow-up in two weeks and repeat the PHQ-9 then."),
)


def transcript(words: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    out, count = [], 0
    while count < words:
        speaker, text = LINES[rng.randrange(len(LINES))]
        out.append(f"{speaker}: {text}")
        count += len(text.split())
    return "\n".join(out)


def timed(fn: Callable[[], object], iterations: int, warmup: int = 5) -> list[float]:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(iterations):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def interleaved(a: Callable[[], object], b: Callable[[], object], iterations: int
                ) -> tuple[list[float], list[float]]:
    """Time a and b alternately, so both see the same machine load at the same moments."""
    for _ in range(5):
        a(), b()
    first, second = [], []
    for _ in range(iterations):
        for fn, out in ((a, first), (b, second)):
            started = time.perf_counter()
            fn()
            out.append((time.perf_counter() - started) * 1000)
    return first, second


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--words", type=int, default=5000)
    args = parser.parse_args()
    text = transcript(args.words)

    folder = Path(tempfile.mkdtemp(prefix="cws-bench-"))
    base = {"INSTANCE_PATH": str(folder), "RATELIMIT_ENABLED": False, "LOG_LEVEL": "WARNING",
            "DATABASE_URL": os.environ.get("DATABASE_URL", f"sqlite:///{folder / 'b.db'}"),
            "REDIS_URL": os.environ.get("REDIS_URL", "")}
    with FakeOpenAI() as fake:
        llm_app = create_app({**base, "OPENAI_API_KEY": "bench", "OPENAI_BASE_URL":
                              fake.base_url})
        rules_app = create_app({**base, "OPENAI_API_KEY": ""})
        with llm_app.app_context():
            org = create_organization("Bench Clinic")
            token = create_token(org.id, ["admin"])[1]
        headers = {"Authorization": f"Bearer {token}"}
        body = {"session_transcript": text}
        llm_client, rules_client = llm_app.test_client(), rules_app.test_client()
        messages = build_messages(redaction.redact_identifiers(text)[0], {}, {}, None)
        client = OpenAI(api_key="bench", base_url=fake.base_url, max_retries=0)

        def bare_model() -> None:
            client.chat.completions.create(model="gpt-4o-mini", messages=messages,
                                           temperature=0.3,
                                           response_format={"type": "json_object"})

        def endpoint(c) -> Callable[[], None]:
            def call() -> None:
                response = c.post("/api/therapy/analyze-session", json=body, headers=headers)
                assert response.status_code == 200, response.status_code
            return call

        n = args.iterations
        model_ms, endpoint_ms = interleaved(bare_model, endpoint(llm_client), n)
        rows = [
            ("model round trip (openai client → server)", model_ms),
            ("endpoint, hosted-model path", endpoint_ms),
            ("endpoint, rules analyzer", timed(endpoint(rules_client), n)),
            ("  redaction alone", timed(lambda: redaction.redact_identifiers(text), n)),
            ("  crisis detection alone", timed(lambda: crisis.detect_crisis(text), n)),
            ("  rules analyzer alone", timed(lambda: rules.analyze_transcript(text), n)),
        ]
    p50 = {name: statistics.median(s) for name, s in rows}
    p99 = {name: pct(s, 0.99) for name, s in rows}
    overhead = [e - m for e, m in zip(rows[1][1], rows[0][1], strict=True)]

    print(f"\nanalyze-session, {args.words}-word session text ({len(text):,} chars), "
          f"{n} iterations, database {base['DATABASE_URL'].split(':')[0]}\n")
    print(f"| {'measurement':<46} | {'p50 ms':>8} | {'p99 ms':>8} |")
    print(f"|{'-' * 48}|{'-' * 10}|{'-' * 10}|")
    for name, _ in rows:
        print(f"| {name:<46} | {p50[name]:>8.2f} | {p99[name]:>8.2f} |")
    print(f"| {'service overhead (endpoint - model, paired)':<46} | "
          f"{statistics.median(overhead):>8.2f} | {pct(overhead, 0.99):>8.2f} |")
    goal = statistics.median(overhead) < 15
    print(f"\ngoal p50 overhead < 15 ms: {'met' if goal else 'NOT met'}")


if __name__ == "__main__":
    main()
