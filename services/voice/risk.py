"""Crisis on a call: the caller's own words through the analysis safety-floor detector, and
the one escalation per call that any crisis signal leads to."""

from __future__ import annotations

from peewee import IntegrityError

from models.base import db, utcnow
from models.voice import Escalation, VoiceCall
from services.analysis import crisis
from services.voice import events

RISK_BANDS = ("low", "moderate", "high", "imminent")
_RANK = {band: rank for rank, band in enumerate(RISK_BANDS)}
MAX_REASON_CHARS = 500


def caller_line_risk(text: str) -> str | None:
    """The risk band the detector puts on one final line said by the caller, or None.
    (The one place this package calls the detector; it reads the line as patient speech.)"""
    return crisis.detect_crisis(f"Patient: {text}").level


def higher(a: str | None, b: str | None) -> str | None:
    if a is None or b is None:
        return a or b
    return a if _RANK[a] >= _RANK[b] else b


def escalate(call: VoiceCall, risk_band: str, source: str, reason: str) -> Escalation:
    """The call's escalation, created (and `intake.crisis.detected` emitted) the first time;
    later signals only raise the call's risk band."""
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
                events.emit_for_call(call, "intake.crisis.detected",
                                     {"call_id": call.call_id, "risk_band": risk_band,
                                      "escalation_id": existing.id}, "crisis")
        band = higher(VoiceCall.get_by_id(call.id).risk_band, risk_band)
        (VoiceCall.update(risk_band=band, escalation_id=existing.id, updated_at=utcnow())
         .where(VoiceCall.id == call.id).execute())
        call.risk_band, call.escalation_id = band, existing.id
    return existing
