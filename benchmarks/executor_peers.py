"""Peers measured beside the sandbox in ``benchmarks/executor.py``, where installed:
pydantic-monty (``pip install pydantic-monty``), a pool of worker processes running
its own Python subset. Rows ``p``: its warm run, one tool call, a fresh session."""

from __future__ import annotations

import importlib.util
import statistics
import time
from typing import Any

Row = dict[str, Any]
CALLS = 20


def monty_rows(quick: bool, floor_s: float) -> list[Row]:
    """pydantic-monty's figures, or none where it is not installed."""
    if importlib.util.find_spec("pydantic_monty") is None:
        return []
    from pydantic_monty import Monty

    count = 300 if quick else 2000
    loop = f"for i in range({CALLS}):\n    x = i"
    calls = f"for i in range({CALLS}):\n    ping()"
    tools = {"ping": lambda: 1}
    with Monty() as pool:
        with pool.checkout() as session:
            session.feed_run("x = 1")
            warm = []
            for _ in range(count):
                started = time.perf_counter()
                session.feed_run("x = 1")
                warm.append(time.perf_counter() - started)
        per_call = []
        # A session allows 1,000 external calls: a fresh one every 40 scripts.
        for _ in range(max(1, count // 200)):
            with pool.checkout() as session:
                for _ in range(40):
                    started = time.perf_counter()
                    session.feed_run(loop)
                    plain = time.perf_counter() - started
                    started = time.perf_counter()
                    session.feed_run(calls, external_lookup=tools)
                    per_call.append((time.perf_counter() - started - plain) / CALLS)
        fresh = []
        for _ in range(count // 10):
            started = time.perf_counter()
            with pool.checkout() as session:
                session.feed_run("x = 1")
            fresh.append(time.perf_counter() - started)
    warm_s, call_s = statistics.median(warm), statistics.median(per_call)
    return [
        _row("monty: trivial script, warm session", warm_s * 1e6, "us median", floor_s, warm_s),
        _row("monty: one sync tool call (marginal)", call_s * 1e6, "us median", floor_s, call_s),
        _row("monty: fresh session + first script", statistics.median(fresh) * 1e3, "ms median"),
    ]


def _row(
    what: str, value: float, unit: str, floor_s: float | None = None, seconds: float = 0.0
) -> Row:
    ratio = f"{seconds / floor_s:.1f}x the ping-pong" if floor_s else "-"
    return {
        "id": "p",
        "what": what,
        "value": value,
        "unit": unit,
        "baseline": ratio,
        "goal": None,
        "lower_is_better": True,
    }
