"""The post-visit analysis job queued when a live clinical session stops (queued by
`services.clinical.stop` under these functions' dotted paths)."""

from __future__ import annotations

import logging

from flask import current_app

from services import clinical

logger = logging.getLogger(__name__)


def analyze_clinical_session(clinical_session_id: str) -> str:
    analysis_id = clinical.run_analysis(clinical_session_id, current_app.config)
    logger.info("analysis %s stored for clinical session %s", analysis_id, clinical_session_id)
    return analysis_id


def clinical_analysis_failed(clinical_session_id: str, error: str) -> None:
    clinical.analysis_failed(clinical_session_id, error)
