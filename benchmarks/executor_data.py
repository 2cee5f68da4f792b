"""The ``data`` preset beside ``default`` for ``benchmarks/executor.py``: zygote start,
a fresh session's first script, fresh sessions per second (rows ``f``)."""

from __future__ import annotations

import importlib.util
import statistics
import time
from collections.abc import Callable
from typing import Any

from sandbox import Sandbox, SandboxPolicy

Row = dict[str, Any]


def zygote_start(policy: SandboxPolicy, count: int) -> float:
    """Median seconds from ``Sandbox(...).start()`` to a ready zygote."""
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        with Sandbox(policy, spares=0) as sb:
            samples.append(time.perf_counter() - started)
            sb.session().close()
    return statistics.median(samples)


def data_rows(
    quick: bool,
    session_starts: Callable[[Sandbox, int], float],
    sessions_per_second: Callable[[Sandbox, float, int], float],
) -> list[Row]:
    """The data preset beside the default one, measured alternately in the same run
    (none where the data extra is not installed)."""
    if any(importlib.util.find_spec(n) is None for n in ("numpy", "pandas", "scipy", "sympy")):
        return []
    default, data = SandboxPolicy.preset("default"), SandboxPolicy.preset("data")
    starts = [zygote_start(p, 2 if quick else 5) for p in (default, data)]
    rows = [
        {
            "id": "f",
            "what": "data: zygote ready",
            "value": starts[1],
            "unit": "s median",
            "baseline": f"default {starts[0]:.2f} s",
            "goal": 1.0,
            "lower_is_better": True,
        }
    ]
    first: list[float] = []
    rates: list[float] = []
    for policy in (default, data):
        with Sandbox(policy, spares=4) as sb:
            sb.session().close()
            first.append(session_starts(sb, 30 if quick else 200))
            rates.append(sessions_per_second(sb, 2.0 if quick else 5.0, 2))
    rows.append(
        {
            "id": "f",
            "what": "data: new session + first script",
            "value": first[1] / first[0],
            "unit": "x default",
            "baseline": f"default {first[0] * 1e3:.2f} ms, data {first[1] * 1e3:.2f} ms",
            "goal": 2.0,
            "lower_is_better": True,
        }
    )
    rows.append(
        {
            "id": "f",
            "what": "data: fresh sessions per second (2 threads)",
            "value": rates[1] / rates[0],
            "unit": "x default",
            "baseline": f"default {rates[0]:.0f}/s, data {rates[1]:.0f}/s",
            "goal": 0.5,
            "lower_is_better": False,
        }
    )
    return rows
