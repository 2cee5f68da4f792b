"""What OpenTelemetry spans cost an agent step: no SDK, then an SDK exporting in memory.

Each round runs the same agent (a scripted model, one tool call per step, one shared
sandbox) for ``--steps`` steps: first with no SDK (the API's no-op spans), then with an
SDK whose spans go to memory (a tracer provider cannot be unset, so this order); prints
the median time per step of each, their ratio, and what the spans of one step cost
without an SDK, timed alone.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from codeact import Agent
from codeact.models import ScriptedModel
from sandbox import AsyncSandbox

FENCE = "`" * 3


def lookup(key: str) -> int:
    """A fast host tool."""
    return len(key)


async def _per_step(sandbox: AsyncSandbox, steps: int) -> float:
    replies = [f"{FENCE}python\nobservation(lookup('k{i}'))\n{FENCE}" for i in range(steps - 1)]
    replies.append(f"{FENCE}python\nfinal_result(1)\n{FENCE}")
    agent = Agent("bench", ScriptedModel(replies), tools=[lookup], max_steps=steps)
    start = time.perf_counter()
    await agent.run("go", sandbox=sandbox)
    return (time.perf_counter() - start) / steps


async def _measure(rounds: int, steps: int) -> tuple[list[float], list[float]]:
    async with AsyncSandbox() as sandbox:
        await _per_step(sandbox, steps)  # warm up
        plain = [await _per_step(sandbox, steps) for _ in range(rounds)]
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
            InMemorySpanExporter,
        )

        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(InMemorySpanExporter()))
        trace.set_tracer_provider(provider)
        traced = [await _per_step(sandbox, steps) for _ in range(rounds)]
    return plain, traced


def _noop_spans_per_step(repeats: int = 20000) -> float:
    """The no-op spans one step opens (step, chat, script, tool), timed alone."""
    from codeact import telemetry
    from sandbox import SandboxPolicy

    policy = SandboxPolicy.preset("default")
    model = ScriptedModel([])
    start = time.perf_counter()
    for _ in range(repeats):
        with telemetry.step_span(1, "a"), telemetry.chat_span(model, None, None):
            pass
        with telemetry.script_span(policy), telemetry.step_span(1, "tool"):
            pass
    return (time.perf_counter() - start) / repeats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    noop = _noop_spans_per_step()
    plain, traced = asyncio.run(_measure(args.rounds, args.steps))
    a, b = statistics.median(plain), statistics.median(traced)
    print(f"per step, no SDK:         {a * 1e3:.2f} ms")
    print(f"per step, SDK (in memory): {b * 1e3:.2f} ms  ({b / a:.2f}x)")
    print(f"a step's spans without an SDK, alone: {noop * 1e6:.1f} µs ({noop / a:.1%} of a step)")


if __name__ == "__main__":
    main()
