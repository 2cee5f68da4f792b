"""Route RestrictedPython's compile functions to the sandbox's compiler.

Every public compile function of RestrictedPython (``compile_restricted`` and its
``_exec``/``_eval``/``_single``/``_function`` variants, and ``RestrictionCapableEval``)
ends in ``RestrictedPython.compile._compile_restricted_mode``; :func:`compile_mode`
replaces it for the duration of each test in ``upstream/``, so the suite runs unchanged.

- A source string in ``exec`` mode goes to
  :func:`sandbox.worker.language.compiler.compile_script`, the entry point the worker
  uses, in its module form: the suite runs code with separate globals and locals, which
  the worker never does (``toplevel.py``). An AST (``compile_restricted_function``
  builds one), or an ``eval``/``single`` source, goes through the same steps in its own
  mode: parse, :class:`~sandbox.worker.language.compiler.SandboxTransformer`,
  ``compile``.
- Where both compilers refuse a script on the same lines, the result carries stock
  RestrictedPython's messages: the suite compares decisions, not wording (ours are tested
  in ``tests/sandbox/test_compiler.py``). Anywhere else it carries ours. (A line both
  refuse for different reasons would pass; the upstream tests put one refused construct
  on a line.)
- The compiled code calls the suite's ``_getattr_`` and ``_write_`` where it calls our
  guards (the same protocol), so the suite's guards and mocks see every guarded access.
- A test that passes its own ``policy=`` exercises RestrictedPython's policy hook, which
  the sandbox does not have: it is skipped, with that reason.
"""

from __future__ import annotations

import ast
import re
import warnings
from types import CodeType
from typing import Any

import pytest
from RestrictedPython import compile as rp_compile
from RestrictedPython.compile import CompileResult
from RestrictedPython.transformer import RestrictingNodeTransformer

from sandbox.worker.language.compiler import (
    GETATTR,
    LAST_EXPR,
    WRITE,
    CompileFailure,
    SandboxTransformer,
    compile_script,
    format_syntax_error,
)

#: The stock implementation, for the comparison of decisions.
STOCK = rp_compile._compile_restricted_mode

#: Where an error message names its line: RestrictedPython's ``Line 3: ...``, and the
#: sandbox's syntax errors, ``SyntaxError: ... (line 3)``.
_LINE = re.compile(r"^Line (\d+):|^SyntaxError: .*?\(line (\d+)\)")


def _lines(errors: tuple[str, ...] | list[str]) -> set[str]:
    found = (_LINE.match(e) for e in errors)
    return {(m.group(1) or m.group(2)) if m else "?" for m in found}


def _errors(failure: CompileFailure) -> tuple[str, ...]:
    if failure.kind == "policy":
        return tuple(failure.message.split("\n"))
    return (failure.message,)


#: Our guards under the names RestrictedPython's tests give theirs (the same protocol:
#: ``_getattr_(obj, name)``, ``_write_(obj)``).
_GUARD_NAMES = {GETATTR: "_getattr_", WRITE: "_write_"}


def _with_stock_guard_names(code: CodeType) -> CodeType:
    consts = tuple(
        _with_stock_guard_names(c) if isinstance(c, CodeType) else c for c in code.co_consts
    )
    names = tuple(_GUARD_NAMES.get(name, name) for name in code.co_names)
    return code.replace(co_consts=consts, co_names=names)


def _ours(source: Any, filename: str, mode: str) -> CompileResult:
    if isinstance(source, bytes | bytearray):
        source = source.decode("utf-8")
    if isinstance(source, str) and mode == "exec":
        compiled = compile_script(source, filename, top_level_function=False)
    else:
        compiled = _compile_tree(source, filename, mode)
    if isinstance(compiled, CompileFailure):
        return CompileResult(None, _errors(compiled), [], {})
    return CompileResult(_with_stock_guard_names(compiled), (), [], {})


def _compile_tree(source: Any, filename: str, mode: str) -> CodeType | CompileFailure:
    """``compile_script``'s steps (parse, transform, compile) in another mode.

    The transformer sees a module, as in the worker: an ``eval`` expression is checked as
    an expression statement, a ``single`` statement as a module's body.
    """
    if isinstance(source, str):
        try:
            source = ast.parse(source, filename, mode)
        except SyntaxError as exc:
            return CompileFailure("syntax", format_syntax_error(exc))
    if isinstance(source, ast.Expression):
        module = ast.Module([ast.Expr(source.body)], [])
        ast.copy_location(module.body[0], source.body)
    else:
        module = ast.Module(source.body, [])
    transformer = SandboxTransformer()
    module = transformer.visit(module)
    if transformer.errors:
        return CompileFailure("policy", "\n".join(transformer.errors))
    tree: ast.Expression | ast.Module | ast.Interactive
    if isinstance(source, ast.Expression):
        (statement,) = module.body
        tree = ast.Expression(_without_last_expr(statement.value))
    elif isinstance(source, ast.Interactive):
        tree = ast.Interactive(module.body)
    else:
        tree = module
    return compile(ast.fix_missing_locations(tree), filename, mode, dont_inherit=True)


def _without_last_expr(value: ast.expr) -> ast.expr:
    """An ``eval`` returns its value itself: no capture of a last expression."""
    func = value.func if isinstance(value, ast.Call) else None
    if isinstance(func, ast.Name) and func.id == LAST_EXPR:
        return value.args[0]  # type: ignore[union-attr]
    return value


def compile_mode(
    source: Any,
    filename: Any = "<string>",
    mode: str = "exec",
    flags: int = 0,
    dont_inherit: bool = False,
    policy: Any = RestrictingNodeTransformer,
) -> CompileResult:
    """``_compile_restricted_mode`` with the sandbox's compiler in place of the policy."""
    if policy is not RestrictingNodeTransformer:
        pytest.skip("tests RestrictedPython's policy= hook, which the sandbox does not have")
    if not isinstance(
        source, str | bytes | bytearray | ast.Module | ast.Expression | ast.Interactive
    ):
        raise TypeError(f'Not allowed source type: "{type(source).__name__}".')
    if not rp_compile.IS_CPYTHON:
        warnings.warn_explicit(
            rp_compile.NOT_CPYTHON_WARNING, RuntimeWarning, "RestrictedPython", 0
        )
    filename = str(filename)
    ours = _ours(source, filename, mode)
    if ours.errors:
        stock = STOCK(source, filename, mode, flags, dont_inherit, policy)
        if stock.errors and _lines(stock.errors) == _lines(ours.errors):
            return CompileResult(None, tuple(stock.errors), ours.warnings, ours.used_names)
    return ours
