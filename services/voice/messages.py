"""Reading the voice platform's server messages in all the shapes its versions send.

Pure functions over the decoded JSON: no database, no HTTP.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import UTC, datetime
from typing import Any

FINAL_TRANSCRIPT_TYPE = 'transcript[transcriptType="final"]'
CALLER_ROLES = frozenset({"user", "customer"})
# Credentials the platform may include on the phone number object (SIP/Twilio/Vonage…).
_CREDENTIAL_KEYS = frozenset({"credentialId", "credential", "twilioAuthToken", "twilioApiKey",
                              "twilioApiSecret", "authToken", "apiKey", "apiSecret",
                              "password", "sipUri", "authentication", "credentials",
                              "vonageApiSecret", "telnyxApiKey", "secret", "serverUrlSecret",
                              # a `server` object's HTTP headers carry its bearer tokens
                              "headers", "credentialIds"})


class MalformedMessage(ValueError):
    """The body is JSON but not a server message."""


def message_of(payload: Any) -> dict:
    if isinstance(payload, dict) and isinstance(payload.get("message"), dict):
        return payload["message"]
    raise MalformedMessage("the body must be an object with a `message` object")


def message_type(message: dict) -> str:
    kind = message.get("type")
    if kind == FINAL_TRANSCRIPT_TYPE:
        return "transcript"
    return kind if isinstance(kind, str) else ""


def _obj(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def call_of(message: dict) -> dict:
    return _obj(message.get("call"))


def call_id(message: dict) -> str | None:
    value = call_of(message).get("id")
    return fit_id(str(value)) if value not in (None, "") else None


MAX_CALL_ID_CHARS = 128  # VoiceCall.call_id


def fit_id(value: str, limit: int = MAX_CALL_ID_CHARS) -> str:
    """A peer's id as it is stored and looked up: itself when it fits its column, else its
    start and a digest of the whole, so that different ids stay different (PostgreSQL
    refused the longer one with a 500, and the message was lost)."""
    if len(value) <= limit:
        return value
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{value[:limit - len(digest) - 1]}~{digest}"


def short_text(value: Any, limit: int) -> str | None:
    """A peer's free text (an ended reason, a function's name) cut to its column."""
    if value in (None, ""):
        return None
    return (value if isinstance(value, str) else json.dumps(value, default=str))[:limit]


def without_nul(value: Any) -> Any:
    """The payload with every NUL character (which PostgreSQL cannot store, in text or JSON)
    replaced by U+FFFD, as a lone surrogate is."""
    if isinstance(value, str):
        return value.replace("\x00", "\ufffd")
    if isinstance(value, dict):
        return {without_nul(k): without_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_nul(v) for v in value]
    return value


def deployment_hint(message: dict) -> str | None:
    """`call.metadata.deployment_id`, else `assistant.metadata.deployment_id`."""
    for holder in (call_of(message), _obj(message.get("assistant")),
                   _obj(call_of(message).get("assistant"))):
        value = _obj(holder.get("metadata")).get("deployment_id")
        if isinstance(value, str) and value:
            return value
    return None


def called_number(message: dict) -> str | None:
    """The clinic's line, E.164 as deployments store it: a number sent without its "+" is
    still E.164's digits."""
    number = (_obj(message.get("phoneNumber")).get("number")
              or _obj(call_of(message).get("phoneNumber")).get("number"))
    digits = normalize_number(number).lstrip("+") if isinstance(number, str) else ""
    return ("+" + digits)[:32] if digits else None


def customer_number(message: dict) -> str | None:
    number = (_obj(message.get("customer")).get("number")
              or _obj(call_of(message).get("customer")).get("number"))
    return normalize_number(number)[:32] if isinstance(number, str) else None


PHONE_PATTERN = r"^\+[1-9][0-9 ().-]{5,30}$"
PHONE_ERROR = "Must be an E.164 number such as +15551234567 (spaces, dashes and brackets allowed)."


def phone_number_error(value: object) -> str | None:
    """Why `value` is no phone number a deployment takes (None when it is one): a `+`, a
    country code, and 7-15 digits in all (E.164), written with spaces, dashes, dots or
    brackets if the client likes."""
    if not isinstance(value, str) or not re.fullmatch(PHONE_PATTERN, value) or \
            not 7 <= sum(ch.isdigit() for ch in value) <= 15:
        return PHONE_ERROR
    return None


def normalize_number(number: str) -> str:
    """E.164-ish: keep the leading + and digits (spaces, dashes, dots, brackets dropped)."""
    number = number.strip()
    digits = "".join(ch for ch in number if ch.isdigit())
    return ("+" if number.startswith("+") else "") + digits


def parse_time(value: Any) -> datetime | None:
    """Epoch milliseconds (number or digit string) or an ISO 8601 string, to aware UTC."""
    if isinstance(value, bool) or value in (None, ""):
        return None
    try:
        if isinstance(value, int | float):
            return datetime.fromtimestamp(float(value) / 1000, UTC)
        text = str(value).strip()
        if text.replace(".", "", 1).isdigit():
            return datetime.fromtimestamp(float(text) / 1000, UTC)
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, OverflowError, OSError):
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def timestamp_ms(message: dict) -> int | None:
    moment = parse_time(message.get("timestamp"))
    return int(moment.timestamp() * 1000) if moment else None


def is_final_transcript(message: dict) -> bool:
    """A final line; one with no `transcriptType` at all is taken as final too (a line of
    crisis language must not be dropped for a missing field), only "partial" is not."""
    kind = message.get("transcriptType")
    return (message.get("type") == FINAL_TRANSCRIPT_TYPE or kind is None
            or str(kind).strip().lower() != "partial")


# Speakers whose lines are not the caller's words; any other role (none, a number, an unknown
# name) is read for crisis language as a caller's would be.
NOT_CALLER_ROLES = frozenset({"assistant", "system", "tool", "function"})
MAX_ROLE_CHARS = 20  # VoiceTranscriptEntry.role


def role_of(value: Any) -> str:
    role = (value.strip().lower() if isinstance(value, str) else "")[:MAX_ROLE_CHARS]
    if role in CALLER_ROLES:
        return "caller"
    if role in ("assistant", "bot"):
        return "assistant"
    return role or "unknown"


def arguments(value: Any) -> dict:
    """Tool arguments: an object, or a JSON string holding one."""
    if isinstance(value, dict):
        return value
    if isinstance(value, str) and value.strip():
        try:
            decoded = json.loads(value)
        except ValueError:
            return {}
        return decoded if isinstance(decoded, dict) else {}
    return {}


def _calls(value: Any) -> list:
    """A list of calls; one call sent bare is still one call to answer."""
    return [value] if isinstance(value, dict) else value if isinstance(value, list) else []


def tool_calls(message: dict) -> list[tuple[str, str, dict]]:
    """(tool call id, function name, arguments) in the order sent, from `toolCallList`, the
    older `toolCalls`, or only `toolWithToolCallList[].toolCall`."""
    items = _calls(message.get("toolCallList")) or _calls(message.get("toolCalls"))
    if not items:
        items = [_obj(entry).get("toolCall") | {"name": _obj(entry).get("name")
                                                or _obj(_obj(entry).get("function")).get("name")}
                 for entry in message.get("toolWithToolCallList") or []
                 if isinstance(_obj(entry).get("toolCall"), dict)]
    calls = []
    for item in items:
        item = _obj(item)
        function = _obj(item.get("function"))
        name = function.get("name") or item.get("name") or ""
        raw = next((v for v in (function.get("arguments"), function.get("parameters"),
                                item.get("arguments"), item.get("parameters")) if v is not None),
                   None)
        calls.append((str(item.get("id") or ""), str(name), arguments(raw)))
    return calls


def function_call(message: dict) -> tuple[str, dict]:
    call = _obj(message.get("functionCall"))
    return str(call.get("name") or ""), arguments(call.get("parameters"))


def strip_credentials(value: Any) -> Any:
    """A copy of the payload without the phone number's credentials, wherever they sit."""
    if isinstance(value, dict):
        return {k: strip_credentials(v) for k, v in value.items() if k not in _CREDENTIAL_KEYS}
    if isinstance(value, list):
        return [strip_credentials(v) for v in value]
    return value


def dedup_key(message: dict, kind: str, raw: bytes) -> str:
    """Same call, type and timestamp is the same event; without a timestamp, the same bytes."""
    stamp = timestamp_ms(message)
    if stamp is None:
        return f"{call_id(message)}:{kind}:sha256:{hashlib.sha256(raw).hexdigest()}"
    # Two messages of a kind can share a millisecond: what they say tells them apart (two
    # finals, "ringing" then "in-progress", two different function calls).
    suffix = ""
    if kind == "transcript":
        suffix = ":" + _digest(str(message.get("transcript")))
    elif kind == "status-update":
        suffix = ":" + str(message.get("status"))[:40]
    elif kind == "function-call":
        suffix = ":" + function_call_digest(message)
    elif kind == "tool-calls":
        suffix = ":" + _digest(json.dumps(tool_calls(message), sort_keys=True, default=str))
    return f"{call_id(message)}:{kind}:{stamp}{suffix}"[:300]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def function_call_digest(message: dict) -> str:
    """The function and its arguments, as one short digest."""
    name, args = function_call(message)
    return _digest(json.dumps([name, args], sort_keys=True, default=str))


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def end_report(message: dict) -> dict:
    """endedReason, startedAt, endedAt, transcript, messages, summary, from either layout."""
    artifact, analysis = _obj(message.get("artifact")), _obj(message.get("analysis"))
    call = call_of(message)
    return {
        "ended_reason": message.get("endedReason") or call.get("endedReason"),
        "started_at": parse_time(message.get("startedAt") or call.get("startedAt")),
        "ended_at": parse_time(message.get("endedAt") or call.get("endedAt")),
        "transcript": artifact.get("transcript") or message.get("transcript"),
        "messages": _list(artifact.get("messages")) or _list(message.get("messages")),
        "summary": analysis.get("summary") or message.get("summary"),
        "structured_data": analysis.get("structuredData"),
        "success_evaluation": analysis.get("successEvaluation"),
    }
