"""The `condition` node's predicate: a small declarative test on the execution state.

A predicate is data, never code: `{"path": "analyze.riskAssessment.level", "operator": "in",
"value": ["high", "imminent"]}`, or `{"all": [...]}` / `{"any": [...]}` / `{"not": {...}}` of
predicates. Nothing is evaluated or templated, so a definition cannot run code on the worker.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from services.numbers import whole_number

MISSING = object()
MAX_DEPTH = 5
MAX_PATH_PARTS = 12


def json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON has it: `true` is not `1` (nor `false` `0`), in lists and objects too;
    Python's `==` says they are."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(json_equal, a, b))
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[key], b[key]) for key in a)
    return type(a) is type(b) and a == b


def _compare(test: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    def safe(actual: Any, expected: Any) -> bool:
        try:
            return actual is not MISSING and bool(test(actual, expected))
        except TypeError:  # e.g. "high" > 3: not comparable is simply false
            return False

    return safe


def _ordered(test: Callable[[Any, Any], bool]) -> Callable[[Any, Any], bool]:
    """An order test, false for a boolean on either side (JSON does not order them with
    numbers; Python takes `true > 0`)."""
    return _compare(lambda a, b: not isinstance(a, bool) and not isinstance(b, bool)
                    and test(a, b))


def _member(item: Any, collection: Any) -> bool:
    if isinstance(collection, str):
        return isinstance(item, str) and item in collection
    return any(json_equal(item, element) for element in collection)


OPERATORS: dict[str, Callable[[Any, Any], bool]] = {
    "eq": _compare(json_equal),
    "ne": lambda a, b: a is MISSING or not json_equal(a, b),
    "gt": _ordered(lambda a, b: a > b),
    "gte": _ordered(lambda a, b: a >= b),
    "lt": _ordered(lambda a, b: a < b),
    "lte": _ordered(lambda a, b: a <= b),
    "in": _compare(_member),
    "not_in": lambda a, b: a is MISSING or not _member(a, b),
    "contains": _compare(lambda a, b: _member(b, a)),
    "exists": lambda a, b: a is not MISSING and a is not None,
    "not_exists": lambda a, b: a is MISSING or a is None,
}
LIST_OPERATORS = ("in", "not_in")
UNARY_OPERATORS = ("exists", "not_exists")


def lookup(state: Mapping[str, Any], path: str) -> Any:
    """The value at a dotted path (`a.b.0.c`), or MISSING."""
    value: Any = state
    for part in path.split("."):
        if isinstance(value, Mapping) and part in value:
            value = value[part]
        elif isinstance(value, list) and (index := whole_number(part, signed=False)) \
                is not None and index < len(value):
            value = value[index]
        else:
            return MISSING
    return value


def predicate_problems(predicate: Any, depth: int = 0) -> list[str]:
    """What is wrong with a predicate (empty when it is well-formed)."""
    if depth > MAX_DEPTH:
        return [f"Predicates nest at most {MAX_DEPTH} levels."]
    if not isinstance(predicate, Mapping):
        return ["A predicate is an object."]
    for key in ("all", "any"):
        if key in predicate:
            items = predicate[key]
            if not isinstance(items, list) or not items:
                return [f"'{key}' is a non-empty list of predicates."]
            return [p for item in items for p in predicate_problems(item, depth + 1)]
    if "not" in predicate:
        return predicate_problems(predicate["not"], depth + 1)
    path, operator = predicate.get("path"), predicate.get("operator")
    problems = []
    if not isinstance(path, str) or not path or len(path.split(".")) > MAX_PATH_PARTS:
        problems.append("'path' is a dotted path into the state, e.g. 'input.score'.")
    if operator not in OPERATORS:
        problems.append(f"'operator' must be one of: {', '.join(OPERATORS)}.")
    elif operator not in UNARY_OPERATORS and "value" not in predicate:
        problems.append(f"Operator '{operator}' needs a 'value'.")
    elif operator in LIST_OPERATORS and not isinstance(predicate.get("value"), list):
        problems.append(f"Operator '{operator}' needs a list 'value'.")
    return problems


def evaluate(predicate: Mapping[str, Any], state: Mapping[str, Any]) -> bool:
    """Evaluate a well-formed predicate against the state."""
    if "all" in predicate:
        return all(evaluate(p, state) for p in predicate["all"])
    if "any" in predicate:
        return any(evaluate(p, state) for p in predicate["any"])
    if "not" in predicate:
        return not evaluate(predicate["not"], state)
    actual = lookup(state, predicate["path"])
    return OPERATORS[predicate["operator"]](actual, predicate.get("value"))
