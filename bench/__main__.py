"""One benchmark table, every figure beside a baseline measured in the same run.

    .venv/bin/python -m bench [--embedded] [--duration 10] [--only NAME ...]

Starts the service as users run it (gunicorn with gunicorn.conf.py and a worker process; on
PostgreSQL + Redis from TEST_DATABASE_URL / TEST_REDIS_URL, or with --embedded on SQLite and the
embedded Redis), starts the baselines under the same gunicorn config, and drives both from wrk
(a separate process, 127.0.0.1 only, bounded by --duration). Prints a Markdown table.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import figures  # noqa: E402
from bench.table import render  # noqa: E402

DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/test"
DEFAULT_REDIS = "redis://127.0.0.1:6379"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedded", action="store_true",
                        help="SQLite + the embedded Redis instead of PostgreSQL + Redis")
    parser.add_argument("--duration", type=int, default=8, help="seconds per load run")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--only", nargs="*", default=None,
                        help=f"figure groups to run (of: {', '.join(figures.GROUPS)})")
    args = parser.parse_args()
    if args.embedded:
        os.environ.pop("TEST_DATABASE_URL", None)
    else:
        os.environ.setdefault("TEST_DATABASE_URL", DEFAULT_PG)
        os.environ.setdefault("TEST_REDIS_URL", DEFAULT_REDIS)
    workdir = Path(tempfile.mkdtemp(prefix="cws-bench-"))
    rows = figures.run_all(workdir, duration_s=args.duration, connections=args.connections,
                           only=args.only)
    kind = "SQLite + embedded Redis" if args.embedded else "PostgreSQL + Redis"
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python "
          f"{platform.python_version()}; storage: {kind}; wrk -c{args.connections} "
          f"-d{args.duration}s")
    print(render(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
