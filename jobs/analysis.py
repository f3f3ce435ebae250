"""The post-visit analysis job queued when a live clinical session stops."""

from __future__ import annotations

import logging

from flask import current_app

from jobs.queue import QUEUE_ANALYSIS, enqueue, job_id
from models.clinical import ClinicalSession
from services import clinical

logger = logging.getLogger(__name__)
MAX_ATTEMPTS = 3


def queue_clinical_analysis(session: ClinicalSession) -> str:
    """Queue the analysis of a stopped clinical session (inside the stop transaction)."""
    jid = job_id("analysis", session.id)
    enqueue(analyze_clinical_session, session.id, id=jid, queue=QUEUE_ANALYSIS,
            max_attempts=MAX_ATTEMPTS, on_failure=clinical_analysis_failed)
    return jid


def analyze_clinical_session(clinical_session_id: str) -> str:
    analysis_id = clinical.run_analysis(clinical_session_id, current_app.config)
    logger.info("analysis %s stored for clinical session %s", analysis_id, clinical_session_id)
    return analysis_id


def clinical_analysis_failed(clinical_session_id: str, error: str) -> None:
    clinical.analysis_failed(clinical_session_id, error)
