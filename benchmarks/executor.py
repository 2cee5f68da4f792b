"""Executor benchmark: each figure beside a baseline measured in the same run.

    python benchmarks/executor.py [--quick] [--json] [--sandbox-from PATH]

(a) guarded compute vs plain ``exec`` of the same code, (b) trivial-script round trip
in a warm session, beside (-) a socketpair ping-pong between two processes measured in
the same run (the floor of any round trip), (c) new session + first trivial script,
(d) restricted compile of a 100-line script vs builtin ``compile``, (e) fresh sessions
per second with two threads, (f) the ``data`` preset beside ``default``
(``executor_data.py``), (g) one sync tool call from a script: its marginal cost (a
script making 20 calls less one making none, per call) beside the floor, (h) five slow
tools (0.2 s each) awaited through ``asyncio.gather`` vs called in a loop, (i) the
memory an idle session's worker holds alone (USS), (p) peers where installed
(``executor_peers.py``: pydantic-monty). ``--sandbox-from`` measures the ``sandbox``
package of another checkout (an earlier commit, for a before/after table).
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

_HERE = Path(__file__).resolve().parent
if "--sandbox-from" in sys.argv:
    sys.path.insert(0, str(Path(sys.argv[sys.argv.index("--sandbox-from") + 1]).resolve()))
else:
    sys.path.insert(0, str(_HERE.parent))
sys.path.insert(1, str(_HERE))

from executor_data import data_rows  # noqa: E402
from executor_peers import monty_rows  # noqa: E402

# After sandbox: it puts this checkout first on the path, for when it runs alone.
from private_writes import rows as private_writes_rows  # noqa: E402

from sandbox import Sandbox, SandboxError, SandboxPolicy  # noqa: E402
from sandbox.worker.language.compiler import compile_script  # noqa: E402
from sandbox.worker.language.modules import build_proxies, make_import  # noqa: E402
from sandbox.worker.runtime import ScriptRuntime  # noqa: E402

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


CALLS = 20


def tool_call_cost(sb: Sandbox, count: int) -> tuple[float, float]:
    """(median seconds a script making one sync tool call takes, median marginal cost
    of one call: a script making 20 calls less one making none, per call)."""
    loop = f"for i in range({CALLS}):\n    x = i"
    calls = f"for i in range({CALLS}):\n    ping()"
    with sb.session({"ping": lambda: 1}) as session:
        session.run(calls)
        one, marginal = [], []
        for _ in range(count // 4):
            started = time.perf_counter()
            session.run("ping()")
            one.append(time.perf_counter() - started)
            started = time.perf_counter()
            session.run(loop)
            plain = time.perf_counter() - started
            started = time.perf_counter()
            session.run(calls)
            marginal.append((time.perf_counter() - started - plain) / CALLS)
    return statistics.median(one), statistics.median(marginal)


def idle_uss(sb: Sandbox, count: int) -> tuple[float, float]:
    """(median USS, median PSS) in MiB of ``count`` idle sessions' workers, each after
    one trivial script."""
    import psutil

    sessions = [sb.session() for _ in range(count)]
    try:
        for session in sessions:
            session.run("x = 1")
        time.sleep(0.2)
        uss, pss = [], []
        for session in sessions:
            assert session.pid is not None
            info = psutil.Process(session.pid).memory_full_info()
            uss.append(info.uss / 2**20)
            pss.append(info.pss / 2**20)
    finally:
        for session in sessions:
            session.close()
    return statistics.median(uss), statistics.median(pss)


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


def row(
    key: str, what: str, value: float, unit: str, baseline: str, goal: float | None,
    lower_is_better: bool = True,
) -> dict[str, Any]:
    return {
        "id": key, "what": what, "value": value, "unit": unit, "baseline": baseline,
        "goal": goal, "lower_is_better": lower_is_better,
    }


def measure(quick: bool) -> list[dict[str, Any]]:
    repeat = 3 if quick else 7
    rows: list[dict[str, Any]] = []
    for label, source in (("arithmetic loop", ARITHMETIC), ("attribute/dict/list/str", OBJECTS)):
        guarded, plain = compute_ratio(source, repeat)
        rows.append(row("a", f"guarded compute: {label}", guarded / plain, "x plain exec",
                        f"plain exec {plain * 1e3:.1f} ms", 1.2))
    restricted, native = compile_ratio(repeat)
    rows.append(row("d", "restricted compile, 100 lines", restricted / native,
                    "x builtin compile", f"compile() {native * 1e3:.2f} ms", 2.0))
    count = 300 if quick else 2000
    # Five slots a session, so (h)'s five sync tools may all run at once.
    policy = SandboxPolicy.preset("default")
    with Sandbox(policy, spares=4, hung_tools_per_session=SLOW_TOOLS) as sb:
        sb.session().close()
        floor = ping_pong(count)
        trip = round_trips(sb, count)
        one_call, per_call = tool_call_cost(sb, count)
        floor = min(floor, ping_pong(count))  # the floor on either side of (b) and (g)
        rows.append(row("-", "floor: socketpair ping-pong between processes", floor * 1e6,
                        "us median", "-", None))
        rows.append(row("b", "trivial script, warm session", trip / floor, "x the floor",
                        f"{trip * 1e6:.0f} us median", 4.0))
        rows.append(row("g", "one sync tool call (marginal)", per_call / floor, "x the floor",
                        f"{per_call * 1e6:.0f} us median; a script making one call "
                        f"{one_call * 1e6:.0f} us", 5.0))
        loop_s, gather_s = gather_speedup(sb, 2 if quick else 5)
        rows.append(row("h", f"{SLOW_TOOLS} tools of {SLOW_S:g} s: gather vs a loop",
                        loop_s / gather_s, "x faster",
                        f"loop {loop_s:.2f} s, gather {gather_s:.2f} s", 4.0, False))
        start = session_starts(sb, 50 if quick else 300)
        rows.append(row("c", "new session + first script", start * 1e3, "ms median", "-", 1.0))
        rate = sessions_per_second(sb, 2.0 if quick else 5.0, threads=2)
        rows.append(row("e", "fresh sessions per second (2 threads)", rate, "sessions/s", "-",
                        500, False))
        uss, pss = idle_uss(sb, 20 if quick else 100)
        rows.append(row("i", "idle session's worker: memory of its own (USS)", uss, "MiB median",
                        f"PSS {pss:.2f} MiB", 1.5))
    try:
        rows.extend(data_rows(quick, session_starts, sessions_per_second))
    except SandboxError as exc:  # its zygote did not start in time on a loaded machine
        rows.append(row("f", "data: not measured", 0.0, "-", str(exc)[:80], None))
    rows.extend(monty_rows(quick, floor))
    rows.extend(private_writes_rows(quick))  # a writable mount's private view per session
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
    parser.add_argument(
        "--sandbox-from", metavar="PATH", help="measure the sandbox package of this checkout"
    )
    args = parser.parse_args()
    rows = measure(args.quick)
    print(json.dumps(rows, indent=2) if args.json else render(rows))


if __name__ == "__main__":
    main()
