"""The processes that fork (gunicorn's master, the RQ worker) import the analysis pipeline and
load the crisis models before they fork. Otherwise every web worker's first analysis, and every
analysis job's work-horse, imports the pipeline and the hosted-model client again: about half
a second of CPU each (docs/performance.md). Each check runs in a new interpreter, because this
one has imported everything already."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from config import PROJECT_ROOT

_REPORT = """
import json, sys
print(json.dumps({name: name in sys.modules for name in (
    "services.analysis.pipeline", "openai", "services.analysis.crisis.model_reader")}))
"""


def _run(code: str, config: dict) -> dict:
    finished = subprocess.run(
        [sys.executable, "-c", code + _REPORT, json.dumps(config)], cwd=PROJECT_ROOT, check=True,
        text=True, capture_output=True, timeout=120,
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})
    return json.loads(finished.stdout.strip().splitlines()[-1])


def test_the_app_alone_leaves_the_pipeline_for_first_use(app_config):
    # What the two checks below rely on: building the app does not import it.
    loaded = _run("import json, sys\nfrom app import create_app\n"
                  "create_app(json.loads(sys.argv[1]))\n", app_config)
    assert not loaded["services.analysis.pipeline"] and not loaded["openai"]


def test_gunicorns_master_imports_the_analysis_path_before_its_workers_fork(app_config):
    """gunicorn.conf.py preloads the app, then its when_ready hook runs in the master."""
    loaded = _run("import json, runpy, sys\nfrom app import create_app\n"
                  "create_app(json.loads(sys.argv[1]))\n"
                  "runpy.run_path('gunicorn.conf.py')['when_ready'](None)\n", app_config)
    assert loaded == {"services.analysis.pipeline": True, "openai": True,
                      "services.analysis.crisis.model_reader": True}


def test_the_rq_worker_imports_the_analysis_path_before_its_work_horses_fork(app_config):
    """What `flask --app app worker` runs, here in burst mode on a queue with nothing in it."""
    loaded = _run("import json, sys\nfrom app import create_app\n"
                  "from jobs.worker import run_worker\n"
                  "run_worker(create_app(json.loads(sys.argv[1])), burst=True,\n"
                  "           queues=['preload-check'])\n", app_config)
    assert loaded == {"services.analysis.pipeline": True, "openai": True,
                      "services.analysis.crisis.model_reader": True}
