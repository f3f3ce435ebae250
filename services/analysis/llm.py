"""Session analysis through a hosted, OpenAI-compatible chat model.

``analyze_with_llm`` redacts identifiers (unless told not to), asks the model for the analysis
JSON described in ``services.analysis.shape`` (the prompt is ``services.analysis.prompts``), and
normalises the reply. Failures map onto a small exception family the pipeline turns into
upstream errors:

* ``LLMBadOutput``: the reply was not a JSON object, twice in a row (502).
* ``LLMUpstreamError``: connection failure or an HTTP error from the server (502).
* ``LLMTimeout``: the server's answer was not all in within ``LLMSettings.timeout_s`` (504).

No exception message or log line contains transcript text, context values or the API key.
The returned ``riskAssessment.level`` may be None; callers must apply
``services.analysis.crisis.apply_safety_floor`` before using it.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from dataclasses import dataclass, field

import openai
from openai.types.chat import ChatCompletion

from services.analysis.model_http import deadline, http_client
from services.analysis.prompts import build_messages
from services.analysis.redaction import PLACEHOLDERS, redact_inputs
from services.analysis.shape import normalize_analysis
from services.retry_after import parse_retry_after

logger = logging.getLogger(__name__)

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_TIMEOUT_S = 60.0
# Fixed by the API contract: low variance, and the server must return a JSON object.
TEMPERATURE = 0.3
RESPONSE_FORMAT = {"type": "json_object"}
# One retry for unparseable output; timeouts and HTTP errors are never retried here.
MAX_ATTEMPTS = 2
# The SDK's own retries are disabled so that MAX_ATTEMPTS is the whole retry policy.
SDK_MAX_RETRIES = 0
CLIENT_CACHE_SIZE = 8

_FENCE_RE = re.compile(r"^\s*```[A-Za-z]*[ \t]*\n?(?P<body>.*?)\n?\s*```\s*$", re.DOTALL)



@dataclass(frozen=True)
class LLMSettings:
    # Kept out of repr so that logging or a traceback never prints the key.
    api_key: str = field(repr=False)
    base_url: str | None
    model: str = DEFAULT_MODEL
    timeout_s: float = DEFAULT_TIMEOUT_S
    redact: bool = True


@dataclass(frozen=True)
class LLMAnalysis:
    result: dict
    model: str
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    attempts: int
    redactions: dict[str, int]


class LLMAnalysisError(Exception):
    """Base class for analysis failures; messages never contain PHI."""


class LLMBadOutput(LLMAnalysisError):
    """The model's reply was not a JSON object on every attempt."""


class LLMUpstreamError(LLMAnalysisError):
    """Connection failure or HTTP error from the model server."""

    def __init__(self, message: str, status_code: int | None = None,
                 retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code
        self.retry_after_s = retry_after_s  # the server's Retry-After, if it sent one


class LLMTimeout(LLMAnalysisError):
    """The model server did not answer in time."""


# --- calling the model -------------------------------------------------------------------------


def _request(client: openai.OpenAI, model: str, messages: list[dict],
             timeout_s: float) -> ChatCompletion:
    """One chat completion, done within ``timeout_s`` in all, with SDK errors mapped to our
    exceptions.

    Upstream error bodies can echo parts of the prompt, so our messages carry only the error
    class and status, and the SDK exception is not chained.
    """
    try:
        with deadline(timeout_s):
            completion = client.chat.completions.create(
                model=model,
                messages=messages,
                temperature=TEMPERATURE,
                response_format=RESPONSE_FORMAT,
            )
    except openai.APITimeoutError:
        # APITimeoutError subclasses APIConnectionError, so it must be caught first.
        raise LLMTimeout("model server did not respond in time") from None
    except openai.APIConnectionError:
        raise LLMUpstreamError("could not connect to the model server") from None
    except openai.APIStatusError as err:
        raise LLMUpstreamError(
            f"model server returned HTTP {err.status_code}", status_code=err.status_code,
            retry_after_s=parse_retry_after(err.response.headers.get("Retry-After")),
        ) from None
    except openai.APIError as err:
        raise LLMUpstreamError(f"model server error ({type(err).__name__})") from None
    except ValueError:
        # A 200 whose body, sent as JSON, does not decode (empty, an HTML page, cut short):
        # the SDK raises the decoder's error.
        raise LLMUpstreamError("model server returned a body that is not JSON") from None
    # Without strict validation the SDK hands back whatever a 200 body decoded to (a plain
    # string, a list); that is a broken server, not a model answer worth retrying.
    if not isinstance(completion, ChatCompletion):
        raise LLMUpstreamError("model server returned something other than a chat completion")
    return completion


def _strip_fences(content: str) -> str:
    match = _FENCE_RE.match(content)
    return match.group("body") if match else content


def _message_content(completion: ChatCompletion) -> str | None:
    # Fields are read defensively: a loosely conforming server may omit any of them.
    choices = completion.choices or []
    message = getattr(choices[0], "message", None) if choices else None
    content = getattr(message, "content", None)
    return content if isinstance(content, str) else None


def _parse_analysis(completion: ChatCompletion) -> dict | None:
    """The normalised analysis, or None when the reply is not a JSON object."""
    content = _message_content(completion)
    if not content:
        return None
    try:
        result = normalize_analysis(json.loads(_strip_fences(content)))
    except (ValueError, RecursionError):
        # ValueError covers JSONDecodeError, oversized integer literals and InvalidAnalysis
        # (a JSON value that is not an object); RecursionError covers absurdly deep nesting.
        return None
    # An object with none of the analysis's fields ({}, every one null or empty) is no
    # analysis: stored, it read as a finished one with nothing found and no risk reason.
    return result if _says_anything(result) else None


def _says_anything(result: dict) -> bool:
    risk = result["riskAssessment"]
    return bool(risk["level"] or risk["summary"] or risk["factors"]
                or any(result["visitSummary"].values())
                or any(value for key, value in result.items()
                       if key not in ("riskAssessment", "visitSummary")))


def _token_count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


@dataclass
class _Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def add(self, completion: ChatCompletion) -> None:
        usage = completion.usage
        if usage is None:
            return
        self.prompt_tokens += _token_count(usage.prompt_tokens)
        self.completion_tokens += _token_count(usage.completion_tokens)
        self.total_tokens += _token_count(usage.total_tokens)


def _reported_model(completion: ChatCompletion, settings: LLMSettings) -> str:
    model = completion.model
    return model if isinstance(model, str) and model else settings.model


@functools.lru_cache(maxsize=CLIENT_CACHE_SIZE)
def _client(api_key: str, base_url: str | None, timeout_s: float) -> openai.OpenAI:
    """One client per configuration, reused: building one loads the CA bundle into a new SSL
    context (tens of milliseconds), and the client's connection pool is thread-safe."""
    return openai.OpenAI(
        api_key=api_key,
        base_url=base_url,
        timeout=timeout_s,
        max_retries=SDK_MAX_RETRIES,
        http_client=http_client(timeout_s),
    )


def model_client(settings: LLMSettings) -> openai.OpenAI:
    """The configured model's client (built once per configuration and reused)."""
    return _client(settings.api_key, settings.base_url, settings.timeout_s)


def analyze_with_llm(
    settings: LLMSettings,
    transcript: str,
    clinical_context: dict | None = None,
    vital_signs: dict | None = None,
    template_sections: list[dict] | None = None,
) -> LLMAnalysis:
    """Analyse a session transcript with the configured model.

    Raises LLMBadOutput, LLMUpstreamError or LLMTimeout (all LLMAnalysisError). The result's
    ``riskAssessment.level`` may be None and must go through the safety floor.
    """
    redactions: dict[str, int] = dict.fromkeys(PLACEHOLDERS, 0)
    if settings.redact:
        transcript, clinical_context, vital_signs, redactions = redact_inputs(
            transcript, clinical_context, vital_signs
        )
    messages = build_messages(transcript, clinical_context, vital_signs, template_sections)
    usage = _Usage()
    client = _client(settings.api_key, settings.base_url, settings.timeout_s)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        completion = _request(client, settings.model, messages, settings.timeout_s)
        usage.add(completion)
        result = _parse_analysis(completion)
        if result is not None:
            model = _reported_model(completion, settings)
            logger.info(
                "llm analysis ok: model=%s attempts=%d total_tokens=%d",
                model,
                attempt,
                usage.total_tokens,
            )
            return LLMAnalysis(
                result=result,
                model=model,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
                total_tokens=usage.total_tokens,
                attempts=attempt,
                redactions=redactions,
            )
        logger.warning("llm analysis attempt %d returned no JSON object", attempt)
    raise LLMBadOutput(f"model reply was not a JSON object after {MAX_ATTEMPTS} attempts")
