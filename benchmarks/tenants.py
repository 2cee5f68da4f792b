"""Many users on one AsyncSandbox, beside a process per script, in the same run.

    python benchmarks/tenants.py [--users 10 100 1000] [--steps 3] [--think 0.5]
                                 [--sub-every 3] [--json]

Each simulated user is an agent run (codeact's own loop, a scripted model) of
``--steps`` steps on one shared ``AsyncSandbox``: the model thinks (an exponentially
distributed pause, ``--think`` seconds on average), then replies with a script that
calls a sync tool; every ``--sub-every`` steps the script calls a sub-agent too (an
agent of its own, one step); one script in a hundred hits a limit (it asks for more
memory than the policy allows); the last step returns the final result. A step's
latency runs from the model's reply to the next request (the script, its tool and
sub-agent, the loop's feedback), less the sub-agent's model's pause.

The baseline runs the same workload with a process per script: each script (and the
sub-agent's) in a fresh ``python -c`` subprocess, the tool a function in the script.

Printed for each N: p50/p99 step latency, scripts run per second, the host's peak RSS,
the median USS of the sandbox's processes (sampled mid-run), errors (failures other
than the planned limits), and the baseline's figures with the ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import psutil

from codeact import Agent
from codeact.messages import Message
from codeact.models import FunctionModel
from codeact.models.testing import CallInfo
from sandbox import AsyncSandbox, SandboxPolicy

FENCE = "`" * 3
LIMIT_EVERY = 100  # one script in a hundred hits a limit
TOOL = "def lookup(item):\n    return {'item': item, 'price': len(item) * 3}\n"


def lookup(item: str) -> dict[str, Any]:
    """The price of an item."""
    return {"item": item, "price": len(item) * 3}


@dataclass
class Tally:
    """What one phase measured."""

    latencies: list[float] = field(default_factory=list)
    scripts: int = 0
    errors: int = 0
    peak_rss: int = 0
    uss: list[float] = field(default_factory=list)


def script(user: int, step: int, steps: int, sub_every: int, *, sandboxed: bool) -> str:
    """The script a user's model writes at ``step``."""
    lines = [f"p = lookup('item-{user}-{step}')['price']"]
    if random.Random(user * 1000 + step).randrange(LIMIT_EVERY) == 0:
        lines.append("blob = bytearray(1 << 40)")  # past the memory limit
    if sub_every and step % sub_every == sub_every - 1:
        lines.append(f"p += helper('price of item {user}')" if sandboxed else "p += 1")
    # A run whose last script hit the limit goes on: the next one ends it.
    lines.append("final_result(p)" if step >= steps - 1 else "print(p)")
    return "\n".join(lines)


async def think(rng: random.Random, mean: float) -> float:
    """The model's pause; how long it was."""
    pause = rng.expovariate(1 / mean) if mean > 0 else 0.0
    await asyncio.sleep(pause)
    return pause


async def sandboxed_user(
    user: int, sandbox: AsyncSandbox, options: argparse.Namespace, tally: Tally
) -> None:
    rng = random.Random(user)
    replied: list[float] = []
    thought = [0.0]  # the sub-agent's model pauses during the current step

    def step_done() -> None:
        tally.latencies.append(time.perf_counter() - replied[-1] - thought[0])
        thought[0] = 0.0

    async def reply(messages: list[Message], info: CallInfo) -> str:
        if replied:
            step_done()
        await think(rng, options.think)
        step = len(replied)
        replied.append(time.perf_counter())
        tally.scripts += 1
        source = script(user, step, options.steps, options.sub_every, sandboxed=True)
        return f"Step {step}.\n{FENCE}python\n{source}\n{FENCE}"

    async def helper_reply(messages: list[Message], info: CallInfo) -> str:
        thought[0] += await think(rng, options.think)
        tally.scripts += 1
        return f"{FENCE}python\nfinal_result(1)\n{FENCE}"

    policy = sandbox.policy
    helper = Agent("helper", FunctionModel(helper_reply), instructions="Helps.", policy=policy)
    agent = Agent(
        "user", FunctionModel(reply), tools=[lookup], sub_agents=[helper], policy=policy,
        max_steps=options.steps + 2,
    )
    try:
        await agent.run("work", sandbox=sandbox)
        step_done()
    except Exception as exc:
        tally.errors += 1
        if tally.errors <= 3:
            print(f"user {user}: {type(exc).__name__}: {exc}"[:300], file=sys.stderr)


async def process_user(user: int, options: argparse.Namespace, tally: Tally) -> None:
    rng = random.Random(user)
    for step in range(options.steps):
        await think(rng, options.think)
        started = time.perf_counter()
        source = script(user, step, options.steps, options.sub_every, sandboxed=False)
        if options.sub_every and step % options.sub_every == options.sub_every - 1:
            started += await think(rng, options.think)  # the sub-agent's model
            await _python(f"{TOOL}print(1)")
            tally.scripts += 1
        code = await _python(f"{TOOL}def final_result(v):\n    print(v)\n{source}")
        tally.scripts += 1
        if code != 0 and "bytearray" not in source:
            tally.errors += 1
        tally.latencies.append(time.perf_counter() - started)


async def _python(source: str) -> int:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", source,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )
    return await process.wait()


async def watch(tally: Tally, sandbox: AsyncSandbox | None, stop: asyncio.Event) -> None:
    """Sample the host's RSS, and the sandbox processes' USS whenever a quarter more
    processes are open than at the last sample (in a thread: reading a process's
    smaps takes milliseconds, which the event loop must not wait for)."""
    me = psutil.Process()
    most = 0
    while not stop.is_set():
        tally.peak_rss = max(tally.peak_rss, me.memory_info().rss)
        pids = list(sandbox.sync.processes()) if sandbox is not None else []
        if len(pids) > most * 1.25:
            most = len(pids)
            tally.uss = await asyncio.to_thread(_uss, pids[:100])
        try:
            await asyncio.wait_for(stop.wait(), 0.25)
        except TimeoutError:
            pass


def _uss(pids: list[int]) -> list[float]:
    sizes = []
    for pid in pids:
        try:
            sizes.append(psutil.Process(pid).memory_full_info().uss / 2**20)
        except psutil.Error:
            continue
    return sizes


async def phase(users: int, options: argparse.Namespace, sandboxed: bool) -> dict[str, Any]:
    tally = Tally()
    stop = asyncio.Event()
    started = time.perf_counter()
    if sandboxed:
        policy = SandboxPolicy.preset("default")
        async with AsyncSandbox(policy, spares=4) as sandbox:
            watcher = asyncio.create_task(watch(tally, sandbox, stop))
            runs = (sandboxed_user(u, sandbox, options, tally) for u in range(users))
            await asyncio.gather(*runs)
            stop.set()
            await watcher
    else:
        watcher = asyncio.create_task(watch(tally, None, stop))
        await asyncio.gather(*(process_user(u, options, tally) for u in range(users)))
        stop.set()
        await watcher
    wall = time.perf_counter() - started
    latencies = tally.latencies if len(tally.latencies) > 1 else [0.0, 0.0]
    quantiles = statistics.quantiles(latencies, n=100)
    return {
        "p50_ms": statistics.median(tally.latencies) * 1e3 if tally.latencies else 0.0,
        "p99_ms": quantiles[98] * 1e3,
        "runs_per_s": tally.scripts / wall,
        "host_rss_mb": tally.peak_rss / 2**20,
        "uss_per_session_mb": statistics.median(tally.uss) if tally.uss else None,
        "errors": tally.errors,
        "scripts": tally.scripts,
        "wall_s": wall,
    }


def render(results: list[dict[str, Any]]) -> str:
    lines = [
        f"{'N':>5} {'':9} {'p50 ms':>8} {'p99 ms':>8} {'runs/s':>8} {'RSS MB':>7} "
        f"{'USS MB':>7} {'errors':>6}"
    ]
    for result in results:
        for label in ("sandbox", "process"):
            r = result[label]
            uss = f"{r['uss_per_session_mb']:.2f}" if r["uss_per_session_mb"] else "-"
            lines.append(
                f"{result['users']:>5} {label:9} {r['p50_ms']:>8.1f} {r['p99_ms']:>8.1f} "
                f"{r['runs_per_s']:>8.1f} {r['host_rss_mb']:>7.0f} {uss:>7} {r['errors']:>6}"
            )
        s, p = result["sandbox"], result["process"]
        p50, p99 = s["p50_ms"] / p["p50_ms"], s["p99_ms"] / p["p99_ms"]
        rate = s["runs_per_s"] / p["runs_per_s"]
        lines.append(
            f"{'':5} {'ratio':9} {p50:>8.2f} {p99:>8.2f} {rate:>8.2f}   "
            "(sandbox / process per script)"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, nargs="+", default=[10, 100, 1000])
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--think", type=float, default=0.5, help="mean model latency, s")
    parser.add_argument("--sub-every", type=int, default=3, help="a sub-agent every k steps")
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    results = []
    for users in options.users:
        sandbox = asyncio.run(phase(users, options, sandboxed=True))
        process = asyncio.run(phase(users, options, sandboxed=False))
        results.append({"users": users, "sandbox": sandbox, "process": process})
        if not options.json:
            print(render(results[-1:]), flush=True)
    if options.json:
        print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
