"""The intake functions the assistant calls during a call.

Each returns a small dict read back to the assistant; a caller or assistant mistake (an answer
out of range, an unknown screener, a set with items missing) raises FunctionError, whose message
becomes the tool call's `error` so the assistant can correct itself.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from models.base import db, utcnow
from models.voice import ScreenerResult, VoiceCall, VoiceDeployment
from services.numbers import whole_number
from services.voice import events, risk
from services.voice import screeners as defs

MAX_DETAIL_FIELDS = 30
MAX_DETAIL_CHARS = 2000
CRISIS_INSTRUCTIONS = ("Stay with the caller. If they are in immediate danger, tell them to "
                       "call 911 now. Otherwise tell them they can call or text 988 (Suicide & "
                       "Crisis Lifeline) any time; a clinician will be alerted.")


class FunctionError(Exception):
    """A mistake the assistant can fix; the message is read back to it. `then` is what must
    happen all the same, after the refused call's writes are rolled back (an escalation)."""

    def __init__(self, message: str, then: Callable[[], object] | None = None) -> None:
        super().__init__(message)
        self.then = then


def _screener_for(call: VoiceCall, name: object) -> defs.Screener:
    try:
        screener = defs.get(name)
    except defs.ScreenerError as exc:
        raise FunctionError(str(exc)) from exc
    deployment = VoiceDeployment.get_or_none(VoiceDeployment.id == call.deployment_id)
    allowed = (deployment.screeners if deployment else None) or defs.DEFAULT_SCREENERS
    if screener.name not in allowed:
        raise FunctionError(f"{screener.name} is not used on this line; use "
                            f"{', '.join(allowed)}")
    return screener


def _result_row(call: VoiceCall, screener: defs.Screener) -> ScreenerResult:
    row, _ = ScreenerResult.get_or_create(call=call.id, screener=screener.name)
    return row


def _check_item_nine(call: VoiceCall, screener: defs.Screener,
                     answers: dict[int, int]) -> str | None:
    """PHQ-9 item 9 above 0 is a crisis signal whatever the total."""
    if screener.name == "phq9" and answers.get(defs.PHQ9_SUICIDALITY_ITEM, 0) > 0:
        return _escalate_item_nine(call)
    return None


def _escalate_item_nine(call: VoiceCall) -> str:
    return risk.escalate(call, "high", "phq9_item9",
                         "PHQ-9 item 9 (thoughts of self-harm) answered above 0").id


def _item_nine_above_zero(screener: defs.Screener, item: object, score: object) -> bool:
    """Whether an answer gives PHQ-9 item 9 a whole number above 0, on the scale or not: "7"
    for item 9 is refused as an answer, yet says the caller has such thoughts."""
    if screener.name != "phq9" or whole_number(item) != defs.PHQ9_SUICIDALITY_ITEM:
        return False
    value = whole_number(score)
    return value is not None and value > 0


def _item_nine_of_refused(call: VoiceCall, screener: defs.Screener, answers: Any) -> None:
    """A PHQ-9 refused for another answer (out of range, say) still escalates when its item 9
    is above 0 (SPEC §10: whatever the total); only nine answers place item 9."""
    if screener.name != "phq9" or not isinstance(answers, list) or \
            len(answers) != screener.items:
        return
    if _item_nine_above_zero(screener, defs.PHQ9_SUICIDALITY_ITEM,
                             answers[defs.PHQ9_SUICIDALITY_ITEM - 1]):
        _escalate_item_nine(call)


def record_screener_answer(call: VoiceCall, args: dict[str, Any]) -> dict:
    screener = _screener_for(call, args.get("screener"))
    try:
        item, score = defs.check_item(screener, args.get("item"), args.get("score"))
    except defs.ScreenerError as exc:
        escalate = _item_nine_above_zero(screener, args.get("item"), args.get("score"))
        raise FunctionError(str(exc), then=(lambda: _escalate_item_nine(call))
                            if escalate else None) from exc
    with db.atomic():
        row = _result_row(call, screener)
        if row.completed_at is not None:
            raise FunctionError(f"{screener.name} was already submitted")
        row.answers = {**row.answers, str(item): score}
        row.save()
        escalation_id = _check_item_nine(call, screener, {item: score})
    answered = sorted(int(k) for k in row.answers)
    result = {"screener": screener.name, "item": item, "score": score,
              "answered": len(answered),
              "remaining": [i for i in range(1, screener.items + 1) if i not in answered]}
    if escalation_id:
        result.update(escalation_id=escalation_id, instructions=CRISIS_INSTRUCTIONS)
    return result


def submit_screener(call: VoiceCall, args: dict[str, Any]) -> dict:
    screener = _screener_for(call, args.get("screener"))
    with db.atomic():
        row = _result_row(call, screener)
        try:
            if args.get("answers") is not None:
                answers = defs.answers_from_list(screener, args["answers"])
            else:
                answers = {int(k): v for k, v in row.answers.items()}
            if row.completed_at is not None:
                return _submitted_again(screener, row, answers)
            score, severity = defs.total(screener, answers)
        except defs.ScreenerError as exc:
            answers_sent = args.get("answers")
            raise FunctionError(str(exc), then=lambda: _item_nine_of_refused(
                call, screener, answers_sent)) from exc
        row.answers = {str(k): v for k, v in answers.items()}
        row.score, row.severity, row.completed_at = score, severity, utcnow()
        row.save()
        events.emit_for_call(call, "intake.screener.completed",
                             {"call_id": call.call_id, "screener": screener.name,
                              "score": score, "severity": severity},
                             f"screener_{screener.name}")
        escalation_id = _check_item_nine(call, screener, answers)
    result = {"screener": screener.name, "score": score, "severity": severity}
    if escalation_id:
        result.update(escalation_id=escalation_id, instructions=CRISIS_INSTRUCTIONS)
    return result


def _submitted_again(screener: defs.Screener, row: ScreenerResult,
                     answers: dict[int, int]) -> dict:
    """A screener is scored once per call: the same answers again (a repeated message) get
    the stored result; other answers are refused, so the assistant never reads a score that
    is not of the answers it sent."""
    if {str(k): v for k, v in answers.items()} != row.answers:
        raise FunctionError(f"{screener.name} was already submitted in this call "
                            f"(score {row.score}, {row.severity}); it is scored once")
    return {"screener": screener.name, "score": row.score, "severity": row.severity}


def report_crisis(call: VoiceCall, args: dict[str, Any]) -> dict:
    # A crisis report is never refused for its form: a band the assistant got wrong ("severe",
    # none) is escalated as high, a missing reason said to be missing. It was refused, and
    # no clinician heard of it.
    band = str(args.get("risk_band") or "").strip().lower()
    if band not in risk.RISK_BANDS:
        band = "high"
    reason = str(args.get("reason") or "").strip() or "(the assistant gave no reason)"
    escalation = risk.escalate(call, band, "report_crisis", reason)
    return {"escalation_id": escalation.id, "risk_band": call.risk_band,
            "instructions": CRISIS_INSTRUCTIONS}


def save_intake_details(call: VoiceCall, args: dict[str, Any]) -> dict:
    details = {k: v for k, v in args.items() if v is not None}
    if not details:
        raise FunctionError("no details given")
    if len(details) > MAX_DETAIL_FIELDS:
        raise FunctionError(f"at most {MAX_DETAIL_FIELDS} details at once")
    for key, value in details.items():
        if not isinstance(value, str | int | float | bool) or len(str(value)) > MAX_DETAIL_CHARS:
            raise FunctionError(f"{key} must be a short text, number or yes/no")
    with db.atomic():
        current = VoiceCall.get_by_id(call.id)
        merged = {**current.details, **details}
        VoiceCall.update(details=merged, updated_at=utcnow()).where(
            VoiceCall.id == call.id).execute()
    return {"saved": sorted(details)}


FUNCTIONS: dict[str, Callable[[VoiceCall, dict[str, Any]], dict]] = {
    "record_screener_answer": record_screener_answer,
    "submit_screener": submit_screener,
    "report_crisis": report_crisis,
    "save_intake_details": save_intake_details,
}


def run(call: VoiceCall | None, name: str, args: dict[str, Any]) -> dict:
    if name not in FUNCTIONS:
        raise FunctionError(f"unknown function {name!r}")
    if call is None:
        raise FunctionError("this call is not attached to a clinic's intake line")
    return FUNCTIONS[name](call, args)
