"""A safe arithmetic evaluator: what the original's `eval`-based calculator computed.

Only number literals, ``+ - * / // % **``, unary ``+``/``-`` and parentheses are
evaluated, with Python's own arithmetic (so ``7 / 2`` is ``3.5`` and ``2 * 3`` is the
int ``6``). Anything else, and any result that would be unreasonably large, gives an
error string instead of a number, as the original did for what `eval` rejected.
"""

import ast
import math
import operator
from collections.abc import Callable

MAX_EXPRESSION_CHARS = 1000
MAX_INT_BITS = 4096
MAX_ABS_EXPONENT = 10_000

Number = int | float

_BINARY: dict[type[ast.operator], Callable[[Number, Number], Number]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}


class _Refused(Exception):
    """The expression is outside what the calculator evaluates."""


def _check_size(value: Number) -> Number:
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise _Refused(f"the result exceeds {MAX_INT_BITS} bits")
    if isinstance(value, complex):
        raise _Refused("the result is not a real number")
    if isinstance(value, float) and not math.isfinite(value):
        raise _Refused("the result is not a finite number")
    return value


def _power(base: Number, exponent: Number) -> Number:
    if abs(exponent) > MAX_ABS_EXPONENT:
        raise _Refused(f"exponents beyond ±{MAX_ABS_EXPONENT} are not evaluated")
    exact = isinstance(base, int) and isinstance(exponent, int) and exponent > 0
    if exact and (abs(int(base)).bit_length() - 1) * exponent > MAX_INT_BITS:
        raise _Refused(f"the result exceeds {MAX_INT_BITS} bits")
    return base**exponent


def _evaluate(node: ast.AST) -> Number:
    if isinstance(node, ast.Expression):
        return _evaluate(node.body)
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise _Refused(f"{node.value!r} is not a number")
        return _check_size(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        operand = _evaluate(node.operand)
        return -operand if isinstance(node.op, ast.USub) else +operand
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _evaluate(node.left), _evaluate(node.right)
        if isinstance(node.op, ast.Pow):
            return _check_size(_power(left, right))
        return _check_size(_BINARY[type(node.op)](left, right))
    raise _Refused(f"{type(node).__name__} is not allowed; use numbers, + - * / // % ** and ()")


def calculate(expression: str) -> Number:
    """The value of an arithmetic expression; `ValueError` says why it cannot be had."""
    if not isinstance(expression, str):
        raise ValueError(f"expected a string expression, got {type(expression).__name__}")
    text = expression.strip()
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ValueError(f"the expression is longer than {MAX_EXPRESSION_CHARS} characters")
    try:
        tree = ast.parse(text, mode="eval")
        return _evaluate(tree)
    except _Refused as exc:
        raise ValueError(str(exc)) from None
    except SyntaxError as exc:
        raise ValueError(f"not a valid expression ({exc.msg})") from None
    except (ArithmeticError, RecursionError, MemoryError, ValueError, TypeError) as exc:
        raise ValueError(f"{type(exc).__name__}: {exc}") from None


def calculator(expression: str) -> int | float | str:
    """Evaluate an arithmetic expression such as "2 + (3 * 4)"; an error string if it cannot."""
    try:
        return calculate(expression)
    except ValueError as exc:
        text = str(expression)
        shown = text if len(text) <= 80 else text[:77] + "..."
        return f"Failed to evaluate expression: {shown} ({exc})"
