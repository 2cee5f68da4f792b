"""Run smolagents' executor tests (``test_local_python_executor.py``) on the sandbox.

``test_local_python_executor.py`` is smolagents 1.26.0's ``tests/`` module of that name,
unchanged (Apache-2.0, see ``LICENSE`` and ``NOTICE``). Here:

- its two entry points, ``evaluate_python_code`` and ``LocalPythonExecutor``, are
  replaced by ``adapter.py``'s, backed by ``CodeactExecutor``;
- a test that calls neither tests a function of smolagents' own AST interpreter
  (``evaluate_condition``, ``PrintContainer``, its timeout decorator...) that has no
  counterpart here: it is skipped, with that reason;
- each test listed in ``differences.py`` is expected to fail, strictly, with its reason:
  a difference that disappears, or one that is not listed, fails the run.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from pathlib import Path

import pytest

from . import adapter
from .differences import DIFFERENCES, upstream_id

_ENTRY_POINTS = ("evaluate_python_code", "LocalPythonExecutor")
UPSTREAM = Path(__file__).with_name("test_local_python_executor.py")


@pytest.fixture(scope="module", autouse=True)
def _sandboxes() -> Iterator[None]:
    # Closed with the module: a sandbox left open would be another test's stray process.
    yield from adapter.close_sandboxes()


@pytest.fixture(autouse=True)
def _codeact_executor(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    if Path(request.node.path) == UPSTREAM:
        for name in _ENTRY_POINTS:
            monkeypatch.setattr(request.module, name, getattr(adapter, name))
    yield from adapter.close_executors()


def _uses_the_executor(item: pytest.Item) -> bool:
    function = getattr(item, "function", None)
    source = inspect.getsource(function) if function is not None else ""
    return any(name in source for name in _ENTRY_POINTS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(item.path) != UPSTREAM:
            continue  # the hook sees every test of the run
        if not _uses_the_executor(item):
            item.add_marker(
                pytest.mark.skip(reason="tests a function of smolagents' AST interpreter")
            )
            continue
        item.add_marker(pytest.mark.timeout(60))
        difference = DIFFERENCES.get(upstream_id(item.nodeid))
        if difference is not None:
            item.add_marker(
                pytest.mark.xfail(strict=True, reason=difference.reason, raises=difference.raises)
            )
