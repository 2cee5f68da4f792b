"""A script's top level, run as the body of a function.

Module-level code reads and writes its variables through the globals dict
(``LOAD_NAME``/``STORE_NAME``, unspecialised); a function declaring them ``global``
uses the interpreter's specialised global access, and the membrane's generated
locals (``names.HELD``) become fast locals. So the compiler wraps the checked top level
in ``def <module>(): global <every name it binds>; ...`` and runs it at once; the
script's variables land in its globals as before, so they persist across runs.

What differs from module code, and how it is kept the same:

- ``return`` and ``yield`` at the top level stay syntax errors (checked here);
- top-level ``global`` statements (no-ops in a module) are dropped;
- ``x: T = v`` at the top level binds ``x`` without recording the annotation (a
  script cannot read a module's ``__annotations__``); ``x: T`` alone binds nothing;
- a top level with ``await`` becomes an ``async def`` awaited by the module;
- a script with ``from m import *`` keeps its module form (it binds names no list
  holds).

The module's own code object (the definition and the call) gets a file name of its
own, so that tracebacks, which show the script's files only, skip its frame.

Worker side: standard library only.
"""

from __future__ import annotations

import ast
from types import CodeType
from typing import Any

from sandbox.worker.language.fastwalk import child_fields

#: The name of the function holding the top level (tracebacks show ``in <module>``).
TOP_LEVEL = "<module>"
#: The file name the module's own code object gets.
OUTER_FILE = "<sandbox: top level>"

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def bound_at_top(body: list[ast.stmt]) -> set[str]:
    """The names a module body binds in its own scope (not inside defs or classes)."""
    return _scan(body).names


class _Scan:
    """What one walk of the top level's own scope found."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self.misplaced: ast.AST | None = None
        self.is_async = False
        self.star = False


def _children(node: ast.AST) -> list[ast.AST]:
    found: list[ast.AST] = []
    for field in child_fields(type(node)):
        value = getattr(node, field, None)
        if type(value) is list:
            found.extend(item for item in value if isinstance(item, ast.AST))
        elif isinstance(value, ast.AST):
            found.append(value)
    return found


def _scan(body: list[ast.stmt]) -> _Scan:
    """Walk the top level's scope once: the names it binds, a misplaced ``return`` or
    ``yield``, ``await``, ``import *``."""
    scan = _Scan()
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Name:
            if type(node.ctx) is not ast.Load:  # type: ignore[attr-defined]
                scan.names.add(node.id)  # type: ignore[attr-defined]
            continue
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            scan.names.add(node.name)  # type: ignore[attr-defined]
            stack.extend(node.decorator_list)  # type: ignore[attr-defined]
            if kind is ast.ClassDef:
                stack.extend(node.bases + [k.value for k in node.keywords])  # type: ignore[attr-defined]
                scan.misplaced = scan.misplaced or _in_class_body(node.body)  # type: ignore[attr-defined]
            else:  # defaults and annotations are evaluated where the def stands
                stack.extend(_defaults(node.args))  # type: ignore[attr-defined]
                stack.extend(_annotations(node))  # type: ignore[arg-type]
            continue
        if kind is ast.Lambda:
            stack.extend(_defaults(node.args))  # type: ignore[attr-defined]
            continue
        _note(scan, node, kind)
        stack.extend(_children(node))
    return scan


def _note(scan: _Scan, node: Any, kind: type) -> None:
    if kind in (ast.Return, ast.Yield, ast.YieldFrom):
        scan.misplaced = scan.misplaced or node
    elif kind in (ast.Await, ast.AsyncFor, ast.AsyncWith) or (
        kind is ast.comprehension and node.is_async
    ):
        scan.is_async = True
    elif kind is ast.Import or kind is ast.ImportFrom:
        scan.star = scan.star or node.names[0].name == "*"
        scan.names.update(a.asname or a.name.partition(".")[0] for a in node.names)
    elif (kind is ast.ExceptHandler or kind is ast.MatchAs or kind is ast.MatchStar) and node.name:
        scan.names.add(node.name)
    elif kind is ast.MatchMapping and node.rest:
        scan.names.add(node.rest)
    elif kind is ast.Global:
        scan.names.update(node.names)


def _in_class_body(body: list[ast.stmt]) -> ast.AST | None:
    """A ``return`` or ``yield`` in a class body (outside its functions)."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)):
            return node
        if isinstance(node, ast.ClassDef):
            stack.extend(node.body)
        elif not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return None


def _fit(statements: list[ast.stmt]) -> None:
    """The top level's statements (nested ones too) as a function may hold them:
    ``global`` statements (no-ops in a module) become ``pass``; ``x: T = v`` becomes
    ``x = v`` (a global cannot be annotated inside a function)."""
    for index, statement in enumerate(statements):
        if isinstance(statement, ast.Global):
            statements[index] = ast.copy_location(ast.Pass(), statement)
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            plain: ast.stmt = (
                ast.Pass()
                if statement.value is None
                else ast.Assign([statement.target], statement.value)
            )
            statements[index] = ast.copy_location(plain, statement)
        elif not isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for inner in _statement_lists(statement):
                _fit(inner)


def _statement_lists(statement: ast.stmt) -> list[list[ast.stmt]]:
    lists = [
        value
        for field in ("body", "orelse", "finalbody")
        if type(value := getattr(statement, field, None)) is list
    ]
    lists += [handler.body for handler in getattr(statement, "handlers", ())]
    lists += [case.body for case in getattr(statement, "cases", ())]
    return lists


def _defaults(args: ast.arguments) -> list[ast.expr]:
    return [*args.defaults, *(d for d in args.kw_defaults if d is not None)]


def _annotations(node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.expr]:
    args = node.args
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]
    found = [arg.annotation for arg in every if arg is not None and arg.annotation is not None]
    return found + ([node.returns] if node.returns is not None else [])


class TopLevel:
    """What the top level of a script is, read before the compiler transforms it."""

    def __init__(self, tree: ast.Module) -> None:
        scan = _scan(tree.body)
        #: A ``return`` or ``yield`` outside any function (an error the function form
        #: would hide).
        self.misplaced = scan.misplaced
        self._names = sorted(name for name in scan.names if "." not in name)
        self._is_async = scan.is_async
        #: Whether the module form must stay (``import *`` binds names no list holds).
        self.stays_module = scan.star or scan.misplaced is not None

    def as_function(self, tree: ast.Module) -> ast.Module:
        """``tree`` (transformed) as ``def <module>(): global ...; <body>`` run at once."""
        _fit(tree.body)
        loc = {"lineno": 1, "col_offset": 0, "end_lineno": 1, "end_col_offset": 0}
        prologue: list[ast.stmt] = [ast.Global(self._names, **loc)] if self._names else []
        arguments = ast.arguments(
            posonlyargs=[],
            args=[],
            vararg=None,
            kwonlyargs=[],
            kw_defaults=[],
            kwarg=None,
            defaults=[],
        )
        kind = ast.AsyncFunctionDef if self._is_async else ast.FunctionDef
        define = kind(
            name=TOP_LEVEL,
            args=arguments,
            body=[*prologue, *tree.body] or [ast.Pass(**loc)],
            decorator_list=[],
            returns=None,
            type_comment=None,
            **loc,
        )
        call: ast.expr = ast.Call(ast.Name(TOP_LEVEL, ast.Load(), **loc), [], [], **loc)
        if self._is_async:
            call = ast.Await(call, **loc)
        forget = ast.Delete([ast.Name(TOP_LEVEL, ast.Del(), **loc)], **loc)
        run = ast.Try(
            body=[ast.Expr(call, **loc)], handlers=[], orelse=[], finalbody=[forget], **loc
        )
        return ast.Module([define, run], type_ignores=[])


def outer_file(code: CodeType) -> CodeType:
    """The module's own code object, under a file name tracebacks leave out; the code
    of the top level names what it defines as a module would."""
    consts = tuple(_at_module(c) if type(c) is CodeType else c for c in code.co_consts)
    return code.replace(co_filename=OUTER_FILE, co_consts=consts)


_NESTED = TOP_LEVEL + ".<locals>."


def _at_module(code: CodeType) -> CodeType:
    # A def or class the top level binds is declared global there, so CPython already
    # names it as a module would; a lambda, a comprehension or a generator expression is
    # not, and would read ``<module>.<locals>.<lambda>`` (and a snapshot would take it
    # for a function defined inside another).
    consts = tuple(_at_module(c) if type(c) is CodeType else c for c in code.co_consts)
    qualname = code.co_qualname.removeprefix(_NESTED)
    return code.replace(co_qualname=qualname, co_consts=consts)
