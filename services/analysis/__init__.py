"""Post-visit analysis: the pipeline (`pipeline`), the hosted model (`llm`, `prompts`), the
rules analyzer (`rules`), crisis detection (`crisis`), redaction and the output shape.

The pipeline's public names are re-exported here, so `from services.analysis import analyze`
keeps working. They load on first use: importing a light module of this package (`prompts`,
`shape`) does not pull in the hosted-model client.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from services.analysis.pipeline import (
        PROVIDER_OPENAI,
        PROVIDER_RULES,
        RULES_MODEL,
        AnalysisInput,
        ComputedAnalysis,
        analyses_for_session,
        analyze,
        compute,
        floor_only,
        latest_for_session,
        linked_session,
        llm_settings,
        store,
    )
    from services.limits import MAX_TRANSCRIPT_CHARS

__all__ = [
    "MAX_TRANSCRIPT_CHARS",
    "PROVIDER_OPENAI",
    "PROVIDER_RULES",
    "RULES_MODEL",
    "AnalysisInput",
    "ComputedAnalysis",
    "analyses_for_session",
    "analyze",
    "compute",
    "floor_only",
    "latest_for_session",
    "linked_session",
    "llm_settings",
    "store",
]


_HOMES = {"MAX_TRANSCRIPT_CHARS": "services.limits"}


def preload() -> None:
    """Import the pipeline (and with it the hosted-model client) and load the crisis
    detector's models now. gunicorn's master and the RQ worker call this before they fork:
    otherwise each web worker's first analysis, and every analysis job's forked work-horse,
    imports them again (about half a second of CPU)."""
    import_module("services.analysis.pipeline")
    import_module("services.analysis.crisis.model_reader").preload()


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(import_module(_HOMES.get(name, "services.analysis.pipeline")), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
