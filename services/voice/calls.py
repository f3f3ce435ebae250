"""The voice platform's server messages applied to a call, and the call's state.

`handle` runs every message in one transaction, so an answer of 2xx means the message and all
it changed are stored. Each message is recorded under a dedup key (call, type, timestamp); a
duplicate changes nothing and emits nothing. Tool calls are answered once per `toolCallId`, and
a repeat gets the stored answer. A call's status only moves forward: never back from `ended`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from peewee import IntegrityError

from models.base import db, new_id, utcnow
from models.voice import VoiceCall, VoiceEvent, VoiceToolCall
from services import audit
from services.errors import NotFound
from services.usage import record_usage
from services.voice import assistant, events, functions, lines, messages, risk, summary
from services.voice.deployments import find_for_message

logger = logging.getLogger(__name__)

STATUS_RANK = {"scheduled": 0, "queued": 1, "ringing": 2, "in-progress": 3, "forwarding": 4,
               "ended": 5}
MAX_RESULT_CHARS = 4000
Origin = tuple[str | None, str | None]  # the webhook request's client address and request id
NO_ORIGIN: Origin = (None, None)
ENDED_REASON_CHARS = 200  # VoiceCall.ended_reason
FUNCTION_NAME_CHARS = 100  # VoiceToolCall.name


def handle(payload: Any, raw: bytes, public_base_url: Callable[[], str],
           origin: Origin = NO_ORIGIN) -> dict:
    """Apply one verified server message; returns the body the platform expects.
    `public_base_url` is asked only by the messages that link back here (not by transcript
    lines, most of a call's messages). `origin` (address, request id) goes in the audit rows
    of what the message writes."""
    message = messages.message_of(payload)
    kind = messages.message_type(message)
    if kind == "transcript" and not messages.is_final_transcript(message):
        return {}  # partials are superseded by the final line; they are not the transcript
    if kind == "transcript":
        return _transcript(message, raw, origin)
    base_url = public_base_url()
    if kind == "assistant-request":
        return assistant.respond(message, base_url)
    event = _event_fields(message, kind, raw)
    with db.atomic():
        call, created = _call_for(message)
        summary_before = call.summary_id if call else None
        platform_id = messages.call_id(message) or "-"
        fresh = _record(event, call)
        answer: dict = {}
        if kind == "tool-calls":
            answer = {"results": [_tool_call(call, platform_id, tc_id, name, args)
                                  for tc_id, name, args in messages.tool_calls(message)]}
        elif kind == "function-call":
            name, args = messages.function_call(message)
            stamp = messages.timestamp_ms(message)
            key = f"fn-{stamp}-{messages.function_call_digest(message)}" if stamp else None
            result = _tool_call(call, platform_id, key, name, args)
            answer = {"result": result.get("result", result.get("error"))}
        elif fresh and call is not None and (apply := _APPLY.get(kind)) is not None:
            apply(call, message, base_url)
        if call is not None and (fresh or created):
            _audit(call, origin, created, summary_before)
    return answer


def _audit(call: VoiceCall, origin: Origin, created: bool, summary_before: str | None) -> None:
    """The call's write by the platform, in the transaction that made it (SPEC §3: every write
    of patient data): the call created or updated, and the intake summary it got."""
    context = audit.by_peer(audit.VOICE_PLATFORM, call.organization_id, *origin)
    audit.record(context, "create" if created else "update", "voice_call", [call.id])
    if summary_before is None and call.status == "ended":
        # The summary is made on the call's row as read again by `summary.finalize`.
        summary_id = (VoiceCall.select(VoiceCall.summary_id)
                      .where(VoiceCall.id == call.id).scalar())
        if summary_id is not None:
            audit.record(context, "create", "intake_summary", [summary_id])


def _call_for(message: dict) -> tuple[VoiceCall | None, bool]:
    """The message's call, and whether this message created it."""
    platform_id = messages.call_id(message)
    if platform_id is None:
        return None, False
    call = VoiceCall.get_or_none(VoiceCall.call_id == platform_id)
    if call is not None:
        return call, False
    deployment = find_for_message(messages.deployment_hint(message),
                                  messages.called_number(message))
    if deployment is None:
        return None, False
    try:
        with db.atomic():
            call = VoiceCall.create(call_id=platform_id, organization=deployment.organization_id,
                                    deployment=deployment, endpoint=deployment.endpoint_id,
                                    patient_phone=messages.customer_number(message))
    except IntegrityError:  # the same call's first messages raced; the other one created it
        return VoiceCall.get(VoiceCall.call_id == platform_id), False
    record_usage(deployment.organization_id, "voice_calls", details={"call": call.id})
    events.emit_for_call(call, "intake.started",
                         {"call_id": platform_id, "deployment_id": deployment.id,
                          "patient_phone": call.patient_phone}, "started")
    logger.info("voice call %s started on deployment %s", call.id, deployment.id)
    return call, True


def _event_fields(message: dict, kind: str, raw: bytes) -> dict:
    return {"dedup_key": messages.dedup_key(message, kind or "unknown", raw),
            "call_id": messages.call_id(message), "type": (kind or "unknown")[:80],
            "timestamp_ms": messages.timestamp_ms(message),
            "payload": messages.strip_credentials({"message": message})}


def _record(event: dict, call: VoiceCall | None) -> bool:
    """Store the message; False when it is a duplicate (its dedup key is already stored)."""
    inserted = (VoiceEvent.insert(id=new_id("vev"),
                                  organization=call.organization_id if call else None, **event)
                .on_conflict_ignore().as_rowcount().execute())
    return inserted == 1


def _single_line(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"),
                                                           ensure_ascii=False)
    return " ".join(text.split())[:MAX_RESULT_CHARS]


def _tool_call(call: VoiceCall | None, platform_id: str, tool_call_id: str | None, name: str,
               args: dict) -> dict:
    """Run one intake function once per tool call id; a repeat answers the stored result."""
    key = messages.fit_id(f"{platform_id}:{tool_call_id}", 300) if tool_call_id else None
    stored = VoiceToolCall.get_or_none(VoiceToolCall.id == key) if key else None
    if stored is None:
        try:
            with db.atomic():
                result, error = _single_line(functions.run(call, name, args)), None
        except functions.FunctionError as exc:
            result, error = None, _single_line(str(exc))
            if exc.then is not None:
                with db.atomic():
                    exc.then()
        if key:
            stored = VoiceToolCall.create(id=key, call=call.id if call else None,
                                          name=name[:FUNCTION_NAME_CHARS],
                                          result=result, error=error)
        else:
            stored = VoiceToolCall(name=name, result=result, error=error)
    answer = {"toolCallId": tool_call_id or "", "name": name}
    if stored.error is not None:
        answer["error"] = stored.error
    else:
        answer["result"] = stored.result
    return answer


def _status_update(call: VoiceCall, message: dict, base_url: str) -> None:
    status = str(message.get("status") or "")
    if status not in STATUS_RANK or STATUS_RANK[status] <= STATUS_RANK.get(call.status, 0):
        return  # a late or repeated status never moves the call back
    moment = messages.parse_time(message.get("timestamp")) or utcnow()
    platform_call = messages.call_of(message)
    call.status, call.updated_at = status, utcnow()
    if status == "in-progress" or (status == "ended" and call.started_at is None):
        call.started_at = call.started_at or messages.parse_time(
            platform_call.get("startedAt")) or (moment if status == "in-progress" else None)
    if status == "ended":
        call.ended_at = messages.parse_time(platform_call.get("endedAt")) or moment
        call.ended_reason = messages.short_text(
            message.get("endedReason") or platform_call.get("endedReason"), ENDED_REASON_CHARS)
        call.duration_ms = _duration(call)
    call.save()
    logger.info("voice call %s status %s", call.id, status)
    if status == "ended":
        summary.finalize(call, base_url)


# VoiceCall.duration_ms is a 32-bit column (about 24.8 days); a longer span is no call's.
MAX_DURATION_MS = 2**31 - 1


def _duration(call: VoiceCall) -> int | None:
    if call.started_at and call.ended_at and call.ended_at >= call.started_at:
        duration = int((call.ended_at - call.started_at).total_seconds() * 1000)
        return duration if duration <= MAX_DURATION_MS else None
    return None


def _transcript_line(message: dict) -> tuple[str, str, Any, str | None] | None:
    """(role, text, time, crisis band) of a final line; the detector reads callers' lines."""
    text = message.get("transcript")
    if not isinstance(text, str) or not text.strip():
        return None
    role = messages.role_of(message.get("role"))
    band = risk.caller_line_risk(text) if role not in messages.NOT_CALLER_ROLES else None
    return (role, text.strip(), messages.parse_time(message.get("timestamp")) or utcnow(),
            band)


def _transcript(message: dict, raw: bytes, origin: Origin) -> dict:
    """Store a final line. The common case, an ordinary line of a call already known, is
    stored without the transaction below; a first message (which creates the call) and a line
    with crisis language (which escalates with it) take the full path."""
    key = messages.dedup_key(message, "transcript", raw)
    line = _transcript_line(message)
    platform_id = messages.call_id(message)
    if line is not None and line[3] is None and platform_id is not None:
        outcome = lines.append_to_platform_call(
            platform_id, key, *line[:3],
            audited=audit.by_peer(audit.VOICE_PLATFORM, None, *origin))
        if outcome in (lines.Outcome.STORED, lines.Outcome.DUPLICATE):
            return {}
        # NO_CALL: the call is created below. FULL: the message is kept as an event below.
    event = _event_fields(message, "transcript", raw)
    with db.atomic():
        call, created = _call_for(message)
        if call is None or line is None:
            fresh = _record(event, call)
        else:
            fresh = add_transcript_line(call, *line, dedup_key=key, event=event,
                                        covered_by=lines.report_line_key(call.call_id,
                                                                         *line[:2]))
        if call is not None and (fresh or created):
            _audit(call, origin, created, call.summary_id)
    return {}


def add_transcript_line(call: VoiceCall, role: str, text: str, at: Any, band: str | None,
                        dedup_key: str | None = None, event: dict | None = None,
                        covered_by: str | None = None) -> bool:
    """Store one final line (once per dedup key, and not when the report's copy of it is
    there: `covered_by`), escalating when the caller's words carry crisis language. A line
    past the call's transcript limit is not in the transcript, but its message is stored as
    an event and its crisis language escalates all the same: a full transcript must not
    silence a caller. Whether anything was stored."""
    outcome = lines.append(call.id, dedup_key or new_id("line"), role, text, at, covered_by)
    if outcome is lines.Outcome.FULL and event is not None:
        _record(event, call)
    if outcome in (lines.Outcome.STORED, lines.Outcome.FULL) and band is not None:
        risk.escalate(call, band, "transcript", risk.line_reason(text))
    return outcome in (lines.Outcome.STORED, lines.Outcome.FULL)


def _end_of_call_report(call: VoiceCall, message: dict, base_url: str) -> None:
    report = messages.end_report(message)
    call.started_at = report["started_at"] or call.started_at  # the report is authoritative
    if report["ended_at"]:
        call.ended_at = report["ended_at"]
    call.ended_at = call.ended_at or messages.parse_time(message.get("timestamp")) or utcnow()
    call.ended_reason = messages.short_text(report["ended_reason"], ENDED_REASON_CHARS) \
        or call.ended_reason
    call.status = "ended"
    call.duration_ms = _duration(call)
    call.report = {"summary": report["summary"], "structured_data": report["structured_data"],
                   "success_evaluation": report["success_evaluation"]}
    call.updated_at = utcnow()
    call.save()
    if call.transcript_count == 0:
        # No transcript messages (yet): take the final lines from the artifact, each under a
        # key that a transcript message of the same line, arriving late, finds.
        seen: dict[tuple[str, str], int] = {}
        for entry in report["messages"]:
            if not isinstance(entry, dict) or entry.get("role") not in ("user", "bot",
                                                                        "assistant"):
                continue
            line = _transcript_line({"transcript": entry.get("message"),
                                     "role": entry.get("role"), "timestamp": entry.get("time")})
            if line is not None:
                occurrence = seen.get(line[:2], 0)
                seen[line[:2]] = occurrence + 1
                add_transcript_line(
                    call, *line[:2], line[2] if entry.get("time") else call.ended_at, line[3],
                    dedup_key=lines.report_line_key(call.call_id, *line[:2], occurrence))
    summary.finalize(call, base_url)


def _hang(call: VoiceCall, message: dict, base_url: str) -> None:
    call.hung_at = messages.parse_time(message.get("timestamp")) or utcnow()
    call.save()


def _user_interrupted(call: VoiceCall, message: dict, base_url: str) -> None:
    VoiceCall.update(interruptions=VoiceCall.interruptions + 1).where(
        VoiceCall.id == call.id).execute()


_APPLY = {
    "status-update": _status_update,
    "end-of-call-report": _end_of_call_report,
    "hang": _hang,
    "user-interrupted": _user_interrupted,
    # speech-update and unknown types: recorded above, nothing else to change.
}


def get_call(organization_id: str, platform_call_id: str) -> VoiceCall:
    call = VoiceCall.get_or_none((VoiceCall.call_id == messages.fit_id(platform_call_id))
                                 & (VoiceCall.organization == organization_id))
    if call is None:
        raise NotFound("Call not found.")
    return call


def call_state(call: VoiceCall) -> dict:
    return {
        "call_id": call.call_id, "deployment_id": call.deployment_id, "status": call.status,
        "started_at": call.started_at, "ended_at": call.ended_at,
        "ended_reason": call.ended_reason, "duration_ms": call.duration_ms,
        "patient_phone": call.patient_phone, "hung_at": call.hung_at,
        "interruptions": call.interruptions, "details": call.details,
        "screeners": [r for r in summary.screener_results(call) if r.completed_at],
        "risk_band": call.risk_band, "escalation_id": call.escalation_id,
        "summary_id": call.summary_id,
    }


def transcript(call: VoiceCall) -> dict:
    entries = [{"seq": position, "role": e.role, "text": e.text, "at": e.at}
               for position, e in enumerate(summary.transcript_entries(call), start=1)]
    return {"call_id": call.call_id, "entries": entries}
