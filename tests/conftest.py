"""Checks for every test: nothing started by a test outlives it."""

from __future__ import annotations

import time
from collections.abc import Iterator

import psutil
import pytest
from hypothesis import HealthCheck, settings

from sandbox.host import open_sandboxes

# ``ci`` (the default) keeps property tests bounded for a busy 2-core machine;
# ``pytest --hypothesis-profile=deep`` runs the fuzzers (tests/fuzz) 100 times longer.
# Tests that fix their own ``max_examples`` keep it under either profile.
_SLOW = [HealthCheck.too_slow]
settings.register_profile("ci", max_examples=100, deadline=None)
settings.register_profile("deep", max_examples=10_000, deadline=None, suppress_health_check=_SLOW)
settings.load_profile("ci")


def _descendants() -> set[int]:
    pids = set()
    for proc in psutil.Process().children(recursive=True):
        try:
            if proc.status() != psutil.STATUS_ZOMBIE:
                pids.add(proc.pid)
        except psutil.NoSuchProcess:
            pass
    return pids


def _expected() -> set[int]:
    pids: set[int] = set()
    for sb in open_sandboxes():
        pids |= sb.processes()
    return pids


@pytest.fixture(autouse=True)
def no_leaked_processes() -> Iterator[None]:
    """After each test, every process we started belongs to an open sandbox."""
    yield
    deadline = time.monotonic() + 5
    while True:
        # Spares in flight are forked but not yet in the pool: allow them a moment.
        leaked = _descendants() - _expected()
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    details = []
    for pid in leaked:
        try:
            details.append(f"{pid}: {' '.join(psutil.Process(pid).cmdline())[:120]}")
        except psutil.NoSuchProcess:
            continue
    assert not details, f"processes left behind: {details}"
