"""What the crisis detector reports: C-SSRS signal kinds, their levels, and the safety floor.

Signal kinds follow the C-SSRS screener: wish to be dead (Q1), non-specific suicidal thoughts
(Q2), thoughts of a method (Q3), intent (Q4), a plan (Q5) and past suicidal behaviour (Q6),
plus self-harm, access to lethal means and homicidal ideation. Any signal puts the floor at
"high"; stated intent, or a plan together with a method or means, puts it at "imminent".

Both analysis paths (hosted model and built-in rules) pass their ``riskAssessment`` through
``apply_safety_floor``, so a model that under-rates risk can never hide crisis language.
"""

from __future__ import annotations

from dataclasses import dataclass

from services.analysis.shape import RISK_LEVELS

_LEVEL_RANK = {level: rank for rank, level in enumerate(RISK_LEVELS)}

HIGH = "high"
IMMINENT = "imminent"
REVIEW_LEVEL = "moderate"
# Used when a model returns no usable level and no crisis language was found: unknown is not
# evidence of safety, so the answer errs one step above "low".
UNKNOWN_LEVEL_DEFAULT = "moderate"

WISH_TO_BE_DEAD = "wish_to_be_dead"
SUICIDAL_IDEATION = "suicidal_ideation"
METHOD = "method"
INTENT = "intent"
PLAN = "plan"
PAST_ATTEMPT = "past_attempt"
MEANS_ACCESS = "means_access"
SELF_HARM = "self_harm"
HOMICIDAL_IDEATION = "homicidal_ideation"
# A statement the trained reader (reader.py) rated as current risk with no lexicon finding.
RISK_STATEMENT = "risk_statement"

SIGNAL_KINDS = (
    WISH_TO_BE_DEAD,
    SUICIDAL_IDEATION,
    METHOD,
    INTENT,
    PLAN,
    PAST_ATTEMPT,
    MEANS_ACCESS,
    SELF_HARM,
    RISK_STATEMENT,
    HOMICIDAL_IDEATION,
)

# Factor texts quote at most this many words of the patient's (a factor is no transcript).
MAX_QUOTE_WORDS = 8


@dataclass(frozen=True)
class CrisisSignal:
    """One piece of crisis language."""

    kind: str  # one of SIGNAL_KINDS
    factor: str  # reason for riskAssessment.factors, quoting at most MAX_QUOTE_WORDS words
    level: str  # minimum level this signal implies: "high" or "imminent"


@dataclass(frozen=True)
class CrisisAssessment:
    """All crisis signals of a transcript (one per kind, in SIGNAL_KINDS order)."""

    signals: tuple[CrisisSignal, ...]
    level: str | None  # None when there is no crisis language, else "high" or "imminent"
    # Softer cues a clinician should follow up (burden, farewells, hopelessness): they put the
    # floor at "moderate" with a "needs review" factor when there is no crisis signal.
    review: tuple[CrisisSignal, ...] = ()

    @property
    def floor_level(self) -> str | None:
        """The lowest level the analysis may report: ``level``, else "moderate" for review
        cues, else None."""
        if self.level is not None:
            return self.level
        return REVIEW_LEVEL if self.review else None


_KIND_STATEMENT = {
    WISH_TO_BE_DEAD: "Patient expressed a wish to be dead",
    SUICIDAL_IDEATION: "Patient reported suicidal ideation",
    METHOD: "Patient described a suicide method",
    INTENT: "Patient expressed intent to act on suicidal thoughts",
    PLAN: "Patient described a suicide plan",
    PAST_ATTEMPT: "Patient reported a past suicide attempt",
    MEANS_ACCESS: "Patient reported access to lethal means",
    SELF_HARM: "Patient reported self-harm",
    HOMICIDAL_IDEATION: "Patient reported thoughts of harming others",
    RISK_STATEMENT: "Patient's statement reads as current suicide or self-harm risk",
}


def statement_factor(kind: str, quote: str, detail: str = "") -> str:
    """The factor text for a signal of ``kind`` quoting the patient's words (``detail``, e.g.
    ", with a time set", goes between the statement and the quote)."""
    return f"{_KIND_STATEMENT[kind]}{detail} ('{quote}')"


def assessment_level(signals: tuple[CrisisSignal, ...]) -> str | None:
    """"high" for any signal, "imminent" for intent or a plan with a method or means."""
    if not signals:
        return None
    kinds = {signal.kind for signal in signals}
    if any(signal.level == IMMINENT for signal in signals):
        return IMMINENT
    if PLAN in kinds and kinds & {METHOD, MEANS_ACCESS}:
        return IMMINENT
    return HIGH


def _normalize_level(level: object) -> str | None:
    if not isinstance(level, str):
        return None
    candidate = level.strip().lower()
    return candidate if candidate in _LEVEL_RANK else None


def max_level(a: str, b: str) -> str:
    """The more severe of two risk levels (case and surrounding spaces are ignored).

    Raises ValueError for a value outside RISK_LEVELS, so a typo cannot silently rank as safe.
    """
    first, second = _normalize_level(a), _normalize_level(b)
    if first is None or second is None:
        raise ValueError(f"unknown risk level: {a!r} / {b!r}")
    return first if _LEVEL_RANK[first] >= _LEVEL_RANK[second] else second


def apply_safety_floor(risk: dict, assessment: CrisisAssessment) -> dict:
    """Return a new riskAssessment dict that is never less severe than the crisis floor.

    * level: max(risk level, assessment.level). The level is never lowered.
    * An unknown or missing risk level (None, "", "severe", not a string) is treated as below
      the floor: it becomes assessment.level when crisis language was found, otherwise
      "moderate", because an unknown rating is not evidence of low risk.
    * Review cues alone (no crisis signal) put the floor at "moderate" and add their
      "needs review" factors, so a softer cue is never silently "low".
    * factors: every signal's factor is appended unless already present; existing factors
      are kept in order (non-string items are dropped, a lone string becomes a list).
    * summary: kept; when the floor raised a known level, or set one in place of an unknown
      rating, one sentence saying so is appended so the summary does not contradict the level.
    The input dict is not modified.
    """
    source = risk if isinstance(risk, dict) else {}
    result = dict(source)
    current = _normalize_level(source.get("level"))
    floor = assessment.floor_level
    if current is None:
        level = floor or UNKNOWN_LEVEL_DEFAULT
    elif floor is None:
        level = current
    else:
        level = max_level(current, floor)
    result["level"] = level

    factors = _string_list(source.get("factors"))
    for signal in (*assessment.signals, *assessment.review):
        if signal.factor not in factors:
            factors.append(signal.factor)
    result["factors"] = factors

    summary = source.get("summary") if isinstance(source.get("summary"), str) else ""
    reason = "crisis language was detected" if assessment.level else \
        "the patient said things a clinician should follow up" if floor else \
        "an unknown rating is not evidence of low risk"
    note = None
    if current is not None and level != current:
        note = f"Risk level raised from {current} to {level} because {reason}."
    elif current is None and (summary.strip() or source.get("level") not in (None, "")):
        # "severe", a number…: the summary was written for a level that is not the one set.
        given = source.get("level") not in (None, "")  # none when the model gave no rating
        note = f"Risk level set to {level} because {reason}" + (
            f" (the rating given was not one of {', '.join(_LEVEL_RANK)})" if given else "") + "."
    if note:
        summary = summary.rstrip()
        if summary and summary[-1] not in ".!?":
            summary += "."  # the model's summary may end without a full stop
        summary = f"{summary} {note}".strip()
    result["summary"] = summary
    return result


def _string_list(value: object) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, str) and item.strip()]
