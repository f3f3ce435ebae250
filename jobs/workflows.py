"""Workflow node steps on RQ: one job per (execution, node, attempt)."""

from __future__ import annotations

import logging

from flask import current_app

from services.workflows import engine

logger = logging.getLogger(__name__)


def run_step(execution_id: str, node_id: str, attempt: int) -> str:
    outcome = engine.run_step(execution_id, node_id, current_app.config)
    logger.info("execution %s node %s attempt %s: %s", execution_id, node_id, attempt, outcome)
    return outcome


def step_failed(execution_id: str, node_id: str, attempt: int, error: str) -> None:
    engine.step_failed(execution_id, node_id, error)
