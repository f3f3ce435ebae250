"""Signed voice-platform transcript events per second and their latency, beside a bare Flask
endpoint that only checks the HMAC, both under the project's gunicorn.conf.py; and the p99 of
`assistant-request`.

    .venv/bin/python bench/voice_ingest.py [--events 2000] [--concurrency 16] [--rate 200]
                                           [--seconds 10]

The service runs as users run it (tests/e2e/service.py: gunicorn + a worker, embedded SQLite
and Redis, or PostgreSQL with TEST_DATABASE_URL). Each event is a distinct final transcript
line, so every one is verified, stored and read for crisis language. Each endpoint first gets
8 unmeasured events per client (the service opens its pooled connections on first use).
Throughput is measured closed-loop (`--concurrency` clients sending as fast as answered);
latency open-loop at `--rate` events/s, timed from each event's scheduled send time (no
coordinated omission).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.service import BIN, Client, Service, free_port  # noqa: E402
from tests.fakes.voice_platform import Call, body_of, sign  # noqa: E402

SECRET = "bench-voice-secret"
WARMUP_EVENTS_PER_CLIENT = 8
LINE = "+15550199000"
LINES = ("I've been sleeping badly for about three weeks.",
         "Mostly I worry about work and whether I'm keeping up.",
         "Mornings are the hardest, evenings are a bit better.")
_local = threading.local()


def _session() -> requests.Session:
    if not hasattr(_local, "session"):
        _local.session = requests.Session()
    return _local.session


def _event(index: int) -> tuple[bytes, dict]:
    call = Call(f"bench-call-{index // 200}", line=LINE)
    body = body_of(call.said("user", f"{LINES[index % 3]} ({index})", index * 0.01))
    return body, {"Content-Type": "application/json",
                  "service-voice-signature": sign(SECRET, body)}


def _send(base: str, index: int) -> float:
    body, headers = _event(index)
    started = time.perf_counter()
    response = _session().post(f"{base}/api/voice/webhook", data=body, headers=headers,
                               timeout=30)
    if response.status_code != 200:
        raise RuntimeError(f"HTTP {response.status_code}: {response.text[:200]}")
    return time.perf_counter() - started


def throughput(base: str, events: int, concurrency: int, offset: int) -> float:
    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(lambda i: _send(base, offset + i), range(events)))
    return events / (time.perf_counter() - started)


def open_loop(base: str, rate: float, seconds: float, offset: int) -> list[float]:
    """Latency (s) of events sent at a fixed rate, from each one's scheduled time."""
    total = int(rate * seconds)
    start = time.perf_counter() + 0.2
    latencies: list[float] = []

    def one(i: int) -> None:
        due = start + i / rate
        time.sleep(max(0.0, due - time.perf_counter()))
        _send(base, offset + i)
        latencies.append(time.perf_counter() - due)

    with ThreadPoolExecutor(64) as pool:
        list(pool.map(one, range(total)))
    return latencies


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def sequential(fn: Callable[[], float], iterations: int) -> list[float]:
    for _ in range(10):
        fn()
    return [fn() for _ in range(iterations)]


def start_bare(workdir: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "VOICE_WEBHOOK_SECRET": SECRET, "HOST": "127.0.0.1", "PORT": str(port)}
    process = subprocess.Popen([str(BIN / "gunicorn"), "-c", "gunicorn.conf.py",
                                "bench.bare_hmac:create_app()"], cwd=ROOT, env=env,
                               stdout=open(workdir / "bare.log", "ab"),
                               stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    for _ in range(200):
        try:
            if requests.get(f"{base}/api/voice/webhook/health", timeout=1).ok:
                return process, base
        except requests.RequestException:
            time.sleep(0.1)
    raise RuntimeError("the bare endpoint did not start")


def measure(events: int, concurrency: int, rate: float, seconds: float,
            assistant_requests: int) -> dict:
    """Both endpoints' throughput and open-loop latency, and assistant-request's latency."""
    workdir = Path(tempfile.mkdtemp(prefix="cws-voice-bench-"))
    service = Service(workdir / "service", extra_env={
        "VOICE_WEBHOOK_SECRET": SECRET, "RATELIMIT_ENABLED": "false"}).start()
    bare, bare_base = start_bare(workdir)
    try:
        admin = Client(service.base, service.new_admin_token("Bench clinic"))
        created = admin.call("POST", "/api/voice/deployments",
                             {"name": "Bench line", "phone_number": LINE})
        assert created.status_code == 201, created.text
        rows = []
        offset = 0
        for name, base in (("bare HMAC endpoint", bare_base), ("service webhook", service.base)):
            # Unmeasured first: the service opens its pooled database connections on first
            # use (one per server thread), which is not what a steady stream of events costs.
            warm = concurrency * WARMUP_EVENTS_PER_CLIENT
            throughput(base, warm, concurrency, offset)
            offset += warm
            throughput_rate = throughput(base, events, concurrency, offset)
            offset += events
            latencies = open_loop(base, rate, seconds, offset)
            offset += len(latencies)
            rows.append((name, throughput_rate, pct(latencies, 0.5), pct(latencies, 0.99)))

        body = body_of(Call("bench-assistant", line=LINE).message("assistant-request", 0))
        headers = {"Content-Type": "application/json",
                   "service-voice-signature": sign(SECRET, body)}

        def assistant_request() -> float:
            started = time.perf_counter()
            response = _session().post(f"{service.base}/api/voice/webhook", data=body,
                                       headers=headers, timeout=30)
            assert response.status_code == 200 and "assistant" in response.json()
            return time.perf_counter() - started

        assistant = sequential(assistant_request, assistant_requests)
    finally:
        os.killpg(bare.pid, 15)
        service.stop()
    return {"kind": service.kind, "rows": rows, "assistant": assistant}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rate", type=float, default=200.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--assistant-requests", type=int, default=300)
    args = parser.parse_args()
    result = measure(args.events, args.concurrency, args.rate, args.seconds,
                     args.assistant_requests)
    rows, assistant = result["rows"], result["assistant"]
    print(f"signed transcript events ({result['kind']} storage; throughput: {args.events} "
          f"events, {args.concurrency} clients; latency: {args.rate:.0f} events/s for "
          f"{args.seconds:.0f} s)")
    print(f"{'endpoint':<22}{'events/s':>10}{'p50 ms':>10}{'p99 ms':>10}")
    for name, rate, p50, p99 in rows:
        print(f"{name:<22}{rate:>10.0f}{p50:>10.1f}{p99:>10.1f}")
    print(f"service / bare throughput: {rows[1][1] / rows[0][1]:.2f}x (goal >= 0.5x)")
    print(f"assistant-request ({len(assistant)} sequential): p50 "
          f"{statistics.median(assistant) * 1000:.1f} ms, p99 {pct(assistant, 0.99):.1f} ms "
          f"(goal < 50 ms)")


if __name__ == "__main__":
    main()
