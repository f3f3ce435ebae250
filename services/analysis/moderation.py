"""The optional second opinion on the hosted path (SAFETY_MODEL_CHECK): the provider's
moderation endpoint read for its self-harm categories.

It can only raise the risk floor: a flagged self-harm category (or a score above the
threshold) adds a ``high`` signal naming the check; anything else, including every failure
(timeout, HTTP error, an unexpected body), adds nothing. Only the patient's own turns are sent,
redacted like the analysis prompt. Log lines carry the outcome and the error class, never text.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import openai

from services.analysis.crisis import HIGH, CrisisAssessment, CrisisSignal, max_level
from services.analysis.llm import LLMSettings, model_client
from services.analysis.model_http import deadline
from services.analysis.redaction import redact_identifiers
from services.analysis.transcript import ROLE_CLINICIAN, normalize_text, split_turns

logger = logging.getLogger(__name__)

MODERATION_MODEL = "omni-moderation-latest"
# The provider's category names (the wire format, not the SDK's attribute names).
SELF_HARM = "self-harm"
SELF_HARM_INTENT = "self-harm/intent"
SELF_HARM_INSTRUCTIONS = "self-harm/instructions"
SELF_HARM_CATEGORIES = (SELF_HARM_INTENT, SELF_HARM, SELF_HARM_INSTRUCTIONS)
DEFAULT_THRESHOLD = 0.5
SIGNAL_KIND = "safety_model_check"
_READING = {
    SELF_HARM_INTENT: "self-harm intent",
    SELF_HARM: "self-harm",
    SELF_HARM_INSTRUCTIONS: "self-harm instructions",
}


def patient_text(transcript: str) -> str:
    """What the patient said (every turn not the clinician's), identifiers redacted."""
    turns = split_turns(normalize_text(transcript or ""))
    text = "\n".join(turn.text for turn in turns if turn.role != ROLE_CLINICIAN and turn.text)
    return redact_identifiers(text)[0]


def _flagged_category(result: Any, threshold: float) -> tuple[str, float] | None:
    categories: Mapping[str, Any] = result.categories.model_dump(by_alias=True)
    scores: Mapping[str, Any] = result.category_scores.model_dump(by_alias=True)
    for name in SELF_HARM_CATEGORIES:
        score = scores.get(name)
        score = float(score) if isinstance(score, int | float) else 0.0
        if categories.get(name) is True or score > threshold:
            return name, score
    return None


def check(settings: LLMSettings, transcript: str, threshold: float = DEFAULT_THRESHOLD
          ) -> CrisisSignal | None:
    """A ``high`` signal when the moderation model reads self-harm in the patient's words;
    None when it does not, when there is nothing to send, or when the call fails."""
    text = patient_text(transcript)
    if not text.strip():
        return None
    try:
        with deadline(settings.timeout_s):
            response = model_client(settings).moderations.create(model=MODERATION_MODEL,
                                                                 input=text)
        found = _flagged_category(response.results[0], threshold)
    except (openai.OpenAIError, IndexError, AttributeError, TypeError, ValueError) as exc:
        # Never lowers and never breaks the analysis: the floor stays what it was.
        logger.warning("safety model check failed: %s", type(exc).__name__)
        return None
    if found is None:
        logger.info("safety model check: nothing flagged")
        return None
    name, score = found
    logger.info("safety model check flagged %s", name)
    return CrisisSignal(
        kind=SIGNAL_KIND, level=HIGH,
        factor=f"Safety model check ({MODERATION_MODEL}) flagged {_READING[name]} "
               f"in the patient's words (score {score:.2f})")


def raise_floor(assessment: CrisisAssessment, signal: CrisisSignal | None) -> CrisisAssessment:
    """The assessment with the check's signal added; its level can only go up."""
    if signal is None:
        return assessment
    level = max_level(assessment.level, signal.level) if assessment.level else signal.level
    return CrisisAssessment(signals=(*assessment.signals, signal), level=level,
                            review=assessment.review)
