"""Jobs are queued by dotted path (services may not import jobs): every path written in the
code must name a function that exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from jobs.queue import resolve

ROOT = Path(__file__).resolve().parent.parent.parent
JOB_PATH = re.compile(r"^jobs(?:\.[a-z_][a-z0-9_]*)+$")


def _job_paths() -> set[str]:
    found = set()
    for package in ("services", "jobs", "blueprints", "web", "models"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                        and JOB_PATH.match(node.value):
                    found.add(node.value)
    return found


def test_the_clinical_analysis_job_is_found():
    assert "jobs.analysis.analyze_clinical_session" in _job_paths()


def test_every_job_path_resolves_to_a_function():
    for path in sorted(_job_paths()):
        assert callable(resolve(path)), path

