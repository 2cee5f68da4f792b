"""Compile failures, the rendering of syntax errors, and the unrestricted compile used
when the language layer is off.

Worker side: standard library and RestrictedPython only.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from types import CodeType

from RestrictedPython.transformer import copy_locations

from sandbox.worker.language.names import LAST_EXPR


@dataclass(frozen=True, slots=True)
class CompileFailure:
    """Why a script did not compile: ``syntax`` errors or ``policy`` violations."""

    kind: str
    message: str


def name_node(ident: str, node: ast.AST) -> ast.Name:
    new = ast.Name(ident, ast.Load())
    copy_locations(new, node)  # type: ignore[arg-type]
    return new


def assign_node(ident: str, value: ast.expr, node: ast.AST) -> ast.Assign:
    target = ast.Name(ident, ast.Store())
    copy_locations(target, node)  # type: ignore[arg-type]
    assign = ast.Assign([target], value)
    copy_locations(assign, node)  # type: ignore[arg-type]
    return assign


def format_syntax_error(exc: SyntaxError) -> str:
    """Render a SyntaxError the way Python prints it, without host file paths."""
    where = f"line {exc.lineno}" if exc.lineno else "unknown line"
    text = f"SyntaxError: {exc.msg} ({where})"
    if exc.text:
        line = exc.text.rstrip("\n")
        caret = ""
        if exc.offset and exc.offset > 0:
            indent = len(line) - len(line.lstrip())
            caret = "\n    " + " " * max(exc.offset - 1 - indent, 0) + "^"
        text += "\n    " + line.strip() + caret
    return text


def compile_plain(source: str, filename: str) -> CodeType | CompileFailure:
    """Compile without restrictions (the ``language`` layer is off), keeping only the
    capture of the last expression's value."""
    try:
        tree = ast.parse(source, filename, "exec")
        if tree.body and isinstance(tree.body[-1], ast.Expr):
            last = tree.body[-1]
            call = ast.Call(name_node(LAST_EXPR, last), [last.value], [])
            copy_locations(call, last)
            last.value = call
        return compile(tree, filename, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return CompileFailure("syntax", format_syntax_error(exc))
    except (RecursionError, MemoryError, ValueError) as exc:
        return CompileFailure("syntax", f"the script could not be compiled: {type(exc).__name__}")
