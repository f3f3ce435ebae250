"""The README's first calls, copied from the README and run as written (the test service's
PORT in the environment, as a newcomer who started ./bin/serve on another port exports it):
the newcomer's path must work top to bottom."""

from __future__ import annotations

import json
import re
import subprocess

from tests.e2e.service import PROJECT_ROOT, Service


def first_calls() -> str:
    """The bash blocks of the README's "First calls" section, in order."""
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("### First calls", 1)[1].split("\n### ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.DOTALL)
    assert len(blocks) >= 2, "the README's first calls: the token step and the calls"
    return "\n".join(blocks)


def test_readme_first_calls_run_top_to_bottom(service: Service):
    # As written: the address comes from the PORT the service was started with (a newcomer on
    # another port had to edit the block).
    script = first_calls()
    assert service.env["PORT"] != "8000"
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=PROJECT_ROOT,
                          env=service.env, capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    errors = [a for a in answers if isinstance(a, dict) and isinstance(a.get("code"), int)]
    assert errors == []
    sessions, *chunks, stopped, analysis, adhoc = answers
    assert [s["patient_id"] for s in sessions] == ["pat-1"]
    assert [chunk["seq"] for chunk in chunks] == [1, 2]
    assert stopped["status"] == "stopped" and stopped["chunk_count"] == 2
    # The worker's analysis of the live session's transcript, read from the session.
    assert analysis["source"] == "clinical_session"
    assert analysis["session_id"] == sessions[0]["id"]
    assert "PHQ-9 score 8 (mild depression)" in analysis["visitSummary"]["keyFindings"]
    assert adhoc["source"] == "api" and adhoc["provider"] == "rules" and adhoc["success"]
