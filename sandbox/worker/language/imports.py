"""Import statements under the name rule, and ``from __future__`` directives.

Every part of a module's name follows the name rule, and a module's underscore names
are its internals (never importable); relative and lazy imports are refused.

A future import is a directive to the compiler, not an import: the compiler removes the
statement (running it would import ``__future__`` through the script's ``__import__``)
and compiles with the feature's flag. Only features that change nothing the sandbox
checks are accepted (``annotations`` keeps annotations as strings, which nothing in the
sandbox evaluates); the statement must open the module, as in CPython.

Worker side: standard library and RestrictedPython only.
"""

from __future__ import annotations
import __future__

import ast
from typing import TYPE_CHECKING

from sandbox.worker.language.fastwalk import FastNodeTransformer
from sandbox.worker.language.names import name_error

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


class ImportRules(FastNodeTransformer):
    """The import visitors of the sandbox's transformer (``compiler.py``)."""

    if TYPE_CHECKING:

        def _check(self, node: ast.AST, name: str | None) -> None: ...

    def __init__(self) -> None:
        super().__init__()
        self._future_at_top: set[int] = set()
        #: The compiler flags of the script's ``from __future__`` imports.
        self.future_flags = 0

    def visit_Import(self, node: ast.Import | ast.ImportFrom) -> ast.AST:
        if getattr(node, "is_lazy", 0):
            # ``lazy import`` (3.15) resolves through a builtin at first use.
            self.error(node, "lazy import statements are not allowed.")
        for alias in node.names:
            if alias.name == "*" and isinstance(node, ast.ImportFrom):
                # Binds the names of the proxy's ``__all__``: its members that pass the
                # name rule (``modules._make_proxy``). CPython allows it at module level.
                continue
            self._check_dotted(node, alias.name)
            bound = alias.asname or alias.name.partition(".")[0]
            self._check(node, bound)
        return node

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST | None:
        if is_future_import(node):
            if id(node) not in self._future_at_top:
                self.error(node, "from __future__ imports must occur at the beginning of the file")
            flags, errors = feature_flags(node)
            for error in errors:
                self.error(node, error)
            self.future_flags |= flags
            return None  # a directive to the compiler: nothing runs
        if node.level:
            self.error(node, "relative imports are not allowed.")
        if node.module is not None:
            self._check_dotted(node, node.module)
        return self.visit_Import(node)

    def _check_dotted(self, node: ast.AST, dotted: str) -> None:
        # A module's underscore names are its internals: never importable, whatever the
        # module. (A private alias, ``import json as _json``, is the script's own.) Each
        # part follows the name rule too (``import builtins`` is refused, as stock does).
        if any(part.startswith("_") for part in dotted.split(".")):
            self.error(node, f'"{dotted}" cannot be imported: it starts with "_".')
            return
        for part in dotted.split("."):
            error = name_error(part, None)
            if error is not None:
                self.error(node, error)
