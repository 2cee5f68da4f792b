"""Grading an answer against a task's expected output, as the paper's harness did.

In order, an answer is correct when it equals the expected value; else, for a numeric
expected value, when the answer (a string) parses as a number equal to it; else when
`ast.literal_eval` of the answer equals it; else when `str(answer) == str(expected)`.

Answers are compared as JSON would carry them: tuples count as lists (tuple tasks
store their expected value as a list, and a final result arrives as JSON). Booleans
are not numbers here: ``True`` never matches ``1``.
"""

import ast
from typing import Any

NUMERIC_TYPES = ("int", "float")
MAX_LITERAL_CHARS = 100_000


def _as_json(value: Any) -> Any:
    if isinstance(value, tuple | list):
        return [_as_json(item) for item in value]
    if isinstance(value, dict):
        return {key: _as_json(item) for key, item in value.items()}
    return value


def _equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[key], b[key]) for key in a)
    return bool(a == b)


def _parse_number(text: str) -> int | float | None:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        return None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def is_correct(answer: Any, expected: Any, expected_type: str) -> bool:
    """Whether `answer` (a final result, as JSON or text) matches the expected output."""
    answer, expected = _as_json(answer), _as_json(expected)
    if _equal(answer, expected):
        return True
    if isinstance(answer, str):
        if expected_type in NUMERIC_TYPES and _is_number(expected):
            parsed = _parse_number(answer.strip())
            if parsed is not None and parsed == expected:
                return True
        if len(answer) <= MAX_LITERAL_CHARS:
            try:
                literal = ast.literal_eval(answer.strip())
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                pass
            else:
                if _equal(_as_json(literal), expected):
                    return True
    return str(answer) == str(expected)
