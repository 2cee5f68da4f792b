"""Samples in flight against a slow model: 1 versus 16, through real HTTP.

A loopback OpenAI-compatible fake (`codeact.bench.fake_server`) answers M3ToolEval's
golden replies after a set latency; the same tasks run with ``--concurrency 1`` and
``--concurrency 16`` and the wall times are compared.

Usage: ``python benchmarks/bench_concurrency.py [--latency S] [--tasks N] [--json]``
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from codeact.bench.fake_server import serving  # noqa: E402
from codeact.bench.loading import load_suite  # noqa: E402
from codeact.bench.logdir import LogDir  # noqa: E402
from codeact.bench.runner import BenchConfig, run_bench  # noqa: E402


def measure(latency: float, tasks: int, concurrency: int) -> dict[str, float]:
    suite = load_suite("m3tooleval")
    with serving(suite, latency_s=latency) as server, tempfile.TemporaryDirectory() as log:
        config = BenchConfig(
            suite=suite, model=f"openai-compatible:golden@{server.url}", log_dir=Path(log),
            limit=tasks, concurrency=concurrency,
        )  # fmt: skip
        started = time.monotonic()
        summary = asyncio.run(run_bench(config))
        wall = time.monotonic() - started
        turns = [record.turns for record in LogDir(log).read_samples()]
    assert summary.passed == summary.samples == tasks, summary
    return {
        "concurrency": concurrency,
        "wall_s": wall,
        "requests": server.requests,
        "bound_s": _makespan([t * latency for t in turns], concurrency),
    }


def _makespan(durations: list[float], slots: int) -> float:
    """The wall time of `durations` taken in order by `slots` workers, with no overhead:
    the best any runner can do with this queue (the last wave of long samples bounds it)."""
    free = [0.0] * slots
    for duration in durations:
        free.sort()
        free[0] += duration
    return max(free)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.25, help="seconds per model reply")
    parser.add_argument("--tasks", type=int, default=32)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    one = measure(args.latency, args.tasks, 1)
    many = measure(args.latency, args.tasks, 16)
    result = {
        "latency_s": args.latency,
        "tasks": args.tasks,
        "requests": one["requests"],
        "wall_s_1": round(one["wall_s"], 2),
        "wall_s_16": round(many["wall_s"], 2),
        "speedup": round(one["wall_s"] / many["wall_s"], 2),
        "bound_s_16": round(many["bound_s"], 2),
        "speedup_bound": round(one["bound_s"] / many["bound_s"], 2),
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{args.tasks} tasks, {one['requests']} model calls at {args.latency} s each: "
            f"1 in flight {one['wall_s']:.2f} s, 16 in flight {many['wall_s']:.2f} s, "
            f"speed-up {result['speedup']}x (with no overhead at all: "
            f"{many['bound_s']:.2f} s, {result['speedup_bound']}x)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
