"""The post-visit analysis job queued when a live clinical session stops."""

from __future__ import annotations

import logging

from flask import current_app

from jobs.queue import QUEUE_ANALYSIS, enqueue, job_id
from models.base import db, utcnow
from models.clinical import ClinicalSession
from models.sessions import TherapySession
from services import analysis, clinical

logger = logging.getLogger(__name__)
MAX_ATTEMPTS = 3


def queue_clinical_analysis(session: ClinicalSession) -> str:
    """Queue the analysis of a stopped clinical session (call inside the stop transaction)."""
    jid = job_id("analysis", session.id)
    enqueue(analyze_clinical_session, session.id, id=jid, queue=QUEUE_ANALYSIS,
            max_attempts=MAX_ATTEMPTS, on_failure=clinical_analysis_failed)
    _set_status(session.session_id, "queued")
    return jid


def _set_status(session_id: str, status: str, error: str | None = None) -> None:
    (TherapySession.update(analysis_status=status, analysis_error=error, updated_at=utcnow())
     .where(TherapySession.id == session_id).execute())


def analyze_clinical_session(clinical_session_id: str) -> str:
    """Analyse the transcript and store the result on the session. Re-running after success
    does nothing: the analysis and the `succeeded` mark are committed together."""
    session = ClinicalSession.get_by_id(clinical_session_id)
    therapy = TherapySession.get_by_id(session.session_id)
    if therapy.analysis_status == "succeeded":
        return therapy.latest_analysis_id
    _set_status(therapy.id, "running")
    data = analysis.AnalysisInput(
        transcript=clinical.transcript_text(session),
        clinical_context={"session_id": therapy.id,
                          **({"template_id": therapy.template_id} if therapy.template_id
                             else {})},
        vital_signs={}, ai_metadata={"source": "clinical_session"})
    try:
        computed = analysis.compute(session.organization_id, data, current_app.config)
        with db.atomic():
            result = analysis.store(session.organization_id, computed, therapy,
                                    source="clinical_session")
            _set_status(therapy.id, "succeeded")
    except Exception as exc:
        # Make the attempt's failure visible on the session, then let RQ retry.
        _set_status(therapy.id, "retrying", _describe(exc))
        raise
    logger.info("analysis %s stored for clinical session %s", result.id, session.id)
    return result.id


def clinical_analysis_failed(clinical_session_id: str, error: str) -> None:
    session = ClinicalSession.get_or_none(ClinicalSession.id == clinical_session_id)
    if session is not None:
        _set_status(session.session_id, "failed", error)


def _describe(exc: Exception) -> str:
    message = getattr(exc, "message", None) or str(exc)
    return f"{type(exc).__name__}: {message}"[:500]
