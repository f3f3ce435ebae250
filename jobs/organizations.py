"""Provisioning jobs: load the job, run its steps, record the outcome (services decide)."""

from __future__ import annotations

from flask import current_app

from services.organizations import provisioning


def run_provisioning(provisioning_id: str) -> None:
    provisioning.run(provisioning_id, current_app.config)


def fail_provisioning(provisioning_id: str, error: str) -> None:
    provisioning.fail(provisioning_id, error, current_app.config)
