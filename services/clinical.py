"""The live clinical session: start on a therapy session, append transcript chunks in order,
stop (which completes the therapy session and queues its post-visit analysis)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from models.base import db, utcnow
from models.clinical import ClinicalSession, TranscriptChunk
from models.jobs import QUEUE_ANALYSIS, job_id, record_job
from models.sessions import TherapySession
from services import analysis
from services.errors import Conflict, DomainError
from services.limits import MAX_ERROR_CHARS, MAX_TRANSCRIPT_CHARS
from services.sessions import FINAL_STATUSES, get_session, set_status
from services.tenancy import get_owned

SPEAKER_LABELS = {"clinician": "Clinician", "patient": "Patient"}
ANALYSIS_SOURCE = "clinical_session"
# The job and its final-failure hook, by dotted path: the job module imports this one.
ANALYSIS_JOB = "jobs.analysis.analyze_clinical_session"
ANALYSIS_FAILED_HOOK = "jobs.analysis.clinical_analysis_failed"
ANALYSIS_MAX_ATTEMPTS = 3


def start(organization_id: str, session_id: str) -> ClinicalSession:
    with db.transaction():
        session = get_session(organization_id, session_id)
        active = ClinicalSession.select().where(
            (ClinicalSession.session == session) & (ClinicalSession.status == "active")).exists()
        if active:
            raise Conflict("This session already has an active clinical session.")
        if session.status != "in_progress":
            try:
                set_status(session, "in_progress")
            except Conflict as error:
                # The session's status is at fault, and this request names it by its id.
                raise Conflict(error.message, field="session_id") from error
        clinical = ClinicalSession.create(organization=organization_id, session=session)
        (TherapySession.update(active_clinical_session_id=clinical.id, updated_at=utcnow())
         .where(TherapySession.id == session.id).execute())
        return clinical


def get_clinical(organization_id: str, clinical_id: str) -> ClinicalSession:
    return get_owned(ClinicalSession, organization_id, clinical_id, "Clinical session")


def append_chunk(clinical: ClinicalSession, speaker: str, text: str) -> TranscriptChunk:
    """Append one chunk; its `seq` is taken under the row lock, so chunks keep arrival order."""
    with db.transaction():
        claimed = (ClinicalSession
                   .update(chunk_count=ClinicalSession.chunk_count + 1,
                           char_count=ClinicalSession.char_count + len(text))
                   .where((ClinicalSession.id == clinical.id)
                          & (ClinicalSession.status == "active")
                          & (ClinicalSession.char_count + len(text) <= MAX_TRANSCRIPT_CHARS))
                   .execute())
        if not claimed:
            current = ClinicalSession.get_by_id(clinical.id)
            if current.status != "active":
                raise Conflict("The clinical session has stopped.")
            raise Conflict(f"The transcript would exceed {MAX_TRANSCRIPT_CHARS} characters.")
        seq = ClinicalSession.get_by_id(clinical.id).chunk_count
        return TranscriptChunk.create(clinical_session=clinical, seq=seq, speaker=speaker,
                                      text=text)


def transcript_chunks(clinical: ClinicalSession) -> list[TranscriptChunk]:
    return list(TranscriptChunk.select()
                .where(TranscriptChunk.clinical_session == clinical)
                .order_by(TranscriptChunk.seq))


def transcript_text(clinical: ClinicalSession) -> str:
    return "\n".join(f"{SPEAKER_LABELS[c.speaker]}: {c.text}" for c in transcript_chunks(clinical))


def stop(clinical: ClinicalSession) -> ClinicalSession:
    """Stop, complete the therapy session and queue the analysis — one transaction, so the
    job exists exactly when the stop is recorded."""
    with db.transaction():
        stopped = (ClinicalSession.update(status="stopped")
                   .where((ClinicalSession.id == clinical.id)
                          & (ClinicalSession.status == "active")).execute())
        if not stopped:
            raise Conflict("The clinical session has already stopped.")
        clinical = ClinicalSession.get_by_id(clinical.id)
        # The time is read once the row is ours: a chunk accepted before the stop (it held
        # the row while this waited) is never stamped later than the stop.
        clinical.stopped_at = utcnow()
        (TherapySession.update(active_clinical_session_id=None)
         .where(TherapySession.id == clinical.session_id).execute())
        therapy = TherapySession.get_by_id(clinical.session_id)
        if therapy.status not in FINAL_STATUSES:
            set_status(therapy, "completed")
        # else the session was made final while this one ran (possible before such a change
        # was refused): the live session still ends, and its transcript is still analysed.
        if clinical.chunk_count == 0:
            set_analysis_status(clinical.session_id, "skipped")
        else:
            clinical.analysis_job_id = _queue_analysis(clinical)
            set_analysis_status(clinical.session_id, "queued")
        clinical.save()
    return clinical


def _queue_analysis(clinical: ClinicalSession) -> str:
    """Record the analysis job inside the stop transaction; returns its id."""
    jid = job_id("analysis", clinical.id)
    record_job(ANALYSIS_JOB, clinical.id, id=jid, queue=QUEUE_ANALYSIS,
               max_attempts=ANALYSIS_MAX_ATTEMPTS, on_failure=ANALYSIS_FAILED_HOOK)
    return jid


def set_analysis_status(session_id: str, status: str, error: str | None = None) -> None:
    """The post-visit analysis state shown on the therapy session."""
    (TherapySession.update(analysis_status=status, analysis_error=error, updated_at=utcnow())
     .where(TherapySession.id == session_id).execute())


def _analysis_input(clinical: ClinicalSession, therapy: TherapySession) -> analysis.AnalysisInput:
    context = {"session_id": therapy.id}
    if therapy.template_id:
        context["template_id"] = therapy.template_id
    return analysis.AnalysisInput(transcript=transcript_text(clinical), clinical_context=context,
                                  vital_signs={}, ai_metadata={"source": ANALYSIS_SOURCE})


def run_analysis(clinical_session_id: str, config: Mapping[str, Any]) -> str:
    """Analyse a stopped session's transcript and store the result on the therapy session.

    The model call runs outside any transaction; the analysis and the `succeeded` mark are
    committed together, so a re-run after success finds it done and changes nothing. A failed
    attempt is shown as `retrying` and re-raised for the queue to retry."""
    clinical = ClinicalSession.get_by_id(clinical_session_id)
    therapy = TherapySession.get_by_id(clinical.session_id)
    if therapy.analysis_status == "succeeded":
        return therapy.latest_analysis_id
    set_analysis_status(therapy.id, "running")
    try:
        computed = analysis.compute(clinical.organization_id,
                                    _analysis_input(clinical, therapy), config)
        with db.transaction():
            stored = analysis.store(clinical.organization_id, computed, therapy,
                                    source=ANALYSIS_SOURCE)
            set_analysis_status(therapy.id, "succeeded")
    except Exception as exc:
        set_analysis_status(therapy.id, "retrying", _describe(exc))
        raise
    return stored.id


def analysis_failed(clinical_session_id: str, error: str) -> None:
    """The last attempt failed: say so on the therapy session."""
    clinical = ClinicalSession.get_or_none(ClinicalSession.id == clinical_session_id)
    if clinical is not None:
        set_analysis_status(clinical.session_id, "failed", error)


def floor_of_unanalysed(therapy: TherapySession) -> dict[str, Any] | None:
    """While the live session's analysis is failing or has failed, the safety floor's reading
    of its transcript (level, factors) when it holds crisis language or a review cue: a model
    that is down must not hide what the detector saw. None otherwise."""
    if therapy.analysis_status not in ("retrying", "failed"):
        return None
    clinical = (ClinicalSession.select()
                .where((ClinicalSession.session == therapy.id)
                       & (ClinicalSession.status == "stopped"))
                .order_by(ClinicalSession.stopped_at.desc()).first())
    if clinical is None:
        return None
    return analysis.floor_only(transcript_text(clinical))


def _describe(exc: Exception) -> str:
    # The service's own errors say it in their message, as the `failed` status does (the
    # class name is no word of the API); anything else is named by its type.
    if isinstance(exc, DomainError):
        return exc.message[:MAX_ERROR_CHARS]
    return f"{type(exc).__name__}: {exc}"[:MAX_ERROR_CHARS]
