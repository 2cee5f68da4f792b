"""Finding a suite: a built-in name, ``module:attr``, or a JSONL file of tasks."""

from __future__ import annotations

import importlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from codeact.bench.suite import BenchTask, Suite, SuiteError, ToolMap, exact_match

#: Built-in suites: name → ``module:attr``, each shipped in the package with its data.
BUILTIN = {"m3tooleval": "codeact.bench.m3tooleval.suite:SUITE"}


def _import_attr(spec: str, what: str) -> Any:
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise SuiteError(f"{what} {spec!r}: expected MODULE:ATTR, e.g. mysuite:SUITE")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # a module's own code may raise anything while importing
        raise SuiteError(
            f"{what} {spec!r}: cannot import {module_name!r}: {type(exc).__name__}: {exc}"
        ) from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise SuiteError(f"{what} {spec!r}: {module_name!r} has no attribute {attr!r}") from None


def load_suite(spec: str) -> Suite:
    """The suite named by `spec`: a built-in name or ``module:attr``."""
    target = BUILTIN.get(spec, spec)
    if ":" not in target:
        known = ", ".join(sorted(BUILTIN))
        raise SuiteError(f"unknown suite {spec!r}: built-in suites are {known}, or MODULE:ATTR")
    value = _import_attr(target, "suite")
    if callable(value) and not isinstance(value, Suite):
        value = value()
    if not isinstance(value, Suite):
        raise SuiteError(f"suite {spec!r} is a {type(value).__name__}, not a codeact.bench.Suite")
    return value


def _read_jsonl(path: Path) -> list[BenchTask]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise SuiteError(f"{path}: cannot be read: {exc.strerror or exc}") from None
    tasks = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            tasks.append(BenchTask.model_validate(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise SuiteError(f"{path}:{number}: not valid JSON: {exc}") from None
        except ValidationError as exc:
            first = exc.errors(include_url=False)[0]
            field = ".".join(str(p) for p in first["loc"]) or "(line)"
            raise SuiteError(f"{path}:{number}: field {field!r}: {first['msg']}") from None
    return tasks


def suite_from_jsonl(
    path: str | Path, tools: str | None = None, grader: str | None = None
) -> Suite:
    """A suite from a JSONL file of tasks, ``--tools MODULE:ATTR`` (a list or dict of
    functions, or a function of the task giving one) and ``--grader MODULE:FN``."""
    source = Path(path)
    tool_fn: Callable[[BenchTask], ToolMap] = lambda task: {}  # noqa: E731
    if tools:
        value = _import_attr(tools, "--tools")
        tool_fn = _tool_factory(value, tools)
    grade = exact_match
    if grader:
        grade = _import_attr(grader, "--grader")
        if not callable(grade):
            raise SuiteError(f"--grader {grader!r} is not callable")
    return Suite(name=source.stem, tasks=_read_jsonl(source), tools=tool_fn, grader=grade)


def _tool_factory(value: Any, spec: str) -> Callable[[BenchTask], ToolMap]:
    def as_map(items: Any) -> ToolMap:
        if isinstance(items, dict):
            return dict(items)
        if isinstance(items, list | tuple):
            return {fn.__name__: fn for fn in items}
        raise SuiteError(f"--tools {spec!r}: expected a list or dict of functions")

    if isinstance(value, dict | list | tuple):
        fixed = as_map(value)
        return lambda task: fixed
    if callable(value):
        return lambda task: as_map(value(task))
    raise SuiteError(f"--tools {spec!r}: expected functions, got {type(value).__name__}")
