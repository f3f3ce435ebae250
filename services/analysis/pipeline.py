"""Post-visit analysis: pick the analyzer, apply the safety floor, store and meter the result.

The hosted model (when OPENAI_API_KEY is set) and the built-in rules analyzer return the same
shape; either way, deterministic crisis detection over the transcript sets a floor under
`riskAssessment.level` that no model output can lower.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from models.analyses import SessionAnalysis
from models.base import db, utcnow
from models.sessions import TherapySession
from services import audit
from services.analysis import crisis, moderation, rules
from services.analysis.llm import (
    LLMAnalysisError,
    LLMSettings,
    LLMTimeout,
    analyze_with_llm,
)
from services.errors import NotFound, Unprocessable, UpstreamFailure
from services.organizations.quotas import check_quota
from services.templates import get_visible_template
from services.tenancy import get_owned
from services.usage import record_usage

RULES_MODEL = "cws-rules-1"
SOURCE_API = "api"
AUDIT_RESOURCE = "session_analysis"
PROVIDER_OPENAI, PROVIDER_RULES = "openai", "rules"


@dataclass(frozen=True)
class AnalysisInput:
    transcript: str
    clinical_context: dict[str, Any]
    vital_signs: dict[str, Any]
    ai_metadata: dict[str, Any]


def llm_settings(config: Mapping[str, Any]) -> LLMSettings | None:
    """The hosted-model settings from app config, or None to use the rules analyzer."""
    if not config.get("OPENAI_API_KEY"):
        return None
    return LLMSettings(
        api_key=config["OPENAI_API_KEY"],
        base_url=config.get("OPENAI_BASE_URL") or None,
        model=config.get("OPENAI_MODEL") or "gpt-4o-mini",
        timeout_s=float(config.get("OPENAI_TIMEOUT_S") or 60.0),
        redact=bool(config.get("ANALYSIS_REDACT_IDENTIFIERS", True)),
    )


def linked_session(organization_id: str, clinical_context: Mapping[str, Any]
                   ) -> TherapySession | None:
    session_id = clinical_context.get("session_id")
    if not session_id:
        return None
    try:
        return get_owned(TherapySession, organization_id, str(session_id), "Therapy session")
    except NotFound as exc:
        # A reference inside the body, not the resource addressed: a field error.
        raise Unprocessable("No such therapy session for this organization.",
                            field="clinical_context.session_id") from exc


def _template_sections(organization_id: str, clinical_context: Mapping[str, Any]
                       ) -> list[dict] | None:
    template_id = clinical_context.get("template_id")
    if not template_id:
        return None
    template = get_visible_template(organization_id, str(template_id))
    if template is None:
        raise Unprocessable("No such template for this organization.",
                            field="clinical_context.template_id")
    return template.sections


FLOOR_ONLY_SUMMARY = ("The analysis model failed; this is the safety floor's reading of the "
                      "transcript alone.")


def floor_only(transcript: str) -> dict[str, Any] | None:
    """The safety floor's reading of a transcript that has no analysis because the model
    failed: a riskAssessment (its level and factors) when the detector found crisis language or
    a review cue, else None."""
    floor = crisis.detect_crisis(transcript)
    if floor.floor_level is None:
        return None
    return crisis.apply_safety_floor(
        {"level": None, "summary": FLOOR_ONLY_SUMMARY, "factors": []}, floor)


def _failure(message: str, status: int, transcript: str,
             retry_after_s: float | None = None) -> UpstreamFailure:
    """The model's failure, with the safety floor's own reading when it found crisis language
    or a review cue: a failed model must not hide what the detector saw."""
    extra: dict[str, Any] = {"success": False}
    reading = floor_only(transcript)
    if reading is not None:
        extra["riskAssessment"] = reading
    return UpstreamFailure(message, status=status, extra=extra, retry_after_s=retry_after_s)


def _run_model(settings: LLMSettings, data: AnalysisInput, sections: list[dict] | None
               ) -> tuple[dict, str, int, int]:
    try:
        out = analyze_with_llm(settings, data.transcript, data.clinical_context,
                               data.vital_signs, sections)
    except LLMTimeout as exc:
        raise _failure("The analysis model did not answer in time.", 504,
                       data.transcript) from exc
    except LLMAnalysisError as exc:
        raise _failure(f"The analysis model failed: {exc}", 502, data.transcript,
                       getattr(exc, "retry_after_s", None)) from exc
    return out.result, out.model, out.prompt_tokens, out.completion_tokens


@dataclass(frozen=True)
class ComputedAnalysis:
    result: dict[str, Any]
    provider: str
    model: str
    prompt_tokens: int
    completion_tokens: int


def compute(organization_id: str, data: AnalysisInput, config: Mapping[str, Any]
            ) -> ComputedAnalysis:
    """Run the analyzer (no writes: the model call may take until its timeout)."""
    sections = _template_sections(organization_id, data.clinical_context)
    settings = llm_settings(config)
    if settings is None:
        # The rules analyzer raises its risk to the same floor from the same detection.
        result = rules.analyze_transcript(
            data.transcript, data.clinical_context, data.vital_signs)
        return ComputedAnalysis(result, PROVIDER_RULES, RULES_MODEL, 0, 0)
    result, model, prompt_tokens, completion_tokens = _run_model(settings, data, sections)
    floor = crisis.detect_crisis(data.transcript)
    if config.get("SAFETY_MODEL_CHECK"):
        check_settings = replace(settings, timeout_s=float(
            config.get("SAFETY_MODEL_TIMEOUT_S") or settings.timeout_s))
        signal = moderation.check(check_settings, data.transcript,
                                  float(config.get("SAFETY_MODEL_THRESHOLD") or 0.5))
        floor = moderation.raise_floor(floor, signal)
    result["riskAssessment"] = crisis.apply_safety_floor(result["riskAssessment"], floor)
    return ComputedAnalysis(result, PROVIDER_OPENAI, model, prompt_tokens, completion_tokens)


def store(organization_id: str, computed: ComputedAnalysis, session: TherapySession | None,
          source: str) -> SessionAnalysis:
    """Store the analysis and its usage together, within the quota (checked again in the
    transaction: concurrent analyses all passed the check before their work); link it to the
    session when given."""
    with db.atomic():
        check_quota(organization_id, "session_analyses", reserve=True)
        analysis = SessionAnalysis.create(
            organization=organization_id, session=session, source=source,
            provider=computed.provider, model=computed.model,
            risk_level=computed.result["riskAssessment"]["level"], result=computed.result,
            prompt_tokens=computed.prompt_tokens, completion_tokens=computed.completion_tokens)
        details = {"provider": computed.provider, "model": computed.model,
                   "analysis_id": analysis.id}
        record_usage(organization_id, "session_analyses", details=details)
        tokens = computed.prompt_tokens + computed.completion_tokens
        if tokens:
            record_usage(organization_id, "llm_tokens", tokens,
                         details={**details, "prompt_tokens": computed.prompt_tokens,
                                  "completion_tokens": computed.completion_tokens})
        if session is not None:
            (TherapySession.update(latest_analysis_id=analysis.id, updated_at=utcnow())
             .where(TherapySession.id == session.id).execute())
        if source != SOURCE_API:  # a worker's write: no request's audit row covers it
            audit.record(audit.by_worker(organization_id), "create", AUDIT_RESOURCE,
                         [analysis.id])
    return analysis


def analyze(organization_id: str, data: AnalysisInput, config: Mapping[str, Any],
            session: TherapySession | None = None, source: str = "api") -> SessionAnalysis:
    """Analyse a transcript and store the result (within the organization's quota)."""
    check_quota(organization_id, "session_analyses")
    return store(organization_id, compute(organization_id, data, config), session, source)


def analyses_for_session(organization_id: str, session_id: str, source: str | None = None):
    """Every analysis of a session, newest first (`source`: `api` or `clinical_session`)."""
    query = (SessionAnalysis.select()
             .where((SessionAnalysis.organization == organization_id)
                    & (SessionAnalysis.session == session_id))
             .order_by(SessionAnalysis.created_at.desc(), SessionAnalysis.id.desc()))
    if source:
        query = query.where(SessionAnalysis.source == source)
    return query


def latest_for_session(organization_id: str, session: TherapySession,
                       source: str | None = None) -> SessionAnalysis:
    """The newest analysis of the session (of that source when given); a 404 that says why
    when there is none (never run, or skipped because the live session had no transcript)."""
    analysis = analyses_for_session(organization_id, session.id, source).first()
    if analysis is not None:
        return analysis
    if session.analysis_status == "skipped" and source != "api":
        raise NotFound("The analysis was skipped: the live clinical session ended with no "
                       "transcript.", extra={"analysis_status": "skipped"})
    extra: dict[str, Any] = {"analysis_status": session.analysis_status}
    if source != "api":
        from services.clinical import floor_of_unanalysed  # it imports this package

        reading = floor_of_unanalysed(session)
        if reading is not None:
            extra["riskAssessment"] = reading
    if source and analyses_for_session(organization_id, session.id).exists():
        raise NotFound(f"This session has no analysis from source '{source}' (it has from "
                       "another; leave out `source` for the newest).", extra=extra)
    raise NotFound("This session has no analysis yet.", extra=extra)
