"""Schemathesis over the service's own OpenAPI document, against the running server with a
real admin token: no 5xx, and every answer matches its documented status codes, content
type, headers and schema. Bounded: a fixed seed and a few examples per operation."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.e2e.service import Service
from tests.fakes.stripe_server import API_KEY, FakeStripe

CHECKS = ("not_a_server_error,status_code_conformance,content_type_conformance,"
          "response_headers_conformance,response_schema_conformance,unsupported_method")
EXAMPLES_PER_OPERATION = "10"


@pytest.fixture(scope="module")
def service(tmp_path_factory) -> Iterator[Service]:
    """Configured as a clinic runs it: a card processor and a voice secret, so that those
    operations do their work instead of answering 503 "not configured"."""
    with FakeStripe() as stripe_server:
        stripe_server.add_card("pm_card_fuzz", brand="visa", last4="4242", exp_month=12,
                               exp_year=2031)
        running = Service(tmp_path_factory.mktemp("fuzz-e2e"), extra_env={
            "STRIPE_API_KEY": API_KEY, "STRIPE_API_BASE": stripe_server.base_url,
            "VOICE_WEBHOOK_SECRET": "fuzz-voice-secret", "QUEUE_PREFIX": "e2e-fuzz-"}).start()
        try:
            yield running
        finally:
            running.stop()


def test_every_operation_answers_as_documented(service, tmp_path: Path) -> None:
    token = service.new_admin_token("Fuzz Clinic")
    command = [str(Path(sys.executable).parent / "schemathesis"), "run",
               f"{service.base}/api/openapi.json", "--header", f"Authorization: Bearer {token}",
               "--checks", CHECKS, "--max-examples", EXAMPLES_PER_OPERATION, "--seed", "20261123",
               "--phases", "examples,coverage,fuzzing",
               "--continue-on-failure", "--no-color", "--warnings", "off",
               "--generation-database", "none", "--request-timeout", "30"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600,
                            cwd=tmp_path)
    (tmp_path / "schemathesis.out").write_text(result.stdout)
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
