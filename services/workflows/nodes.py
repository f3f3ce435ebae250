"""What each node type does. A node reads the state and returns its output; the engine stores
it under the node's id. `NodeError` fails the execution at once; `TransientNodeError` (an
upstream that may recover) is retried with backoff by the step's job."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from services.workflows.conditions import MISSING, evaluate, lookup

logger = logging.getLogger(__name__)

DEFAULT_TRANSCRIPT_PATH = "input.transcript"
LLM_TEMPERATURE = 0.3
MAX_LLM_INPUT_CHARS = 50_000


class NodeError(Exception):
    """The node cannot succeed as configured or with this state."""


class TransientNodeError(Exception):
    """An upstream failed in a way a later attempt may not. ``retry_after_s``: how long the
    upstream asked to be left alone (its ``Retry-After``); the job's next attempt waits at
    least that long."""

    def __init__(self, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class NodeContext:
    organization_id: str
    execution_id: str
    workflow_id: str
    state: Mapping[str, Any]
    definition: Mapping[str, Any]
    config: Mapping[str, Any]  # the app's configuration
    node_id: str = ""


@dataclass(frozen=True)
class NodeResult:
    output: Any = field(default_factory=dict)
    next_node: str | None = None
    pause: bool = False


def run_node(node: Mapping[str, Any], context: NodeContext) -> NodeResult:
    config = node.get("config") or {}
    runner = RUNNERS[node["type"]]
    output, next_node, pause = runner(config, context), node.get("next"), False
    if node["type"] == "condition":
        next_node = config.get("then") if output["result"] else config.get("else")
    elif node["type"] == "approval":
        pause = True
    return NodeResult(output=output, next_node=next_node, pause=pause)


def _set(config: Mapping[str, Any], context: NodeContext) -> Any:
    return dict(config["values"])


def _end(config: Mapping[str, Any], context: NodeContext) -> Any:
    return {}


def _approval(config: Mapping[str, Any], context: NodeContext) -> Any:
    return {"status": "pending"}


def _condition(config: Mapping[str, Any], context: NodeContext) -> Any:
    result = evaluate(config["when"], context.state)
    return {"result": result, "branch": "then" if result else "else"}


def _analyze_session(config: Mapping[str, Any], context: NodeContext) -> Any:
    """The analysis service (rules or model, with the crisis safety floor), stored and metered
    like any analysis."""
    from services import analysis
    from services.errors import DomainError, UpstreamFailure

    path = config.get("transcript_path") or DEFAULT_TRANSCRIPT_PATH
    transcript = lookup(context.state, path)
    if not isinstance(transcript, str) or not transcript.strip():
        raise NodeError(f"No transcript text at '{path}'.")
    if len(transcript) > analysis.MAX_TRANSCRIPT_CHARS:
        raise NodeError(f"The transcript exceeds {analysis.MAX_TRANSCRIPT_CHARS} characters.")
    inputs = context.state.get("input") or {}
    clinical_context = dict(inputs.get("clinical_context") or {})
    session_path = config.get("session_id_path")
    if session_path and lookup(context.state, session_path) not in (MISSING, None):
        clinical_context["session_id"] = str(lookup(context.state, session_path))
    data = analysis.AnalysisInput(transcript=transcript, clinical_context=clinical_context,
                                  vital_signs=dict(inputs.get("vital_signs") or {}),
                                  ai_metadata={})
    try:
        session = analysis.linked_session(context.organization_id, clinical_context)
        stored = analysis.analyze(context.organization_id, data, context.config,
                                  session=session, source="workflow")
    except UpstreamFailure as exc:
        raise TransientNodeError(exc.message) from exc
    except DomainError as exc:
        raise NodeError(exc.message) from exc
    return {**stored.result, "analysis_id": stored.id, "provider": stored.provider,
            "model": stored.model}


def _llm(config: Mapping[str, Any], context: NodeContext) -> Any:
    """A prompt to the analysis's model client, with the same identifier redaction."""
    import openai
    from openai.types.chat import ChatCompletion

    from services.analysis import llm_settings
    from services.analysis.llm import model_client
    from services.analysis.model_http import deadline
    from services.analysis.redaction import redact_identifiers
    from services.usage import record_usage

    settings = llm_settings(context.config)
    if settings is None:
        raise NodeError("No language model is configured (set OPENAI_API_KEY).")
    text = config["prompt"]
    if config.get("input_path"):
        value = lookup(context.state, config["input_path"])
        if value is MISSING:
            raise NodeError(f"Nothing at '{config['input_path']}'.")
        value = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
        text = f"{text}\n\n{value[:MAX_LLM_INPUT_CHARS]}"
    if settings.redact:
        text, _ = redact_identifiers(text)
    client = model_client(settings)
    try:
        with deadline(settings.timeout_s):
            completion = client.chat.completions.create(
                model=settings.model, temperature=LLM_TEMPERATURE,
                messages=[{"role": "user", "content": text}])
    except (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError,
            openai.InternalServerError) as exc:
        raise TransientNodeError(f"The model did not answer: {type(exc).__name__}.") from exc
    except openai.APIError as exc:
        raise NodeError(f"The model refused the request: {type(exc).__name__}.") from exc
    except ValueError:
        # A 200 whose JSON body does not decode: a broken server or proxy, maybe for a while.
        raise TransientNodeError("The model server's answer was not JSON.") from None
    if not isinstance(completion, ChatCompletion):
        raise TransientNodeError("The model server's answer was not a chat completion.")
    usage = completion.usage
    prompt_tokens = usage.prompt_tokens if usage else 0
    completion_tokens = usage.completion_tokens if usage else 0
    if prompt_tokens + completion_tokens:
        record_usage(context.organization_id, "llm_tokens", prompt_tokens + completion_tokens,
                     details={"execution_id": context.execution_id, "model": completion.model})
    content = completion.choices[0].message.content if completion.choices else None
    return {"text": content or "", "model": completion.model or settings.model,
            "prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens}


def _ehr_sync(config: Mapping[str, Any], context: NodeContext) -> Any:
    from services.workflows import fhir

    return fhir.sync_execution(config, context)


def _webhook(config: Mapping[str, Any], context: NodeContext) -> Any:
    """A signed event through the project's one outbound delivery (outbox row, RQ delivery
    with retries). The event id is derived from execution and node, so a step that runs again
    after a crash sends nothing twice. No endpoint configured: nothing is sent."""
    from models.base import db
    from services.outbound.delivery import emit
    from services.outbound.endpoints import default_endpoint

    fields: dict[str, Any] = {}
    for name, path in (config.get("fields") or {}).items():
        value = lookup(context.state, path)
        fields[name] = None if value is MISSING else value
    # Where the event came from, whatever a definition saved before this was checked names.
    fields.update(execution_id=context.execution_id, workflow_id=context.workflow_id)
    endpoint = default_endpoint(context.organization_id)
    if endpoint is None:
        return {"status": "no_endpoint"}
    event_id = f"evt_wf_{context.execution_id}_{context.node_id}"
    with db.atomic():
        event = emit(endpoint, config["event"], fields, ordering_key=context.execution_id,
                     event_id=event_id)
    return {"status": "queued", "event_id": event.id, "event": config["event"]}


# Nodes that only read the state and touch nothing else, in microseconds: the engine runs them
# under the step's lock, so claim, output and next step commit together.
PURE_NODE_TYPES = frozenset({"condition", "set", "end"})

RUNNERS = {
    "analyze_session": _analyze_session,
    "llm": _llm,
    "condition": _condition,
    "approval": _approval,
    "ehr_sync": _ehr_sync,
    "webhook": _webhook,
    "set": _set,
    "end": _end,
}
