"""The live clinical session: start on a therapy session, append transcript chunks in order,
stop (which completes the therapy session and queues its post-visit analysis)."""

from __future__ import annotations

from models.base import db, utcnow
from models.clinical import ClinicalSession, TranscriptChunk
from models.sessions import TherapySession
from services.analysis import MAX_TRANSCRIPT_CHARS
from services.errors import Conflict
from services.sessions import get_session, set_status
from services.tenancy import get_owned

SPEAKER_LABELS = {"clinician": "Clinician", "patient": "Patient"}


def start(organization_id: str, session_id: str) -> ClinicalSession:
    with db.atomic():
        session = get_session(organization_id, session_id)
        active = ClinicalSession.select().where(
            (ClinicalSession.session == session) & (ClinicalSession.status == "active")).exists()
        if active:
            raise Conflict("This session already has an active clinical session.")
        if session.status != "in_progress":
            set_status(session, "in_progress")
        return ClinicalSession.create(organization=organization_id, session=session)


def get_clinical(organization_id: str, clinical_id: str) -> ClinicalSession:
    return get_owned(ClinicalSession, organization_id, clinical_id, "Clinical session")


def append_chunk(clinical: ClinicalSession, speaker: str, text: str) -> TranscriptChunk:
    """Append one chunk; its `seq` is taken under the row lock, so chunks keep arrival order."""
    with db.atomic():
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
    from jobs.analysis import queue_clinical_analysis

    with db.atomic():
        stopped = (ClinicalSession.update(status="stopped", stopped_at=utcnow())
                   .where((ClinicalSession.id == clinical.id)
                          & (ClinicalSession.status == "active")).execute())
        if not stopped:
            raise Conflict("The clinical session has already stopped.")
        clinical = ClinicalSession.get_by_id(clinical.id)
        session = TherapySession.get_by_id(clinical.session_id)
        set_status(session, "completed")
        if clinical.chunk_count == 0:
            session.analysis_status = "skipped"
            session.save()
        else:
            clinical.analysis_job_id = queue_clinical_analysis(clinical)
            clinical.save()
    return clinical
