"""The end of a call: its intake summary (the handoff packet), metering and final events."""

from __future__ import annotations

import math

from models.base import db, utcnow
from models.voice import (
    Escalation,
    IntakeSummary,
    ScreenerResult,
    VoiceCall,
    VoiceTranscriptEntry,
)
from services.errors import NotFound
from services.usage import record_usage
from services.voice import events, messages, risk

EXCERPT_ENTRIES = 12
MS_PER_MINUTE = 60_000
HANDOFF_PATH = "/api/voice/intake-summaries/{summary_id}"


def iso(moment) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment else None


def transcript_entries(call: VoiceCall) -> list[VoiceTranscriptEntry]:
    """Final lines in the order they were said (message time, then arrival)."""
    return list(VoiceTranscriptEntry.select().where(VoiceTranscriptEntry.call == call.id)
                .order_by(VoiceTranscriptEntry.at, VoiceTranscriptEntry.id))


def screener_results(call: VoiceCall) -> list[ScreenerResult]:
    return list(ScreenerResult.select().where(ScreenerResult.call == call.id)
                .order_by(ScreenerResult.completed_at, ScreenerResult.screener))


def review_cues(entries: list[VoiceTranscriptEntry]) -> list[str]:
    """Softer cues in the caller's words that a clinician should follow up: they open no
    escalation on a call; the packet lists them, quoted, so that they are not lost."""
    return risk.caller_review_cues([e.text for e in entries
                                    if e.role not in messages.NOT_CALLER_ROLES])


def build_content(call: VoiceCall) -> dict:
    entries = transcript_entries(call)
    results = screener_results(call)
    escalation = Escalation.get_or_none(Escalation.call == call.id)
    report = call.report or {}
    return {
        "call_id": call.call_id,
        "deployment_id": call.deployment_id,
        "patient_phone": call.patient_phone,
        "started_at": iso(call.started_at),
        "ended_at": iso(call.ended_at),
        "ended_reason": call.ended_reason,
        "duration_ms": call.duration_ms,
        "details": call.details,
        "screeners": [{"screener": r.screener, "score": r.score, "severity": r.severity,
                       "completed_at": iso(r.completed_at)}
                      for r in results if r.completed_at],
        # Begun and not submitted (the call ended, the caller stopped): the answers given, so
        # that a clinician sees them (a PHQ-9 item 9 among them), by item number.
        "screeners_incomplete": [
            {"screener": r.screener,
             "answers": {item: r.answers[item] for item in sorted(r.answers, key=int)}}
            for r in results if not r.completed_at and r.answers],
        # As on the call: null until a signal raises it (no crisis signal is not an assessment).
        "risk": {"risk_band": call.risk_band, "review": review_cues(entries),
                 "escalation": None if escalation is None else {
                     "escalation_id": escalation.id, "risk_band": escalation.risk_band,
                     "source": escalation.source, "reason": escalation.reason,
                     "created_at": iso(escalation.created_at)}},
        "platform_summary": report.get("summary"),
        "transcript_excerpt": [{"role": e.role, "text": e.text, "at": iso(e.at)}
                               for e in entries[-EXCERPT_ENTRIES:]],
        "transcript_entries": len(entries),
    }


def refresh(call: VoiceCall) -> IntakeSummary:
    """Create or update the call's summary from what is stored now."""
    content = build_content(call)
    summary = IntakeSummary.get_or_none(IntakeSummary.call == call.id)
    if summary is None:
        summary = IntakeSummary.create(call=call.id, organization=call.organization_id,
                                       content=content)
        VoiceCall.update(summary_id=summary.id).where(VoiceCall.id == call.id).execute()
        call.summary_id = summary.id
    else:
        summary.content, summary.updated_at = content, utcnow()
        summary.save()
    return summary


def _meter_minutes(call: VoiceCall) -> None:
    """`voice_minutes` (rounded up), once per call, at the first end message that gives the
    call a duration: `status-update: ended` may come without the start, before the report."""
    if not call.duration_ms:
        return
    claimed = (VoiceCall.update(minutes_metered=True)
               .where((VoiceCall.id == call.id) & (VoiceCall.minutes_metered == False))  # noqa: E712
               .execute())
    if claimed:
        record_usage(call.organization_id, "voice_minutes",
                     math.ceil(call.duration_ms / MS_PER_MINUTE), {"call": call.id})


def finalize(call: VoiceCall, base_url: str) -> None:
    """Once per call (the first of `status-update: ended` and the end-of-call report): the
    summary, `intake.summary.ready` then `intake.completed`. Later reports only refresh the
    summary. Minutes are metered by whichever of them first knows the duration."""
    with db.atomic():
        claimed = (VoiceCall.update(finalized=True)
                   .where((VoiceCall.id == call.id) & (VoiceCall.finalized == False))  # noqa: E712
                   .execute())
        call = VoiceCall.get_by_id(call.id)
        summary = refresh(call)
        _meter_minutes(call)
        if not claimed:
            return
        url = base_url.rstrip("/") + HANDOFF_PATH.format(summary_id=summary.id)
        events.emit_for_call(call, "intake.summary.ready",
                             {"call_id": call.call_id, "handoff_packet_url": url},
                             "summary_ready")
        events.emit_for_call(call, "intake.completed",
                             {"call_id": call.call_id, "summary_id": summary.id,
                              "duration_ms": call.duration_ms}, "completed")


def get_summary(organization_id: str, summary_id: str) -> IntakeSummary:
    """The handoff packet as the call stands now. Events come out of order: a caller's line,
    a screener or an escalation may arrive after the end of the call, and the packet a
    clinician reads must show it (the stored content is brought up to date when it differs)."""
    summary = IntakeSummary.get_or_none((IntakeSummary.id == summary_id)
                                        & (IntakeSummary.organization == organization_id))
    if summary is None:
        raise NotFound("Intake summary not found.")
    content = build_content(VoiceCall.get_by_id(summary.call_id))
    if content != summary.content:
        summary.content, summary.updated_at = content, utcnow()
        (IntakeSummary.update(content=content, updated_at=summary.updated_at)
         .where(IntakeSummary.id == summary.id).execute())
    return summary
