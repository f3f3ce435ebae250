"""Schemathesis over the service's own OpenAPI document, against the running server with a
real admin token: no 5xx, and every answer matches its documented status codes, content
type, headers and schema. Bounded: a fixed seed and a few examples per operation."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import requests

CHECKS = ("not_a_server_error,status_code_conformance,content_type_conformance,"
          "response_headers_conformance,response_schema_conformance,unsupported_method")
EXAMPLES_PER_OPERATION = "10"
MAX_SECONDS = "150"


def test_every_operation_answers_as_documented(service, tmp_path: Path) -> None:
    token = service.new_admin_token("Fuzz Clinic")
    command = [str(Path(sys.executable).parent / "schemathesis"), "run",
               f"{service.base}/api/openapi.json", "--header", f"Authorization: Bearer {token}",
               "--checks", CHECKS, "--max-examples", EXAMPLES_PER_OPERATION, "--seed", "20261123",
               "--phases", "examples,coverage,fuzzing", "--max-time", MAX_SECONDS,
               "--continue-on-failure", "--no-color", "--warnings", "off",
               "--generation-database", "none", "--request-timeout", "30"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600,
                            cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "No issues found" in result.stdout or " passed" in result.stdout, result.stdout[-3000:]


def test_answers_gunicorn_gives_itself_are_json(service) -> None:
    too_long = requests.get(f"{service.base}/api/therapy-sessions?q={'x' * 9000}", timeout=10)
    assert too_long.status_code == 414
    assert too_long.headers["Content-Type"] == "application/json"
    assert too_long.json()["code"] == 414
    huge_header = requests.get(f"{service.base}/api/therapy-sessions",
                               headers={"X-Big": "y" * 9000}, timeout=10)
    assert huge_header.status_code in (400, 431)
    assert huge_header.json()["code"] == huge_header.status_code
