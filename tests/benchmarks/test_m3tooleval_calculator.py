"""The safe calculator: Python's arithmetic on valid input, refusals for everything else."""

import ast
import inspect
import operator
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from codeact.bench.m3tooleval import calculator as calculator_module
from codeact.bench.m3tooleval.calculator import calculate, calculator

FAILED = "Failed to evaluate expression: "


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("2 + (3 * 4)", 14),
        ("7 / 2", 3.5),
        ("6 / 3", 2.0),
        ("7 // 2", 3),
        ("-7 // 2", -4),
        ("-7 % 3", 2),
        ("7.5 % 2", 1.5),
        ("2 ** 10", 1024),
        ("2 ** -2", 0.25),
        ("-2 ** 2", -4),
        ("(-2) ** 2", 4),
        ("+3 - -3", 6),
        ("150 + 150 * 7.5 / 100", 161.25),
        ("  1e3 * 2 ", 2000.0),
        ("1_000 + 0x10", 1016),
        ("0.1 + 0.2", 0.1 + 0.2),
        ("2 ** 0.5", 2**0.5),
        ("10 ** 100", 10**100),
    ],
)
def test_values_and_types_match_python(expression: str, value: float) -> None:
    result = calculator(expression)
    assert result == value
    assert type(result) is type(value)


@pytest.mark.parametrize(
    "expression",
    [
        "__import__('os').system('true')",
        "().__class__.__bases__[0].__subclasses__()",
        "open('/etc/passwd').read()",
        "eval('1+1')",
        "exec('x=1')",
        "x + 1",
        "abs(-1)",
        "(lambda: 1)()",
        "[1] * 10",
        "'a' * 10",
        "[i for i in range(10**9)]",
        "{1: 2}[1]",
        "1 if 1 else 2",
        "1 < 2",
        "1 << 10000",
        "1 & 3",
        "~1",
        "not 1",
        "True + 1",
        "None",
        "1j * 2",
        "9**9**9",
        "10**10**10",
        "2**100000",
        "(10**1000)**10",
        "2**4096 * 2**4096",
        "10.0 ** 400",
        "1e308 * 10",
        "(-8) ** 0.5",
        "1 / 0",
        "1 % 0",
        "0 ** -1",
        "(" * 300 + "1" + ")" * 300,
        "-" * 999 + "1",
        "1" * 5000,
        "1 +",
        "",
        "x = 1",
        "1; 2",
    ],
)
def test_hostile_or_invalid_input_gives_an_error_string(expression: str) -> None:
    started = time.perf_counter()
    result = calculator(expression)
    assert isinstance(result, str) and result.startswith(FAILED), result
    assert time.perf_counter() - started < 1.0
    with pytest.raises(ValueError):
        calculate(expression)


def test_error_string_is_short_and_says_why() -> None:
    assert "exponent" in str(calculator("9**9**9"))
    assert "Call is not allowed" in str(calculator("abs(-1)"))
    assert len(str(calculator("1 + " * 200 + "x"))) < 200


def test_non_string_input_is_refused() -> None:
    assert str(calculator(5)).startswith(FAILED)  # type: ignore[arg-type]


def test_the_module_never_evaluates_code() -> None:
    tree = ast.parse(inspect.getsource(calculator_module))
    called = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    assert not called & {"eval", "exec", "compile", "__import__", "getattr"}


_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv}
_numbers = st.one_of(
    st.integers(-1000, 1000),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False).filter(
        lambda x: x == 0 or abs(x) > 1e-6
    ),
)


@st.composite
def _expressions(draw: st.DrawFn, depth: int = 3) -> tuple[str, float]:
    if depth == 0 or draw(st.booleans()):
        number = draw(_numbers)
        return f"({number!r})", number
    symbol = draw(st.sampled_from(sorted(_OPS)))
    left_text, left = draw(_expressions(depth - 1))
    right_text, right = draw(_expressions(depth - 1))
    if symbol == "/" and right == 0:
        return left_text, left
    return f"({left_text} {symbol} {right_text})", _OPS[symbol](left, right)


@settings(max_examples=200, deadline=None)
@given(_expressions())
def test_random_arithmetic_matches_python(case: tuple[str, float]) -> None:
    text, value = case
    result = calculator(text)
    assert result == value and type(result) is type(value), text
