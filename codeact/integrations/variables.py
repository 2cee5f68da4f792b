"""Variables in and out of a sandbox session, for frameworks that hand an executor a
namespace.

smolagents' ``send_variables`` and LangGraph CodeAct's ``_locals`` give the executor
Python values to bind in the script's globals, and LangGraph wants the variables a
script bound handed back. Everything crossing the process boundary is JSON, so:

- :func:`assignments` turns values into scripts of plain assignments (JSON values
  written as Python literals, each script under the policy's ``source_bytes``);
- :func:`bound_names` finds the names a script binds at its top level, read from its
  syntax tree (an over-approximation: a name bound on a branch not taken is simply
  absent when read back);
- :func:`read_back` is a script whose observation holds those of the names that exist
  and whose values are JSON data (dicts with string keys, lists, tuples, strings,
  numbers, booleans, None); others (functions, classes, modules, numpy arrays) stay
  in the worker only.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import pydantic_core

from sandbox.protocol import RESERVED_NAMES

#: How deep the read-back check follows nested containers before it gives up on one.
_MAX_DEPTH = 64


class VariableError(TypeError):
    """A variable cannot be sent to the sandbox (its name or its value)."""


def literal(value: Any) -> str:
    """``value`` (JSON data, after pydantic's conversion) as a Python literal."""
    return _literal(pydantic_core.to_jsonable_python(value))


def _literal(value: Any) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return f"float({str(value)!r})"
    if isinstance(value, list):
        return "[" + ", ".join(_literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_literal(v)}" for k, v in value.items()) + "}"
    return repr(value)


def assignments(variables: Mapping[str, Any], max_bytes: int) -> list[str]:
    """Scripts binding ``variables``, each at most ``max_bytes`` of UTF-8 source.

    Raises :class:`VariableError` for a name a script cannot bind, a value with no JSON
    form, or one whose literal alone is over ``max_bytes``.
    """
    scripts: list[str] = []
    current: list[str] = []
    size = 0
    for name, value in variables.items():
        if not name.isidentifier() or name.startswith("_") or name in RESERVED_NAMES:
            raise VariableError(
                f"variable {name!r} cannot be sent to the sandbox: names are identifiers "
                f"without a leading '_' and not one of {', '.join(sorted(RESERVED_NAMES))}"
            )
        try:
            line = f"{name} = {literal(value)}\n"
        except pydantic_core.PydanticSerializationError as exc:
            raise VariableError(
                f"variable {name!r} cannot be sent to the sandbox: a {type(value).__name__} "
                f"has no JSON form ({exc})"
            ) from None
        length = len(line.encode())
        if length > max_bytes:
            raise VariableError(
                f"variable {name!r} is {length} bytes as a literal; a script may be at most "
                f"{max_bytes} (raise the policy's source_bytes limit)"
            )
        if size + length > max_bytes:
            scripts.append("".join(current))
            current, size = [], 0
        current.append(line)
        size += length
    if current:
        scripts.append("".join(current))
    return scripts


def bound_names(source: str) -> list[str]:
    """The global names ``source`` may bind, in order of first appearance; [] when it
    does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    found = dict.fromkeys(_module_bindings(tree.body))
    for node in ast.walk(tree):
        if isinstance(node, ast.Global):  # `global x` in a function binds a global
            found.update(dict.fromkeys(node.names))
    return [name for name in found if not name.startswith("_") and name not in RESERVED_NAMES]


def _module_bindings(statements: Iterable[ast.AST]) -> Iterator[str]:
    for statement in statements:
        yield from _bindings(statement)


def _bindings(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
        return  # its body is another scope
    if isinstance(node, ast.Lambda):
        return
    if isinstance(node, ast.Import | ast.ImportFrom):
        for alias in node.names:
            if alias.name != "*":
                yield alias.asname or alias.name.split(".")[0]
        return
    if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
        # Only an assignment expression in a comprehension reaches the enclosing scope.
        for inner in ast.walk(node):
            if isinstance(inner, ast.NamedExpr) and isinstance(inner.target, ast.Name):
                yield inner.target.id
        return
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        yield node.id
    elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
        yield node.name
    elif isinstance(node, ast.MatchMapping) and node.rest:
        yield node.rest
    for child in ast.iter_child_nodes(node):
        yield from _bindings(child)


#: The read-back script's template: one function, removed again whatever happens.
_READ_BACK = """\
def codeact_read_back():
    def codeact_is_data(value, depth):
        if depth > {depth}:
            return False
        if value is None or type(value) in (bool, int, str):
            return True
        if type(value) is float:
            return value == value and value not in (float('inf'), float('-inf'))
        if type(value) in (list, tuple):
            return all(codeact_is_data(item, depth + 1) for item in value)
        if type(value) is dict:
            return all(type(key) is str and codeact_is_data(item, depth + 1)
                       for key, item in value.items())
        return False
    codeact_found = {{}}
{reads}
    return {{name: value for name, value in codeact_found.items() if codeact_is_data(value, 0)}}
try:
    observation(codeact_read_back())
finally:
    del codeact_read_back
"""

_READ_ONE = """\
    try:
        codeact_found[{name!r}] = {name}
    except NameError:
        pass
"""


def read_back(names: Iterable[str]) -> str:
    """A script whose observation maps each of ``names`` that exists, and holds JSON
    data, to its value."""
    reads = "".join(_READ_ONE.format(name=name) for name in names) or "    pass\n"
    return _READ_BACK.format(depth=_MAX_DEPTH, reads=reads)
