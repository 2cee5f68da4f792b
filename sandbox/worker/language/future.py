"""``from __future__ import annotations`` and the other features, for scripts.

A future import is a directive to the compiler, not an import: the compiler removes the
statement (running it would import ``__future__`` through the script's ``__import__``)
and compiles with the feature's flag. Only features that change nothing the sandbox
checks are accepted (``annotations`` keeps annotations as strings, which nothing in the
sandbox evaluates); the statement must open the module, as in CPython.

Worker side: standard library only.
"""

from __future__ import annotations
import __future__

import ast

#: The features a script may ask for (the rest of ``__future__`` are compatibility
#: names for what Python 3 always does, and ``barry_as_FLUFL``).
FEATURES = frozenset(
    {
        "annotations",
        "generator_stop",
        "nested_scopes",
        "generators",
        "division",
        "absolute_import",
        "with_statement",
        "print_function",
        "unicode_literals",
    }
)


def is_future_import(node: ast.AST) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__" and not node.level


def leading_future_imports(body: list[ast.stmt]) -> set[int]:
    """The future imports that open the module (after its docstring), by node id."""
    found: set[int] = set()
    for index, statement in enumerate(body):
        if index == 0 and isinstance(statement, ast.Expr):
            value = statement.value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                continue
        if not is_future_import(statement):
            break
        found.add(id(statement))
    return found


def feature_flags(node: ast.ImportFrom) -> tuple[int, list[str]]:
    """The compiler flags ``node`` asks for, and why it may not (if it may not)."""
    flags, errors = 0, []
    for alias in node.names:
        if alias.name not in FEATURES or alias.asname is not None:
            errors.append(f'"from __future__ import {alias.name}" is not supported.')
            continue
        flags |= getattr(__future__, alias.name).compiler_flag
    return flags, errors
