"""Shared fixture: one sandbox per test module."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox import Sandbox, SandboxPolicy


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    """A started default-policy sandbox shared by the tests of one module."""
    with Sandbox(SandboxPolicy.preset("default"), spares=1) as sb:
        yield sb
