"""Checks for every test: nothing started by a test outlives it.

A process a test leaves behind is reported against that test and killed at once, so
one leak fails one test, never the ones after it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

import psutil
import pytest
from hypothesis import HealthCheck, settings

from tests.processes import accounted, live_children

# ``ci`` (the default) keeps property tests bounded for a busy 2-core machine;
# ``pytest --hypothesis-profile=deep`` runs the fuzzers (tests/fuzz) 100 times longer.
# Tests that fix their own ``max_examples`` keep it under either profile.
_SLOW = [HealthCheck.too_slow]
settings.register_profile("ci", max_examples=100, deadline=None)
settings.register_profile("deep", max_examples=10_000, deadline=None, suppress_health_check=_SLOW)
settings.load_profile("ci")


def _describe_and_kill(pids: set[int]) -> list[str]:
    details, procs = [], []
    for pid in sorted(pids):
        try:
            proc = psutil.Process(pid)
            details.append(f"{pid}: {' '.join(proc.cmdline())[:120]}")
            proc.kill()
            procs.append(proc)
        except psutil.NoSuchProcess:
            continue
    psutil.wait_procs(procs, timeout=5)
    return details


@pytest.fixture(autouse=True)
def no_leaked_processes(request: pytest.FixtureRequest) -> Iterator[None]:
    """After each test, every process it started belongs to an open sandbox."""
    before = live_children()
    yield
    deadline = time.monotonic() + 5
    while True:
        # Spares in flight are forked but not yet in the pool, and killed workers take
        # a moment to exit: allow them that moment.
        leaked = live_children() - accounted() - before
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    details = _describe_and_kill(leaked)
    if details:
        pytest.fail(
            f"{request.node.nodeid} left processes behind (now killed): {details}",
            pytrace=False,
        )
