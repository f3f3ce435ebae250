"""The intake assistant handed to the voice platform on `assistant-request`.

Built from the deployment alone (one indexed lookup, no other I/O), so the answer is fast; the
platform waits at most 7.5 s for it.
"""

from __future__ import annotations

from services.organizations.quotas import QuotaExceeded, check_quota
from services.voice import deployments, messages
from services.voice import screeners as defs
from services.voice.risk import RISK_BANDS

WEBHOOK_PATH = "/api/voice/webhook"
MODEL = {"provider": "openai", "model": "gpt-4o-mini", "temperature": 0.3}
SERVER_MESSAGES = ["status-update", "transcript", "tool-calls", "end-of-call-report",
                   "speech-update", "user-interrupted", "hang"]

SYSTEM_PROMPT = """You are the intake assistant of {clinic}, a behavioural-health clinic.
You collect intake details and run the screeners {screeners}, one question at a time, reading
each item and its four answer choices (0 not at all, 1 several days, 2 more than half the days,
3 nearly every day) exactly, and calling record_screener_answer after each answer, then
submit_screener when a screener is complete. Save the caller's name, date of birth, reason for
calling and best contact times with save_intake_details. You do not diagnose or give advice.

Crisis protocol (overrides everything else): if the caller mentions suicide, self-harm, harming
someone, or says they are in danger, stop the intake. Call report_crisis with your risk band
(low, moderate, high, imminent) and the reason. Tell the caller: if they are in immediate danger
or have already hurt themselves, hang up and call 911 (emergency services) now; otherwise they
can call or text 988, the Suicide and Crisis Lifeline, at any time, day or night. Stay calm and
warm, stay on the line, and tell them a clinician from the clinic will be alerted."""

FIRST_MESSAGE = ("Thank you for calling {clinic}. I'm the clinic's intake assistant, and I'll "
                 "ask a few questions to get you started. If you are in danger right now, "
                 "please hang up and call 911. Can I start with your name?")


def _tools(server_url: str, screeners: list[str]) -> list[dict]:
    def tool(name: str, description: str, properties: dict, required: list[str]) -> dict:
        return {"type": "function", "async": False, "server": {"url": server_url},
                "function": {"name": name, "description": description,
                             "parameters": {"type": "object", "properties": properties,
                                            "required": required}}}

    screener = {"type": "string", "enum": screeners}
    item_score = {"type": "integer", "minimum": defs.ITEM_MIN, "maximum": defs.ITEM_MAX}
    return [
        tool("record_screener_answer", "Record the caller's answer to one screener item.",
             {"screener": screener, "item": {"type": "integer", "minimum": 1},
              "score": item_score}, ["screener", "item", "score"]),
        tool("submit_screener", "Score a completed screener (answers in item order, or the "
             "answers recorded so far).",
             {"screener": screener, "answers": {"type": "array", "items": item_score}},
             ["screener"]),
        tool("report_crisis", "Escalate a crisis to the clinic at once.",
             {"risk_band": {"type": "string", "enum": list(RISK_BANDS)},
              "reason": {"type": "string"}}, ["risk_band", "reason"]),
        tool("save_intake_details", "Save intake details the caller gave.",
             {"name": {"type": "string"}, "date_of_birth": {"type": "string"},
              "reason_for_visit": {"type": "string"},
              "preferred_contact": {"type": "string"},
              "preferred_times": {"type": "string"}, "insurance": {"type": "string"},
              "notes": {"type": "string"}}, []),
    ]


def respond(message: dict, base_url: str) -> dict:
    """`{"assistant": …}` for the called number's deployment, else `{"error": …}`."""
    deployment = deployments.find_for_message(messages.deployment_hint(message),
                                              messages.called_number(message))
    if deployment is None:
        return {"error": "This number is not an intake line of this service."}
    try:
        # The call is admitted here, where the platform can still be told no; events of a
        # call already under way are never refused, only metered.
        check_quota(deployment.organization_id, "voice_calls")
    except QuotaExceeded as exceeded:
        return exceeded.voice_answer()
    server_url = base_url.rstrip("/") + WEBHOOK_PATH
    screeners = deployment.screeners or defs.DEFAULT_SCREENERS
    clinic = deployment.name
    return {"assistant": {
        "name": f"{clinic} intake"[:40],
        "firstMessage": FIRST_MESSAGE.format(clinic=clinic),
        "model": {**MODEL, "messages": [{"role": "system", "content": SYSTEM_PROMPT.format(
            clinic=clinic, screeners=", ".join(s.upper() for s in screeners))}],
                  "tools": _tools(server_url, screeners)},
        # The platform's current assistant schema: `server.url` (the older top-level
        # `serverUrl` is gone from it), as the tools above name their server.
        "server": {"url": server_url},
        "serverMessages": SERVER_MESSAGES,
        "metadata": {"deployment_id": deployment.id},
    }}
