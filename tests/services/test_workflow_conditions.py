"""The condition node's declarative predicates."""

import pytest

from services.workflows.conditions import evaluate, predicate_problems

STATE = {"input": {"score": 14, "tags": ["sleep", "mood"]},
         "analyze": {"riskAssessment": {"level": "high"}, "aiTasks": [{"id": 1}]}}


@pytest.mark.parametrize(("predicate", "expected"), [
    ({"path": "input.score", "operator": "gte", "value": 10}, True),
    ({"path": "input.score", "operator": "lt", "value": 10}, False),
    ({"path": "analyze.riskAssessment.level", "operator": "in", "value": ["high", "imminent"]},
     True),
    ({"path": "input.tags", "operator": "contains", "value": "sleep"}, True),
    ({"path": "analyze.aiTasks.0.id", "operator": "eq", "value": 1}, True),
    ({"path": "input.missing", "operator": "exists"}, False),
    ({"path": "input.missing", "operator": "ne", "value": 3}, True),
    ({"path": "analyze.riskAssessment.level", "operator": "gt", "value": 3}, False),
    ({"all": [{"path": "input.score", "operator": "gt", "value": 1},
              {"not": {"path": "input.score", "operator": "eq", "value": 2}}]}, True),
    ({"any": [{"path": "input.score", "operator": "eq", "value": 1},
              {"path": "input.score", "operator": "eq", "value": 2}]}, False),
])
def test_predicate_evaluates_on_the_state(predicate, expected):
    assert predicate_problems(predicate) == []
    assert evaluate(predicate, STATE) is expected


@pytest.mark.parametrize(("predicate", "expected"), [
    ({"path": "input.flag", "operator": "eq", "value": 1}, False),
    ({"path": "input.flag", "operator": "eq", "value": True}, True),
    ({"path": "input.zero", "operator": "eq", "value": False}, False),
    ({"path": "input.flag", "operator": "ne", "value": 1}, True),
    ({"path": "input.flag", "operator": "in", "value": [1, 2]}, False),
    ({"path": "input.flag", "operator": "gt", "value": 0}, False),
    ({"path": "input.flags", "operator": "contains", "value": 1}, False),
    ({"path": "input.flags", "operator": "eq", "value": [1]}, False),
    ({"path": "input.zero", "operator": "in", "value": [0.0]}, True),
])
def test_true_is_not_1_as_in_json(predicate, expected):
    """`{"operator": "eq", "value": 1}` took the `then` branch for `true` (Python's ==)."""
    state = {"input": {"flag": True, "zero": 0, "flags": [True]}}
    assert evaluate(predicate, state) is expected


@pytest.mark.parametrize("predicate", [
    "input.score > 3",
    {"path": "input.score", "operator": "__import__", "value": "os"},
    {"path": "input.score", "operator": "in", "value": "abc"},
    {"path": "", "operator": "eq", "value": 1},
    {"path": "input.score", "operator": "eq"},
    {"all": []},
])
def test_malformed_predicate_is_refused(predicate):
    assert predicate_problems(predicate)


@pytest.mark.parametrize("index", ["\u00b2", "1" * 5000])
def test_a_path_index_that_is_no_ascii_number_names_nothing(index):
    predicate = {"path": f"input.items.{index}", "operator": "exists"}
    assert predicate_problems(predicate) == []
    assert evaluate(predicate, {"input": {"items": ["a", "b", "c"]}}) is False
    assert evaluate({"path": "input.items.2", "operator": "exists"},
                    {"input": {"items": ["a", "b", "c"]}}) is True
