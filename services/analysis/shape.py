"""Validation and normalisation of a model's session-analysis JSON.

A hosted model is asked for a fixed JSON shape, but replies drift: ids arrive as strings,
priorities in the wrong case, lists as single strings, objects missing. ``normalize_analysis``
accepts any JSON object and always returns the full contract shape::

    {"aiTasks": [{"id", "title", "description", "assignee", "icon", "priority",
                  "estimatedTime"}],
     "visitSummary": {"topicsDiscussed", "keyFindings", "decisionsMade", "nextSteps"},
     "differentialDiagnoses": [], "riskAssessment": {"level", "summary", "factors"},
     "clinicalFindings": [], "treatmentPlan": [], "recommendations": []}

Risk level: an unknown or missing ``riskAssessment.level`` is returned as ``None``. This module
deliberately does not pick a level, because the right fallback depends on the transcript.
Callers MUST pass the result through the safety floor
(``services.analysis.crisis.apply_safety_floor``), which replaces ``None`` with the floor
level derived from crisis language (or "moderate").

The schemas never raise on odd values; they coerce or drop them. The only error is
``InvalidAnalysis``, raised when the input is not a JSON object at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from marshmallow import EXCLUDE, Schema, ValidationError, fields, pre_load

from services.numbers import whole_number

PRIORITIES = ("low", "medium", "high", "urgent")
RISK_LEVELS = ("low", "moderate", "high", "imminent")
DEFAULT_PRIORITY = "medium"

# Bounds keep one runaway reply from bloating stored notes and API responses.
MAX_STRING_CHARS = 2_000
MAX_LIST_ITEMS = 100

# When a string list holds objects, the first of these keys with a text value is used.
TEXT_KEYS = ("text", "title", "name")

_SCALARS = (str, int, float)


class InvalidAnalysis(ValueError):
    """The model output is not a JSON object, so there is nothing to normalise."""


def clean_text(value: object) -> str:
    """Strip and truncate a scalar; anything that is not a scalar becomes ""."""
    if isinstance(value, bool) or not isinstance(value, _SCALARS):
        return ""
    return str(value).strip()[:MAX_STRING_CHARS]


def _item_text(item: object) -> str:
    """Text for one list item: scalars as text, objects via their first TEXT_KEYS entry."""
    if isinstance(item, Mapping):
        for key in TEXT_KEYS:
            text = clean_text(item.get(key))
            if text:
                return text
        return ""
    return clean_text(item)


def _match_choice(value: object, choices: tuple[str, ...]) -> str | None:
    if not isinstance(value, str):
        return None
    candidate = value.strip().lower()
    return candidate if candidate in choices else None


# A task id fits a 32-bit signed integer, and so every client's integer type (JavaScript's
# safe integers included).
MAX_TASK_ID = 2**31 - 1


def _positive_int(value: object) -> int | None:
    """Accept 3, 3.0 and "3" as the id 3; anything else (including booleans, and numbers past
    MAX_TASK_ID) is invalid."""
    number = whole_number(value, signed=False)
    return number if number is not None and 0 < number <= MAX_TASK_ID else None


class CleanString(fields.Field[str]):
    """A stripped, length-capped string; non-scalars become ""."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(load_default="", **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str:
        return clean_text(value)


class StringList(fields.Field[list[str]]):
    """A list of non-empty strings; a lone string or object becomes a one-item list."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(load_default=list, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> list[str]:
        if isinstance(value, str | Mapping):
            value = [value]
        if not isinstance(value, list):
            return []
        texts = (_item_text(item) for item in value)
        return [text for text in texts if text][:MAX_LIST_ITEMS]


class Choice(fields.Field[str | None]):
    """One of ``choices`` matched case-insensitively, else ``fallback``."""

    def __init__(self, choices: tuple[str, ...], fallback: str | None, **kwargs: Any) -> None:
        super().__init__(load_default=fallback, allow_none=True, **kwargs)
        self.choices = choices
        self.fallback = fallback

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> str | None:
        matched = _match_choice(value, self.choices)
        return self.fallback if matched is None else matched


class TaskId(fields.Field[int | None]):
    """A positive integer id, or None when invalid (renumbered later by TaskList)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(load_default=None, allow_none=True, **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> int | None:
        return _positive_int(value)


class LenientSchema(Schema):
    """Drops unknown keys and treats explicit nulls as absent, so defaults apply to both."""

    class Meta:
        unknown = EXCLUDE

    @pre_load
    def _drop_nulls(self, data: Any, **kwargs: Any) -> Any:
        if not isinstance(data, Mapping):
            return {}
        return {key: value for key, value in data.items() if value is not None}


class LenientNested(fields.Nested):
    """A nested object that falls back to the nested schema's defaults when absent or not a
    JSON object."""

    def __init__(self, schema: type[LenientSchema], **kwargs: Any) -> None:
        super().__init__(schema, load_default=lambda: schema().load({}), **kwargs)

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> Any:
        if not isinstance(value, Mapping):
            value = {}
        return super()._deserialize(value, attr, data, **kwargs)


# Field names mirror the JSON contract (camelCase) so loaded data needs no renaming.
class LenientTaskSchema(LenientSchema):
    id = TaskId()
    title = CleanString()
    description = CleanString()
    assignee = CleanString()
    icon = CleanString()
    priority = Choice(PRIORITIES, DEFAULT_PRIORITY)
    estimatedTime = CleanString()


def _renumber(tasks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Keep the model's ids when they are all valid and unique; otherwise number 1..n in order,
    because ids are only used to reference tasks within this one result."""
    ids = [task["id"] for task in tasks]
    if None not in ids and len(set(ids)) == len(ids):
        return tasks
    return [{**task, "id": index} for index, task in enumerate(tasks, start=1)]


class TaskList(fields.Field[list[dict[str, Any]]]):
    """A list of tasks (a lone task object is wrapped); items that are not objects are dropped."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(load_default=list, **kwargs)

    def _deserialize(
        self, value: Any, attr: str | None, data: Any, **kwargs: Any
    ) -> list[dict[str, Any]]:
        if isinstance(value, Mapping):
            value = [value]
        if not isinstance(value, list):
            return []
        schema = LenientTaskSchema()
        items = [item for item in value if isinstance(item, Mapping)][:MAX_LIST_ITEMS]
        return _renumber([schema.load(item) for item in items])


class LenientVisitSummarySchema(LenientSchema):
    topicsDiscussed = StringList()
    keyFindings = StringList()
    decisionsMade = StringList()
    nextSteps = StringList()


class LenientRiskAssessmentSchema(LenientSchema):
    # None means "unknown": see the module docstring about the safety floor.
    level = Choice(RISK_LEVELS, None)
    summary = CleanString()
    factors = StringList()


class LenientAnalysisSchema(LenientSchema):
    aiTasks = TaskList()
    visitSummary = LenientNested(LenientVisitSummarySchema)
    differentialDiagnoses = StringList()
    riskAssessment = LenientNested(LenientRiskAssessmentSchema)
    clinicalFindings = StringList()
    treatmentPlan = StringList()
    recommendations = StringList()


_ANALYSIS_SCHEMA = LenientAnalysisSchema()


def normalize_analysis(raw: object) -> dict:
    """Raises InvalidAnalysis (ValueError subclass) when raw is not a JSON object (dict) at all;
    otherwise always returns the full shape.

    ``riskAssessment.level`` is None when the model gave no recognisable level; callers must
    apply ``services.analysis.crisis.apply_safety_floor`` before using or returning the result.
    """
    if not isinstance(raw, Mapping):
        raise InvalidAnalysis(f"analysis must be a JSON object, got {type(raw).__name__}")
    try:
        return _ANALYSIS_SCHEMA.load(raw)
    except ValidationError as err:
        # The fields above coerce instead of failing; reaching this means a schema bug, which
        # the caller should treat like any other unusable model output.
        raise InvalidAnalysis("analysis could not be normalised") from err
