import pytest

from services.analysis.shape import (
    MAX_LIST_ITEMS,
    MAX_STRING_CHARS,
    PRIORITIES,
    RISK_LEVELS,
    InvalidAnalysis,
    normalize_analysis,
)
from tests.fakes.openai_server import fresh_analysis

EMPTY_SHAPE = {
    "aiTasks": [],
    "visitSummary": {
        "topicsDiscussed": [],
        "keyFindings": [],
        "decisionsMade": [],
        "nextSteps": [],
    },
    "differentialDiagnoses": [],
    "riskAssessment": {"level": None, "summary": "", "factors": []},
    "clinicalFindings": [],
    "treatmentPlan": [],
    "recommendations": [],
}
TASK_KEYS = {"id", "title", "description", "assignee", "icon", "priority", "estimatedTime"}


def test_constants_match_the_contract():
    assert PRIORITIES == ("low", "medium", "high", "urgent")
    assert RISK_LEVELS == ("low", "moderate", "high", "imminent")


@pytest.mark.parametrize("raw", [None, [], ["aiTasks"], "{}", 3, 2.5, True])
def test_non_objects_are_rejected(raw):
    with pytest.raises(InvalidAnalysis):
        normalize_analysis(raw)


def test_invalid_analysis_is_a_value_error():
    assert issubclass(InvalidAnalysis, ValueError)


def test_empty_object_gets_the_full_default_shape():
    assert normalize_analysis({}) == EMPTY_SHAPE


def test_valid_analysis_passes_through_unchanged():
    raw = fresh_analysis()
    assert normalize_analysis(raw) == raw


def test_nulls_are_treated_as_missing():
    raw = {key: None for key in EMPTY_SHAPE}
    assert normalize_analysis(raw) == EMPTY_SHAPE


def test_unknown_keys_are_dropped_at_every_level():
    raw = fresh_analysis()
    raw["confidence"] = 0.9
    raw["visitSummary"]["mood"] = "low"
    raw["riskAssessment"]["score"] = 3
    raw["aiTasks"][0]["dueDate"] = "tomorrow"
    result = normalize_analysis(raw)
    assert "confidence" not in result
    assert "mood" not in result["visitSummary"]
    assert "score" not in result["riskAssessment"]
    assert set(result["aiTasks"][0]) == TASK_KEYS


def test_objects_of_the_wrong_type_fall_back_to_defaults():
    result = normalize_analysis({"visitSummary": "talked a lot", "riskAssessment": ["high"]})
    assert result["visitSummary"] == EMPTY_SHAPE["visitSummary"]
    assert result["riskAssessment"] == EMPTY_SHAPE["riskAssessment"]


def test_string_lists_coerce_items():
    raw = {
        "clinicalFindings": [
            "  Low mood  ",
            3,
            2.5,
            None,
            {"unrelated": "x"},
            {"text": "Poor sleep"},
            {"title": "Anhedonia"},
            {"name": "Irritability"},
            ["nested"],
            "   ",
        ]
    }
    result = normalize_analysis(raw)
    assert result["clinicalFindings"] == [
        "Low mood",
        "3",
        "2.5",
        "Poor sleep",
        "Anhedonia",
        "Irritability",
    ]


def test_single_string_is_wrapped_and_other_non_lists_become_empty():
    result = normalize_analysis(
        {"recommendations": "Keep a sleep diary", "treatmentPlan": 7, "differentialDiagnoses": {}}
    )
    assert result["recommendations"] == ["Keep a sleep diary"]
    assert result["treatmentPlan"] == []
    assert result["differentialDiagnoses"] == []


def test_strings_and_lists_are_capped():
    raw = {
        "recommendations": ["x" * (MAX_STRING_CHARS + 500)] * (MAX_LIST_ITEMS + 20),
        "riskAssessment": {"summary": "y" * (MAX_STRING_CHARS * 2)},
        "aiTasks": [{"title": f"task {n}"} for n in range(MAX_LIST_ITEMS + 5)],
    }
    result = normalize_analysis(raw)
    assert len(result["recommendations"]) == MAX_LIST_ITEMS
    assert all(len(item) == MAX_STRING_CHARS for item in result["recommendations"])
    assert len(result["riskAssessment"]["summary"]) == MAX_STRING_CHARS
    assert len(result["aiTasks"]) == MAX_LIST_ITEMS


def test_task_defaults_and_coercions():
    raw = {"aiTasks": [{"id": "3", "title": "  Call GP  ", "estimatedTime": 15, "icon": None}]}
    (task,) = normalize_analysis(raw)["aiTasks"]
    assert task == {
        "id": 3,
        "title": "Call GP",
        "description": "",
        "assignee": "",
        "icon": "",
        "priority": "medium",
        "estimatedTime": "15",
    }


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("High", "high"),
        (" URGENT ", "urgent"),
        ("low", "low"),
        ("critical", "medium"),
        ("", "medium"),
        (3, "medium"),
        (None, "medium"),
    ],
)
def test_task_priority(given, expected):
    (task,) = normalize_analysis({"aiTasks": [{"title": "t", "priority": given}]})["aiTasks"]
    assert task["priority"] == expected


def test_valid_unique_ids_are_kept():
    raw = {"aiTasks": [{"id": 7}, {"id": "2"}, {"id": 4.0}]}
    assert [task["id"] for task in normalize_analysis(raw)["aiTasks"]] == [7, 2, 4]


@pytest.mark.parametrize(
    "ids",
    [
        [None, 2, 3],
        ["a", "b", "c"],
        [1, 1, 2],
        [0, 1, 2],
        [-1, 5, 6],
        [True, 2, 3],
        ["task-1", 2, 3],
        [1.5, 2, 3],
        [10**30, 5, 6],  # stored and served past 64 bits and JavaScript's safe integers
        [2**31, 5, 6],
    ],
)
def test_invalid_or_duplicate_ids_are_renumbered(ids):
    raw = {"aiTasks": [{"title": f"t{n}", "id": task_id} for n, task_id in enumerate(ids)]}
    tasks = normalize_analysis(raw)["aiTasks"]
    assert [task["id"] for task in tasks] == [1, 2, 3]
    assert [task["title"] for task in tasks] == ["t0", "t1", "t2"]


def test_missing_ids_are_numbered_from_one():
    raw = {"aiTasks": [{"title": "a"}, {"title": "b"}]}
    assert [task["id"] for task in normalize_analysis(raw)["aiTasks"]] == [1, 2]


def test_non_object_tasks_are_dropped_and_lone_task_wrapped():
    raw = {"aiTasks": ["do something", None, 5, {"title": "real"}]}
    assert [task["title"] for task in normalize_analysis(raw)["aiTasks"]] == ["real"]
    lone = normalize_analysis({"aiTasks": {"title": "only"}})["aiTasks"]
    assert [task["title"] for task in lone] == ["only"]
    assert normalize_analysis({"aiTasks": "nothing"})["aiTasks"] == []


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("High", "high"),
        ("IMMINENT", "imminent"),
        (" moderate ", "moderate"),
        ("low", "low"),
        ("medium", None),
        ("severe", None),
        ("", None),
        (2, None),
        (None, None),
    ],
)
def test_risk_level_unknown_becomes_none_for_the_safety_floor(given, expected):
    result = normalize_analysis({"riskAssessment": {"level": given, "summary": "s"}})
    assert result["riskAssessment"]["level"] == expected
    assert result["riskAssessment"]["summary"] == "s"


def test_missing_risk_assessment_has_none_level():
    assert normalize_analysis({"aiTasks": []})["riskAssessment"]["level"] is None


def test_risk_factors_and_visit_summary_lists_are_normalised():
    raw = {
        "riskAssessment": {"level": "low", "factors": "Lives alone"},
        "visitSummary": {
            "nextSteps": ["Follow up", None, {"text": "Sleep diary"}],
            "keyFindings": 1,
        },
    }
    result = normalize_analysis(raw)
    assert result["riskAssessment"]["factors"] == ["Lives alone"]
    assert result["visitSummary"]["nextSteps"] == ["Follow up", "Sleep diary"]
    assert result["visitSummary"]["keyFindings"] == []


def test_input_is_not_mutated():
    raw = {"aiTasks": [{"id": "3", "priority": "High"}], "extra": 1}
    normalize_analysis(raw)
    assert raw == {"aiTasks": [{"id": "3", "priority": "High"}], "extra": 1}


def test_ids_of_thousands_of_digits_are_renumbered():
    raw = {"aiTasks": [{"title": "t", "id": "7" * 5000}, {"title": "u", "id": "\u0663"}]}
    assert [task["id"] for task in normalize_analysis(raw)["aiTasks"]] == [1, 2]
