"""Crisis on a call: the caller's own words through the analysis safety-floor detector, and
the one escalation per call that any crisis signal leads to."""

from __future__ import annotations

from peewee import IntegrityError

from models.base import db, is_postgres, utcnow
from models.voice import Escalation, VoiceCall
from services.analysis import crisis
from services.voice import events

RISK_BANDS = ("low", "moderate", "high", "imminent")
_RANK = {band: rank for rank, band in enumerate(RISK_BANDS)}
MAX_REASON_CHARS = 500
QUOTE_CHARS = 160


def caller_line_risk(text: str) -> str | None:
    """The risk band the detector puts on one final line said by the caller, or None.
    (This and `caller_review_cues` are the places this package calls the detector; it reads
    the caller's lines as patient speech.)"""
    return crisis.detect_crisis(f"Patient: {text}").level


def caller_review_cues(lines: list[str]) -> list[str]:
    """The review tier's factors (being a burden, goodbyes, giving things away,
    hopelessness), quoted, of the caller's lines read together as a patient's turns."""
    said = [" ".join(line.split()) for line in lines]
    if not said:
        return []
    return [cue.factor for cue in
            crisis.detect_crisis("\n".join(f"Patient: {text}" for text in said)).review]


def line_reason(text: str) -> str:
    """Why a caller's line escalated, quoting it (cut to QUOTE_CHARS): the packet a clinician
    reads must show what was said, which its transcript excerpt (the last lines) may not."""
    quote = " ".join(text.split())
    if len(quote) > QUOTE_CHARS:
        quote = quote[:QUOTE_CHARS - 1].rstrip() + "\u2026"
    return f'crisis language in the caller\'s words: "{quote}"'


def higher(a: str | None, b: str | None) -> str | None:
    if a is None or b is None:
        return a or b
    return a if _RANK[a] >= _RANK[b] else b


def escalate(call: VoiceCall, risk_band: str, source: str, reason: str) -> Escalation:
    """The call's one escalation, created (and `intake.crisis.detected` emitted) the first
    time. A later signal adds its reason; one that raises the band raises the escalation's
    and tells the clinic again (an alert at `high` must not hide a later `imminent`)."""
    with db.atomic():
        existing = Escalation.get_or_none(Escalation.call == call.id)
        if existing is None:
            try:
                with db.atomic():
                    existing = Escalation.create(call=call.id,
                                                 organization=call.organization_id,
                                                 risk_band=risk_band, source=source,
                                                 reason=reason[:MAX_REASON_CHARS])
            except IntegrityError:
                existing = Escalation.get(Escalation.call == call.id)
            else:
                _tell_clinic(call, existing, "crisis")
        else:
            existing = _add_signal(call, existing, risk_band, source, reason)
        band = higher(VoiceCall.get_by_id(call.id).risk_band, risk_band)
        (VoiceCall.update(risk_band=band, escalation_id=existing.id, updated_at=utcnow())
         .where(VoiceCall.id == call.id).execute())
        call.risk_band, call.escalation_id = band, existing.id
    return existing


def _add_signal(call: VoiceCall, escalation: Escalation, risk_band: str, source: str,
                reason: str) -> Escalation:
    """A later signal of the same call: its reason is kept beside the earlier ones (within
    MAX_REASON_CHARS), and a higher band raises the escalation's and is told to the clinic."""
    query = Escalation.select().where(Escalation.id == escalation.id)
    # Two signals at once: each reads the other's reason (SQLite's BEGIN IMMEDIATE already
    # holds the write lock).
    escalation = (query.for_update() if is_postgres() else query).get()
    fields: dict = {}
    reason = reason.strip()
    if reason and reason not in escalation.reason:
        fields["reason"] = f"{escalation.reason}; {reason}"[:MAX_REASON_CHARS]
    raised = _RANK[risk_band] > _RANK[escalation.risk_band]
    if raised:
        fields.update(risk_band=risk_band, source=source)
    if fields:
        Escalation.update(**fields).where(Escalation.id == escalation.id).execute()
        for name, value in fields.items():
            setattr(escalation, name, value)
    if raised:
        _tell_clinic(call, escalation, f"crisis_{risk_band}")
    return escalation


def _tell_clinic(call: VoiceCall, escalation: Escalation, key: str) -> None:
    events.emit_for_call(call, "intake.crisis.detected",
                         {"call_id": call.call_id, "risk_band": escalation.risk_band,
                          "escalation_id": escalation.id}, key, ordered=False)
