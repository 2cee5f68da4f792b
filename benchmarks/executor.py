"""Executor benchmark: each figure beside a baseline measured in the same run.

    python benchmarks/executor.py [--quick] [--json]

(a) guarded compute vs plain ``exec`` of the same code, (b) trivial-script round trip
in a warm session, (c) new session + first trivial script, (d) restricted compile of a
100-line script vs builtin ``compile``, (e) fresh sessions per second on this machine,
(f) the ``data`` preset beside ``default``: zygote start, (c) and (e), as ratios
(skipped when the data extra is not installed), (g) a script making one tool call in a
warm session, (h) five slow tools (0.2 s each) awaited through ``asyncio.gather`` vs
called in a loop, as a speed-up.
Ratios, medians and rates only: the machine is shared and noisy, so nothing here is a
pass/fail test.
"""

from __future__ import annotations

import argparse
import builtins
import json
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import private_writes
from sandbox import Sandbox, SandboxPolicy
from sandbox.worker.language.compiler import compile_script
from sandbox.worker.language.modules import build_proxies, make_import
from sandbox.worker.runtime import ScriptRuntime

ARITHMETIC = """
total = 0
for i in range(200000):
    total += (i * i) % 7 - (i // 3)
"""

OBJECTS = """
class Account:
    def __init__(self, name):
        self.name = name
        self.total = 0
        self.history = []

accounts = {f"acct{i}": Account(f"acct{i}") for i in range(50)}
counts = {}
for i in range(40000):
    acct = accounts[f"acct{i % 50}"]
    acct.total += i % 13
    acct.history.append(i)
    key = acct.name[:5]
    counts[key] = counts.get(key, 0) + 1
    if len(acct.history) > 20:
        acct.history = acct.history[-10:]
words = " ".join(a.name.upper() for a in accounts.values()).split()
summary = sorted((a.total, a.name) for a in accounts.values())[-3:]
"""

LIMITS = SandboxPolicy.preset("default").limits.model_dump()


def best_of_pair(
    first: Callable[[], object], second: Callable[[], object], repeat: int
) -> tuple[float, float]:
    """Best times of two functions, run alternately so that load drifts hit both alike."""
    times: tuple[list[float], list[float]] = ([], [])
    for _ in range(repeat):
        for fn, sink in ((first, times[0]), (second, times[1])):
            started = time.perf_counter()
            fn()
            sink.append(time.perf_counter() - started)
    return min(times[0]), min(times[1])


def compute_ratio(source: str, repeat: int) -> tuple[float, float]:
    """(guarded seconds, plain seconds) for one workload, best of ``repeat``."""
    runtime = ScriptRuntime(
        LIMITS,
        sorted(SandboxPolicy.preset("default").builtins),
        make_import(build_proxies(["math"])),
        lambda r: r,
    )
    guarded_code = compile_script(source, "<bench>")
    plain_code = compile(source, "<bench>", "exec")

    def guarded() -> None:
        exec(guarded_code, dict(runtime.globals))  # type: ignore[arg-type]

    def plain() -> None:
        exec(plain_code, {"__builtins__": builtins})

    return best_of_pair(guarded, plain, repeat)


def hundred_line_script() -> str:
    lines = []
    for i in range(25):
        lines += [
            f"def step{i}(values, k={i}):",
            f"    out = [v * k + {i} for v in values if v % 3 != {i % 3}]",
            f"    return {{'n': len(out), 'top': sorted(out)[-3:], 'name': 'step{i}'}}",
            f"result{i} = step{i}(list(range(20)))",
        ]
    return "\n".join(lines) + "\n"


def compile_ratio(repeat: int) -> tuple[float, float]:
    source = hundred_line_script()
    assert len(source.splitlines()) == 100
    return best_of_pair(
        lambda: compile_script(source, "<bench>"),
        lambda: compile(source, "<bench>", "exec"),
        repeat * 20,
    )


def round_trips(sb: Sandbox, count: int) -> float:
    with sb.session() as session:
        session.run("x = 1")
        samples = []
        for _ in range(count):
            started = time.perf_counter()
            session.run("x = 1")
            samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def tool_trips(sb: Sandbox, count: int) -> float:
    """Median round trip of a script making one sync tool call (a thread hop each)."""
    with sb.session({"ping": lambda: 1}) as session:
        session.run("ping()")
        samples = []
        for _ in range(count):
            started = time.perf_counter()
            session.run("ping()")
            samples.append(time.perf_counter() - started)
    return statistics.median(samples)


SLOW_TOOLS = 5
SLOW_S = 0.2
GATHER = f"""
import asyncio
async def main():
    return await asyncio.gather(*(slow(i) for i in range({SLOW_TOOLS})))
final_result(asyncio.run(main()))
"""
LOOP = f"final_result([slow(i) for i in range({SLOW_TOOLS})])"


def gather_speedup(sb: Sandbox, repeat: int) -> tuple[float, float]:
    """(loop seconds, gather seconds) for five tools of 0.2 s, best of ``repeat``."""

    def slow(i: int) -> int:
        time.sleep(SLOW_S)
        return i

    with sb.session({"slow": slow}) as session:

        def timed(source: str) -> Callable[[], object]:
            def once() -> None:
                execution = session.run(source)
                assert execution.ok, execution.output

            return once

        return best_of_pair(timed(LOOP), timed(GATHER), repeat)


def session_starts(sb: Sandbox, count: int) -> float:
    samples = []
    for _ in range(count):
        time.sleep(0.005)  # let the spares refill, as between real agent runs
        started = time.perf_counter()
        with sb.session() as session:
            session.run("x = 1")
        samples.append(time.perf_counter() - started)
    return statistics.median(samples)


def sessions_per_second(sb: Sandbox, seconds: float, threads: int) -> float:
    done = [0] * threads
    stop = time.perf_counter() + seconds

    def loop(slot: int) -> None:
        while time.perf_counter() < stop:
            with sb.session() as session:
                session.run("x = 1")
            done[slot] += 1

    workers = [threading.Thread(target=loop, args=(i,)) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return sum(done) / seconds


def zygote_start(policy: SandboxPolicy, count: int) -> float:
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        with Sandbox(policy, spares=0) as sb:
            samples.append(time.perf_counter() - started)
            sb.session().close()
    return statistics.median(samples)


def data_rows(quick: bool) -> list[dict[str, Any]]:
    """The data preset beside the default one, measured alternately in the same run."""
    import importlib.util

    if any(importlib.util.find_spec(n) is None for n in ("numpy", "pandas", "scipy", "sympy")):
        return []
    default, data = SandboxPolicy.preset("default"), SandboxPolicy.preset("data")
    starts = [zygote_start(p, 2 if quick else 5) for p in (default, data)]
    # Paid once per sandbox (the imports): no goal, the sessions are what must stay fast.
    rows = [_ratio_row("f", "data: zygote start", starts, "s", 1e0, goal=None)]
    first: list[float] = []
    rates: list[float] = []
    for policy in (default, data):
        with Sandbox(policy, spares=4) as sb:
            sb.session().close()
            first.append(session_starts(sb, 30 if quick else 200))
            rates.append(sessions_per_second(sb, 2.0 if quick else 5.0, threads=2))
    rows.append(_ratio_row("f", "data: new session + first script", first, "ms", 1e3))
    rows.append(
        {
            "id": "f",
            "what": "data: fresh sessions per second (2 threads)",
            "value": rates[0] / rates[1],
            "unit": "x fewer than default",
            "baseline": f"default {rates[0]:.0f}/s, data {rates[1]:.0f}/s",
            "goal": 2.0,
            "lower_is_better": True,
        }
    )
    return rows


def _ratio_row(
    key: str, what: str, pair: list[float], unit: str, scale: float, goal: float | None = 2.0
) -> dict[str, Any]:
    return {
        "id": key,
        "what": what,
        "value": pair[1] / pair[0],
        "unit": "x default",
        "baseline": f"default {pair[0] * scale:.2f} {unit}, data {pair[1] * scale:.2f} {unit}",
        "goal": goal,
        "lower_is_better": True,
    }


def measure(quick: bool) -> list[dict[str, Any]]:
    repeat = 3 if quick else 7
    rows: list[dict[str, Any]] = []
    for label, source in (("arithmetic loop", ARITHMETIC), ("attribute/dict/list/str", OBJECTS)):
        guarded, plain = compute_ratio(source, repeat)
        rows.append(
            {
                "id": "a",
                "what": f"guarded compute: {label}",
                "value": guarded / plain,
                "unit": "x plain exec",
                "baseline": f"plain exec {plain * 1e3:.1f} ms",
                "goal": 1.2,
                "lower_is_better": True,
            }
        )
    restricted, native = compile_ratio(repeat)
    rows.append(
        {
            "id": "d",
            "what": "restricted compile, 100 lines",
            "value": restricted / native,
            "unit": "x builtin compile",
            "baseline": f"compile() {native * 1e3:.2f} ms",
            "goal": 2.0,
            "lower_is_better": True,
        }
    )
    # Five slots a session, so (h)'s five sync tools may all run at once.
    policy = SandboxPolicy.preset("default")
    with Sandbox(policy, spares=4, hung_tools_per_session=SLOW_TOOLS) as sb:
        sb.session().close()
        trip = round_trips(sb, 300 if quick else 2000)
        rows.append(
            {
                "id": "b",
                "what": "trivial script, warm session",
                "value": trip * 1e6,
                "unit": "us median",
                "baseline": "socketpair ping-pong below",
                "goal": 70,
                "lower_is_better": True,
            }
        )
        tool_trip = tool_trips(sb, 300 if quick else 2000)
        rows.append(
            {
                "id": "g",
                "what": "one sync tool call, warm session",
                "value": tool_trip * 1e6,
                "unit": "us median",
                "baseline": f"trivial script {trip * 1e6:.0f} us",
                "goal": None,
                "lower_is_better": True,
            }
        )
        loop_s, gather_s = gather_speedup(sb, 2 if quick else 5)
        rows.append(
            {
                "id": "h",
                "what": f"{SLOW_TOOLS} tools of {SLOW_S:g} s: gather vs a loop",
                "value": loop_s / gather_s,
                "unit": "x faster",
                "baseline": f"loop {loop_s:.2f} s, gather {gather_s:.2f} s",
                "goal": 4.0,
                "lower_is_better": False,
            }
        )
        start = session_starts(sb, 50 if quick else 300)
        rows.append(
            {
                "id": "c",
                "what": "new session + first script",
                "value": start * 1e3,
                "unit": "ms median",
                "baseline": "-",
                "goal": 1.0,
                "lower_is_better": True,
            }
        )
        rate = sessions_per_second(sb, 2.0 if quick else 5.0, threads=2)
        rows.append(
            {
                "id": "e",
                "what": "fresh sessions per second (2 threads)",
                "value": rate,
                "unit": "sessions/s",
                "baseline": "-",
                "goal": 500,
                "lower_is_better": False,
            }
        )
    rows.extend(data_rows(quick))
    rows.extend(private_writes.rows(quick))  # a writable mount's private view per session
    rows.append(
        {
            "id": "-",
            "what": "baseline: socketpair ping-pong between processes",
            "value": ping_pong() * 1e6,
            "unit": "us median",
            "baseline": "-",
            "goal": None,
            "lower_is_better": True,
        }
    )
    return rows


def ping_pong(count: int = 2000) -> float:
    import os
    import socket

    parent, child = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        parent.close()
        while data := child.recv(65536):
            child.sendall(data)
        os._exit(0)
    child.close()
    samples = []
    for _ in range(count):
        started = time.perf_counter()
        parent.sendall(b"x" * 64)
        parent.recv(65536)
        samples.append(time.perf_counter() - started)
    parent.close()
    os.waitpid(pid, 0)
    return statistics.median(samples)


def render(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'':2} {'measure':46} {'value':>10} {'unit':18} {'goal':>6}  {'baseline'}"]
    for row in rows:
        goal = row["goal"]
        met = (
            ""
            if goal is None
            else (
                "met"
                if (row["value"] <= goal if row["lower_is_better"] else row["value"] >= goal)
                else "not met"
            )
        )
        goal_text = "-" if goal is None else f"{goal:g}"
        lines.append(
            f"{row['id']:2} {row['what']:46} {row['value']:>10.2f} {row['unit']:18} "
            f"{goal_text:>6}  {row['baseline']}  {met}"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = parser.parse_args()
    rows = measure(args.quick)
    print(json.dumps(rows, indent=2) if args.json else render(rows))


if __name__ == "__main__":
    main()
