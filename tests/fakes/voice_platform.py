"""The voice platform's side of the webhook: server messages in its real shapes, signed the
way it signs them (hex HMAC-SHA256 of the body, or of "{timestamp}.{body}")."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from typing import Any

LINE_NUMBER = "+15550100200"
CALLER_NUMBER = "+15557654321"
T0_MS = 1_795_000_000_000  # the call's first message, epoch milliseconds


def sign(secret: str, body: bytes, timestamp: str | None = None) -> str:
    payload = f"{timestamp}.".encode() + body if timestamp else body
    return hmac.new(secret.encode(), payload, hashlib.sha256).hexdigest()


class Call:
    """One inbound phone call's messages."""

    def __init__(self, call_id: str, line: str = LINE_NUMBER, caller: str = CALLER_NUMBER,
                 started_ms: int = T0_MS, metadata: dict | None = None) -> None:
        self.call_id, self.line, self.caller, self.started_ms = call_id, line, caller, started_ms
        self.metadata = metadata or {}

    def message(self, kind: str, offset_s: float = 0, **fields: Any) -> dict:
        stamp = self.started_ms + int(offset_s * 1000)
        return {"message": {
            "type": kind,
            "timestamp": stamp,
            "call": {"id": self.call_id, "orgId": "org-platform-1", "type": "inboundPhoneCall",
                     "phoneNumberId": "pn-1", "customer": {"number": self.caller},
                     "metadata": self.metadata, "createdAt": _iso(self.started_ms)},
            "phoneNumber": {"id": "pn-1", "number": self.line, "provider": "twilio",
                            "twilioAccountSid": "AC123", "twilioAuthToken": "tw-secret-token",
                            "credentialId": "cred-1"},
            "customer": {"number": self.caller},
            **fields}}

    def status(self, status: str, offset_s: float, **fields: Any) -> dict:
        return self.message("status-update", offset_s, status=status, **fields)

    def said(self, role: str, text: str, offset_s: float, final: bool = True) -> dict:
        return self.message("transcript", offset_s, role=role, transcript=text,
                            transcriptType="final" if final else "partial")

    def tools(self, offset_s: float, *calls: tuple[str, str, Any]) -> dict:
        """tool-calls with `toolCallList` and `toolWithToolCallList`, as the platform sends."""
        listed = [{"id": tc_id, "type": "function",
                   "function": {"name": name, "arguments": args}} for tc_id, name, args in calls]
        return self.message("tool-calls", offset_s, toolCallList=listed,
                            toolWithToolCallList=[{"type": "function",
                                                   "function": {"name": c["function"]["name"]},
                                                   "toolCall": c} for c in listed])

    def report(self, offset_s: float, duration_s: float, **fields: Any) -> dict:
        return self.message(
            "end-of-call-report", offset_s, endedReason="customer-ended-call",
            startedAt=_iso(self.started_ms), endedAt=_iso(self.started_ms + duration_s * 1000),
            artifact={"transcript": "AI: Hello\nUser: Hi", "messages": [],
                      "recordingUrl": "https://storage.example/rec.wav"},
            analysis={"summary": "Caller completed intake.", "successEvaluation": "true"},
            **fields)


def _iso(ms: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms / 1000)) + \
        f".{int(ms % 1000):03d}Z"


def body_of(message: dict) -> bytes:
    return json.dumps(message).encode()
