"""The adapter that runs RestrictedPython's suite (``upstream/``) on our compiler.

``upstream/`` is RestrictedPython 9.0's ``tests/`` directory as its source distribution
ships it (ZPL 2.1, see ``upstream/LICENSE.txt``), unchanged but for empty
``__init__.py`` files that keep its module names apart from ours. Here:

- its compile calls are routed to the sandbox's compiler (see ``adapter.py``);
- the names our compiled code calls besides RestrictedPython's guards (the re-raise of
  the sandbox's control exceptions in every ``except``, the capture of a trailing
  expression, the class-pattern check, the membrane's checks) are provided as the
  worker provides them;
- ``tests.helper`` (its helper module, imported under its own package name) and
  ``mocker`` (the fixture of pytest-mock, the only one it uses) are supplied;
- each test listed in ``differences.py`` is expected to fail, strictly, with its reason
  and the exception it fails with.
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import RestrictedPython.compile
import RestrictedPython.Guards

from sandbox.worker.language import classes, membrane
from sandbox.worker.language.compiler import LAST_EXPR, MATCH_CLASS, RERAISE
from sandbox.worker.language.guards import check_match_class, reraise_control
from sandbox.worker.language.membrane import membrane_names
from sandbox.worker.language.memory_errors import handled
from sandbox.worker.language.names import HANDLED, SCRIPT_TYPES

from . import adapter
from .differences import DIFFERENCES, expected_exception, upstream_id
from .upstream import helper

sys.modules.setdefault("tests.helper", helper)

UPSTREAM = Path(__file__).parent / "upstream"


def _last_expr(value: Any) -> Any:
    return value


#: The worker's names our compiled code calls besides the guards (``adapter.py`` maps
#: those to the suite's ``_getattr_`` and ``_write_``).
_RUNTIME_NAMES = {
    RERAISE: reraise_control,
    LAST_EXPR: _last_expr,
    MATCH_CLASS: check_match_class,
    HANDLED: handled,
    SCRIPT_TYPES: classes.SCRIPT_TYPES,
    **membrane_names(),
}


@pytest.fixture(autouse=True)
def sandbox_compiler(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """For the upstream tests: our compiler, and the run-time names its code calls."""
    if UPSTREAM not in Path(request.node.path).parents:
        return
    monkeypatch.setattr(RestrictedPython.compile, "_compile_restricted_mode", adapter.compile_mode)
    # The suite's class statements use the real ``__build_class__``: none of its classes
    # is registered as a script's own, which the membrane would show as stand-ins.
    monkeypatch.setattr(membrane, "_shown_class", lambda cls: cls)
    for name, value in _RUNTIME_NAMES.items():
        # Upstream tests run code with the real builtins or with safe_builtins.
        monkeypatch.setattr(builtins, name, value, raising=False)
        monkeypatch.setitem(RestrictedPython.Guards.safe_builtins, name, value)


class Mocker:
    """The part of pytest-mock's ``mocker`` that the upstream tests use."""

    Mock = mock.Mock
    MagicMock = mock.MagicMock
    call = mock.call

    def __init__(self) -> None:
        self._patches: list[Any] = []

    def stub(self, name: str | None = None) -> mock.MagicMock:
        return mock.MagicMock(spec=lambda *args, **kwargs: None, name=name)

    def patch(self, target: str, *args: Any, **kwargs: Any) -> Any:
        patcher = mock.patch(target, *args, **kwargs)
        self._patches.append(patcher)
        return patcher.start()

    def stop(self) -> None:
        while self._patches:
            self._patches.pop().stop()


@pytest.fixture
def mocker() -> Iterator[Mocker]:
    found = Mocker()
    yield found
    found.stop()


def expected_failure(upstream: str) -> pytest.MarkDecorator | None:
    """The mark of a listed upstream test: it must fail, strictly, and with the
    exception its difference causes (anything else is a real failure)."""
    difference = DIFFERENCES.get(upstream)
    if difference is None:
        return None
    return pytest.mark.xfail(
        strict=True, raises=expected_exception(upstream), reason=difference.reason
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if UPSTREAM not in Path(item.path).parents:
            continue
        mark = expected_failure(upstream_id(item.nodeid))
        if mark is not None:
            item.add_marker(mark)
