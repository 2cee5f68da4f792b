"""Where a script's functions and classes were defined: the statement a snapshot keeps
for each, found in the scripts' own source (``snapshot.py``).

A function is found by its code object's file and first line, a class by one of its
methods (else by the latest statement that defined a class of its name). Only a
top-level ``def``, ``class`` or single-name assignment (a lambda, a named tuple) can run
again on its own; anything else has no definition to keep.

Worker side: standard library only.
"""

from __future__ import annotations

import ast
import types
from typing import Any

_DEFINING = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign)
Key = tuple[str, int]


class NoDefinition(Exception):
    """No statement that could run again defines this function or class."""


class Sources:
    """The definitions a snapshot keeps, keyed by file name and first line."""

    def __init__(self, runtime: Any) -> None:
        self.runtime = runtime
        self.definitions: dict[Key, dict[str, str]] = {}
        self._trees: dict[str, ast.Module | None] = {}

    def ordered(self) -> list[Key]:
        """The definitions in the order they first ran."""
        files = self.runtime.script_files()
        return sorted(
            self.definitions,
            key=lambda key: (files.index(key[0]) if key[0] in files else len(files), key[1]),
        )

    def imported_modules(self) -> set[str]:
        """The modules the scripts' import statements name (``from m import x``: both
        ``m`` and ``m.x``, which may be a submodule)."""
        names: set[str] = set()
        for filename in self.runtime.script_files():
            tree = self._tree(filename)
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, ast.Import):
                    names.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names.add(node.module)
                    names.update(f"{node.module}.{alias.name}" for alias in node.names)
        return names

    def _tree(self, filename: str) -> ast.Module | None:
        if filename not in self._trees:
            lines = self.runtime.script_lines(filename)
            try:
                self._trees[filename] = None if lines is None else ast.parse("\n".join(lines))
            except (SyntaxError, ValueError, RecursionError):
                self._trees[filename] = None
        return self._trees[filename]

    def of_function(self, fn: types.FunctionType) -> Key:
        """The statement that defined ``fn``."""
        code = fn.__code__
        return self._statement(code.co_filename, code.co_firstlineno, fn.__name__)

    def _statement(self, filename: str, line: int, name: str) -> Key:
        """The top-level statement of ``filename`` that defined ``name`` at ``line``."""
        tree = self._tree(filename)
        for stmt in tree.body if tree is not None else []:
            start = _start(stmt)
            if isinstance(stmt, _DEFINING) and start <= line <= (stmt.end_lineno or start):
                binds = _binding(stmt)
                if binds is not None and (binds == name or name == "<lambda>"):
                    return self._define(filename, stmt, start, binds)
        raise NoDefinition("defined by a statement that cannot be run again on its own")

    def of_class(self, cls: type) -> Key:
        """Found through one of its methods, or else as the latest statement that
        defined a class of its name."""
        for member in vars(cls).values():
            fn = _method_function(member)
            if fn is not None and fn.__globals__ is self.runtime.globals:
                code = fn.__code__
                return self._statement(code.co_filename, code.co_firstlineno, cls.__name__)
        for filename in reversed(self.runtime.script_files()):
            tree = self._tree(filename)
            for stmt in reversed(tree.body if tree is not None else []):
                if isinstance(stmt, _DEFINING) and _binding(stmt) == cls.__name__:
                    return self._define(filename, stmt, _start(stmt), cls.__name__)
        raise NoDefinition("a class whose definition was not found")

    def of_assignment(self, name: str) -> Key:
        """The latest top-level statement assigning ``name`` (``T = TypeVar('T')``)."""
        for filename in reversed(self.runtime.script_files()):
            tree = self._tree(filename)
            for stmt in reversed(tree.body if tree is not None else []):
                if isinstance(stmt, ast.Assign) and _binding(stmt) == name:
                    return self._define(filename, stmt, _start(stmt), name)
        raise NoDefinition(f"no statement assigns {name!r} on its own")

    def _define(self, filename: str, stmt: ast.stmt, start: int, binds: str) -> Key:
        key = (filename, start)
        if key not in self.definitions:
            lines = self.runtime.script_lines(filename) or []
            source = "\n".join(lines[start - 1 : stmt.end_lineno])
            self.definitions[key] = {"source": source, "binds": binds}
        return key


def _method_function(member: Any) -> types.FunctionType | None:
    """The function behind a class member that is a method (of any kind), or None."""
    kind = type(member)
    if kind in (staticmethod, classmethod):
        member = member.__func__
    elif kind is property:
        member = member.fget
    return member if type(member) is types.FunctionType else None


def _start(stmt: ast.stmt) -> int:
    """The first line of a statement, its decorators included."""
    decorators = getattr(stmt, "decorator_list", [])
    return int(min([stmt.lineno, *(d.lineno for d in decorators)]))


def _binding(stmt: ast.stmt) -> str | None:
    """The one name a defining statement binds, or None."""
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
        return targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else None
    return (
        stmt.name
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        else None
    )
