"""The grader: equality, numeric parsing, literal_eval, str equality, JSON round trips."""

import json
from typing import Any

import pytest

from codeact.bench.m3tooleval import is_correct, load_tasks


def _via_json(value: Any) -> Any:
    return json.loads(json.dumps(value))


@pytest.mark.parametrize(
    ("answer", "expected", "expected_type"),
    [
        (161.25, 161.25, "float"),
        ("161.25", 161.25, "float"),
        (" 161.25\n", 161.25, "float"),
        (161, 161.0, "float"),
        ("8100", 8100.0, "float"),
        (1050.0, 1050, "int"),
        ("4", 4, "int"),
        ("fchahcufcu", "fchahcufcu", "str"),
        ("'Engineering'", "Engineering", "str"),
        ([36380.0, 48150.0, 68480.0], [36380.0, 48150.0, 68480.0], "list"),
        ("[36380, 48150, 68480]", [36380.0, 48150.0, 68480.0], "list"),
        ("36380.0, 48150.0, 68480.0", [36380.0, 48150.0, 68480.0], "list"),
        ({"T": 1, "A": 2}, {"A": 2, "T": 1}, "dict"),
        ("{'T': 1, 'A': 2}", {"T": 1, "A": 2}, "dict"),
        (False, False, "bool"),
        ("False", False, "bool"),
        (("A", 3), ["A", 3], "tuple"),
        (_via_json(("A", 3)), ["A", 3], "tuple"),
        ("('A', 3)", ["A", 3], "tuple"),
        ("['A', 3]", ["A", 3], "tuple"),
        (380.41999999999996, 380.41999999999996, "float"),
        (3, "3", "str"),
    ],
)
def test_correct_answers(answer: Any, expected: Any, expected_type: str) -> None:
    assert is_correct(answer, expected, expected_type)


@pytest.mark.parametrize(
    ("answer", "expected", "expected_type"),
    [
        ("$161.25", 161.25, "float"),
        ("161.25 credits", 161.25, "float"),
        (161.2, 161.25, "float"),
        ("380.42", 380.41999999999996, "float"),
        (380.42, 380.41999999999996, "float"),
        ("3.5", 3, "int"),
        ("Answer: 4", 4, "int"),
        (None, 4, "int"),
        ("engineering", "Engineering", "str"),
        ("A", ["A", 3], "tuple"),
        ([3, "A"], ["A", 3], "tuple"),
        ([36380.0, 48150.0], [36380.0, 48150.0, 68480.0], "list"),
        ({"T": 1}, {"T": 1, "A": 2}, "dict"),
        (0, False, "bool"),
        ("0", False, "bool"),
        (True, 1, "int"),
        ("True", 1, "int"),
        (1, True, "bool"),
        ("__import__('os')", "x", "str"),
        ("[" * 1000, [1], "list"),
    ],
)
def test_wrong_answers(answer: Any, expected: Any, expected_type: str) -> None:
    assert not is_correct(answer, expected, expected_type)


def test_every_expected_output_grades_itself_after_a_json_round_trip() -> None:
    for task in load_tasks():
        answer = _via_json(task.expected_output)
        assert is_correct(answer, task.expected_output, task.expected_type), task.name
        assert is_correct(str(answer), task.expected_output, task.expected_type), task.name
