"""Workflow node steps on RQ: one job per (execution, node, attempt)."""

from __future__ import annotations

import logging

from flask import current_app

from jobs.queue import QUEUE_WORKFLOWS, enqueue, job_id
from services.workflows import engine

logger = logging.getLogger(__name__)
# Transient node errors (a model or FHIR server down) are retried by RQ at JOB_RETRY_INTERVALS_S.
STEP_MAX_ATTEMPTS = 4


def step_job_id(execution_id: str, node_id: str, attempt: int) -> str:
    return job_id("wf", execution_id, node_id, attempt)


def queue_step(execution_id: str, node_id: str, attempt: int) -> str:
    """Queue a node step (inside the caller's transaction; pushed after commit)."""
    jid = step_job_id(execution_id, node_id, attempt)
    enqueue(run_step, execution_id, node_id, attempt, id=jid, queue=QUEUE_WORKFLOWS,
            max_attempts=STEP_MAX_ATTEMPTS, on_failure=step_failed)
    return jid


def run_step(execution_id: str, node_id: str, attempt: int) -> str:
    outcome = engine.run_step(execution_id, node_id, current_app.config)
    logger.info("execution %s node %s attempt %s: %s", execution_id, node_id, attempt, outcome)
    return outcome


def step_failed(execution_id: str, node_id: str, attempt: int, error: str) -> None:
    engine.step_failed(execution_id, node_id, error)
