"""Several tool calls in flight at once (``asyncio.gather`` over tools): the host runs
them concurrently and answers each by its id; every failure stays typed; a hostile
worker's call ids are refused."""

from __future__ import annotations

import asyncio
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from sandbox import AsyncSandbox, Sandbox, SandboxPolicy
from sandbox.protocol import MAX_IN_FLIGHT

pytestmark = pytest.mark.timeout(120)

#: Generous: on a busy 2-core machine threads may start late; a sequential run would
#: wait this long and then fail.
MEET_S = 20.0

GATHER = """
import asyncio
async def main():
    return await asyncio.gather(*(tool(i) for i in range({n})))
final_result(asyncio.run(main()))
"""


def dedent(source: str) -> str:
    return textwrap.dedent(source).strip() + "\n"


class Overlap:
    """Counts the calls running at once; ``meet`` holds each call until ``n`` are."""

    def __init__(self, n: int) -> None:
        self.barrier = threading.Barrier(n, timeout=MEET_S)
        self.lock = threading.Lock()
        self.running = 0
        self.peak = 0

    def enter(self) -> None:
        with self.lock:
            self.running += 1
            self.peak = max(self.peak, self.running)

    def leave(self) -> None:
        with self.lock:
            self.running -= 1


@pytest.fixture()
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(SandboxPolicy.preset("default"), spares=1) as sb:
        yield sb


@pytest.fixture()
def wide() -> Iterator[Sandbox]:
    """Sessions whose sync calls may all run at once: a session's sync calls running
    plus its hung ones are bounded by ``hung_tools_per_session`` (the documented knob)."""
    policy = SandboxPolicy.preset("default")
    with Sandbox(policy, spares=0, hung_tools_per_session=MAX_IN_FLIGHT) as sb:
        yield sb


def test_gather_runs_five_sync_tools_at_the_same_time(wide: Sandbox) -> None:
    overlap = Overlap(5)

    def tool(i: int) -> int:
        overlap.enter()
        try:
            overlap.barrier.wait()  # passes only once all five are running
        finally:
            overlap.leave()
        return i * 10

    with wide.session({"tool": tool}) as session:
        execution = session.run(GATHER.format(n=5))
    assert execution.ok, execution.output
    assert execution.output.value == [0, 10, 20, 30, 40]  # type: ignore[union-attr]
    assert overlap.peak == 5
    assert [r.arguments for r in execution.tool_calls] == [{"i": i} for i in range(5)]


def test_gather_runs_five_async_tools_at_the_same_time(sandbox: Sandbox) -> None:
    arrived: list[int] = []
    all_in: dict[str, asyncio.Event] = {}

    async def tool(i: int) -> int:
        event = all_in.setdefault("event", asyncio.Event())
        arrived.append(i)
        if len(arrived) == 5:
            event.set()
        await asyncio.wait_for(event.wait(), MEET_S)
        return -i

    with sandbox.session({"tool": tool}) as session:
        execution = session.run(GATHER.format(n=5))
    assert execution.ok, execution.output
    assert execution.output.value == [0, -1, -2, -3, -4]  # type: ignore[union-attr]
    assert sorted(arrived) == [0, 1, 2, 3, 4]


def test_records_follow_the_order_the_script_made_the_calls(sandbox: Sandbox) -> None:
    def tool(i: int) -> int:
        time.sleep((4 - i) * 0.05)  # the last call finishes first
        return i

    with sandbox.session({"tool": tool}) as session:
        execution = session.run(GATHER.format(n=5))
    assert execution.output.value == [0, 1, 2, 3, 4]  # type: ignore[union-attr]
    assert [r.result for r in execution.tool_calls] == [0, 1, 2, 3, 4]


def test_calls_beyond_the_in_flight_cap_wait_in_the_worker(wide: Sandbox) -> None:
    overlap = Overlap(MAX_IN_FLIGHT)
    count = MAX_IN_FLIGHT + 4

    def tool(i: int) -> int:
        overlap.enter()
        try:
            if i < MAX_IN_FLIGHT:
                overlap.barrier.wait()
        finally:
            overlap.leave()
        return i

    with wide.session({"tool": tool}) as session:
        execution = session.run(GATHER.format(n=count))
    assert execution.ok, execution.output
    assert execution.output.value == list(range(count))  # type: ignore[union-attr]
    assert overlap.peak == MAX_IN_FLIGHT
    assert len(execution.tool_calls) == count


def test_large_arguments_and_results_in_flight_together(sandbox: Sandbox) -> None:
    # 16 calls of 200 kB out and 400 kB back fill the socket both ways: neither end may
    # wait to write while the other does (that would end in a timeout).
    def double(s: str) -> str:
        return s * 2

    source = f"""
    import asyncio
    async def main():
        return await asyncio.gather(*(double('x' * 200_000) for i in range({MAX_IN_FLIGHT})))
    final_result(sum(len(r) for r in asyncio.run(main())))
    """
    with sandbox.session({"double": double}) as session:
        execution = session.run(dedent(source))
    assert execution.ok, execution.output
    assert execution.output.value == MAX_IN_FLIGHT * 400_000  # type: ignore[union-attr]


def test_one_failing_call_among_several(sandbox: Sandbox) -> None:
    def tool(i: int) -> int:
        if i == 2:
            raise KeyError("missing")
        time.sleep(0.05)
        return i

    source = """
    import asyncio
    async def main():
        got = await asyncio.gather(*(tool(i) for i in range(4)), return_exceptions=True)
        print([type(g).__name__ if isinstance(g, Exception) else g for g in got])
        await asyncio.gather(tool(1), tool(2))
    asyncio.run(main())
    """
    with sandbox.session({"tool": tool}) as session:
        execution = session.run(dedent(source))
        after = session.run("final_result(tool(3))")
    assert execution.stdout == "[0, 1, 'KeyError', 3]\n"
    assert execution.error_code == "runtime_error"
    assert "KeyError: 'missing'" in execution.output.message  # type: ignore[union-attr]
    assert [r.ok for r in execution.tool_calls] == [True, True, False, True, True, False]
    assert execution.tool_calls[2].error == "KeyError: missing"
    assert after.output.value == 3  # type: ignore[union-attr]


def test_the_gate_decides_each_call_in_flight(sandbox: Sandbox) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    async def gate(name: str, arguments: dict[str, Any]) -> str | None:
        asked.append((name, arguments))
        await asyncio.sleep(0.01)
        return "not that one" if arguments == {"i": 1} else None

    def tool(i: int) -> int:
        return i

    source = """
    import asyncio
    async def main():
        got = await asyncio.gather(tool(0), tool(1), tool(2), return_exceptions=True)
        return [type(g).__name__ + ": " + str(g) if isinstance(g, Exception) else g for g in got]
    final_result(asyncio.run(main()))
    """
    with sandbox.session({"tool": tool}, gate=gate) as session:
        execution = session.run(dedent(source))
    assert execution.output.value == [  # type: ignore[union-attr]
        0,
        "PermissionError: tool() was not approved: not that one",
        2,
    ]
    assert sorted(a["i"] for _, a in asked) == [0, 1, 2]
    assert [r.ok for r in execution.tool_calls] == [True, False, True]


def test_a_call_timing_out_among_several(sandbox: Sandbox) -> None:
    release = threading.Event()

    def hang() -> str:
        release.wait(30)
        return "late"

    def quick() -> str:
        return "fast"

    source = """
    import asyncio
    async def main():
        return await asyncio.gather(hang(), quick(), return_exceptions=True)
    r = asyncio.run(main())
    final_result([type(r[0]).__name__, str(r[0]), r[1]])
    """
    tools: dict[str, Callable[..., Any]] = {"hang": hang, "quick": quick}
    try:
        with sandbox.session(tools, tool_timeouts={"hang": 0.3}) as session:
            execution = session.run(dedent(source))
    finally:
        release.set()
    assert execution.output.value == [  # type: ignore[union-attr]
        "TimeoutError",
        "hang() did not finish within 0.3 s",
        "fast",
    ]
    assert execution.tool_calls[0].error == "TimeoutError: hang() did not finish within 0.3 s"
    assert execution.tool_calls[1].ok


@pytest.mark.parametrize(
    "expr",
    ["c.cr_await", "getattr(c, 'cr_await')", "c.cr_frame", "getattr(c, 'cr_' + 'frame')"],
)
def test_a_tool_awaitable_hands_the_script_nothing(sandbox: Sandbox, expr: str) -> None:
    source = f"""
    import asyncio
    async def main():
        c = tool(1)
        try:
            print("GOT", {expr})
        finally:
            await c
    asyncio.run(main())
    """
    with sandbox.session({"tool": lambda i: i}) as session:
        execution = session.run(dedent(source))
    assert execution.error_code in ("policy_violation", "runtime_error")
    assert "GOT" not in execution.stdout


def test_an_async_tool_blocking_its_loop_still_times_out(sandbox: Sandbox) -> None:
    release = threading.Event()

    async def stuck() -> str:
        release.wait(30)  # blocks the event loop: its own timeout cannot fire
        return "late"

    source = """
    import asyncio
    async def main():
        return await asyncio.gather(stuck(), return_exceptions=True)
    final_result([type(r).__name__ for r in asyncio.run(main())])
    """
    try:
        with sandbox.session({"stuck": stuck}, tool_timeouts={"stuck": 0.2}) as session:
            execution = session.run(dedent(source))
    finally:
        release.set()
    assert execution.output.value == ["TimeoutError"]  # type: ignore[union-attr]
    assert execution.tool_calls[0].error == "TimeoutError: stuck() did not finish within 0.2 s"


def test_call_budget_exceeded_with_several_in_flight() -> None:
    policy = SandboxPolicy.preset("default").with_limits(tool_calls=3)

    def tool(i: int) -> int:
        time.sleep(0.1)
        return i

    with Sandbox(policy, spares=0) as sb, sb.session({"tool": tool}) as session:
        execution = session.run(GATHER.format(n=5))
        again = session.run(GATHER.format(n=3))
    assert execution.error_code == "tool_call_limit"
    assert [r.result for r in execution.tool_calls] == [0, 1, 2]
    assert again.output.value == [0, 1, 2]  # type: ignore[union-attr]


def test_a_task_the_script_cancels_leaves_nothing_for_the_next_run(sandbox: Sandbox) -> None:
    def slow(i: int) -> int:
        time.sleep(0.4)
        return i

    source = """
    import asyncio
    async def main():
        try:
            await asyncio.wait_for(asyncio.gather(slow(1), slow(2)), 0.05)
        except TimeoutError:
            print("gave up")
    asyncio.run(main())
    print(slow(3))
    """
    with sandbox.session({"slow": slow}) as session:
        execution = session.run(dedent(source))
        after = session.run(GATHER.replace("tool", "slow").format(n=2))
    assert execution.ok, execution.output
    assert execution.stdout == "gave up\n3\n"
    # The host ran both to their end: their records are complete.
    assert [(r.ok, r.result) for r in execution.tool_calls] == [(True, 1), (True, 2), (True, 3)]
    assert after.output.value == [0, 1]  # type: ignore[union-attr]


def test_cpu_limit_while_calls_are_in_flight() -> None:
    policy = SandboxPolicy.preset("default").with_limits(cpu_soft_s=0.5, cpu_hard_s=3)

    def slow(i: int) -> int:
        time.sleep(0.3)
        return i

    source = """
    import asyncio
    async def both():
        return await asyncio.gather(slow(1), slow(2))
    async def main():
        task = asyncio.create_task(both())
        await asyncio.sleep(0)
        while True:
            pass
    asyncio.run(main())
    """
    with Sandbox(policy, spares=0) as sb, sb.session({"slow": slow}) as session:
        execution = session.run(dedent(source))
        after = session.run("final_result(slow(5))")
    assert execution.error_code == "cpu_limit"
    assert [r.result for r in execution.tool_calls] == [1, 2]
    assert after.output.value == 5  # type: ignore[union-attr]


def _loop_tasks(loop: asyncio.AbstractEventLoop) -> int:
    async def count() -> int:
        return len(asyncio.all_tasks()) - 1

    return asyncio.run_coroutine_threadsafe(count(), loop).result(5)


def _busy(sandbox: Sandbox) -> int:
    """Tool threads running a call now (hung ones included)."""
    return sandbox.health().tool_threads_busy


def test_cancelling_a_run_with_calls_in_flight_leaks_nothing(sandbox: Sandbox) -> None:
    started = threading.Semaphore(0)
    release = threading.Event()

    def sync_tool(i: int) -> int:
        started.release()
        release.wait(30)
        return i

    loops: list[asyncio.AbstractEventLoop] = []

    async def async_tool(i: int) -> int:
        loops.append(asyncio.get_running_loop())  # the loop the sandbox keeps for it
        started.release()
        await asyncio.sleep(30)
        return i

    source = """
    import asyncio
    async def main():
        return await asyncio.gather(sync_tool(1), sync_tool(2), async_tool(3))
    asyncio.run(main())
    """
    tools: dict[str, Callable[..., Any]] = {"sync_tool": sync_tool, "async_tool": async_tool}
    try:
        with sandbox.session(tools) as session:

            def kill_once_all_run() -> None:
                for _ in range(3):
                    started.acquire(timeout=MEET_S)
                session.kill()

            killer = threading.Thread(target=kill_once_all_run)
            killer.start()
            execution = session.run(dedent(source))
            killer.join()
            assert execution.error_code == "cancelled"
            assert [r.name for r in execution.tool_calls] == [
                "sync_tool",
                "sync_tool",
                "async_tool",
            ]
            assert all(
                r.error is not None and r.error.startswith("CancelledError")
                for r in execution.tool_calls
            )
            assert _loop_tasks(loops[0]) == 0  # the async call's task is gone
            assert _busy(sandbox) == 2  # held by the two sync calls, until they return
            release.set()
            deadline = time.monotonic() + MEET_S
            while _busy(sandbox) and time.monotonic() < deadline:
                time.sleep(0.02)
            assert _busy(sandbox) == 0
            assert session.run("final_result(sync_tool(7))").output.value == 7  # type: ignore[union-attr]
    finally:
        release.set()


# -- a hostile worker: plain Python writes its own frames on the channel ----------------

FORGE = """
import json, os, socket, stat, struct, time
for fd in range(3, 64):
    try:
        if stat.S_ISSOCK(os.fstat(fd).st_mode):
            break
    except OSError:
        pass
for frame in {frames!r}:
    if isinstance(frame, float):
        time.sleep(frame)  # let the host start what it was sent
        continue
    data = json.dumps(frame).encode()
    os.write(fd, struct.pack(">I", len(data)) + data)
time.sleep(5)
"""


def call(call_id: int, *, concurrent: bool = True) -> dict[str, Any]:
    return {"op": "call", "id": call_id, "concurrent": concurrent, "name": "tool", "args": [1]}


@pytest.fixture(scope="module")
def plain() -> Iterator[Sandbox]:
    policy = SandboxPolicy.preset("default").with_layers(language=False)
    with Sandbox(policy, spares=0) as sb:
        yield sb


@pytest.mark.parametrize(
    ("frames", "why"),
    [
        ([call(1), call(1)], "tool call id 1 after 1"),
        ([call(1, concurrent=False), call(1, concurrent=False)], "tool call id 1 after 1"),
        ([call(2)], "tool call id 2 after 0"),
        ([call(1), call(3)], "tool call id 3 after 1"),
        ([call(-1)], "tool call id -1 after 0"),
        ([{"op": "call", "name": "tool"}], "id"),
    ],
    ids=["reused", "reused-plain", "never-issued", "skipped", "negative", "missing"],
)
def test_hostile_call_ids_end_the_worker(
    plain: Sandbox, frames: list[dict[str, Any]], why: str
) -> None:
    def tool(x: int) -> int:
        time.sleep(0.2)
        return x

    with plain.session({"tool": tool}) as session:
        execution = session.run(FORGE.format(frames=frames))
        after = session.run("final_result(tool(2))")
    assert execution.error_code == "worker_crashed"
    assert why in execution.output.message  # type: ignore[union-attr]
    # A call served before the bad frame has its record (finished or abandoned).
    assert len(execution.tool_calls) == sum(f.get("id") == 1 for f in frames[:1])
    assert after.output.value == 2  # type: ignore[union-attr]
    assert after.worker_restarted


def test_a_forged_done_with_calls_in_flight_abandons_them(plain: Sandbox) -> None:
    release = threading.Event()

    def tool(x: int) -> int:
        release.wait(30)
        return x

    done = {"op": "done", "output": {"type": "final_result", "value": "forged"}, "seq": 1}
    try:
        with plain.session({"tool": tool}) as session:
            execution = session.run(FORGE.format(frames=[call(1), call(2), 2.0, done]))
            assert execution.output.value == "forged"  # type: ignore[union-attr]
            assert [r.error for r in execution.tool_calls] == [
                "CancelledError: tool() was abandoned: the run ended while it was in flight"
            ] * 2
            assert _busy(plain) == 2  # the two calls still hold their threads
            release.set()
            deadline = time.monotonic() + MEET_S
            while _busy(plain) and time.monotonic() < deadline:
                time.sleep(0.02)
            assert _busy(plain) == 0
    finally:
        release.set()


def test_too_many_calls_in_flight_are_refused(plain: Sandbox) -> None:
    frames = [call(i) for i in range(1, MAX_IN_FLIGHT + 2)]

    def tool(x: int) -> int:
        time.sleep(0.5)
        return x

    with plain.session({"tool": tool}) as session:
        execution = session.run(FORGE.format(frames=frames))
    assert execution.error_code == "tool_call_limit"
    assert f"at most {MAX_IN_FLIGHT} may be" in execution.output.message  # type: ignore[union-attr]
    assert len(execution.tool_calls) == MAX_IN_FLIGHT
    deadline = time.monotonic() + MEET_S
    while _busy(plain) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert _busy(plain) == 0


def test_forged_calls_beyond_the_budget_end_the_run() -> None:
    policy = SandboxPolicy.preset("default").with_layers(language=False).with_limits(tool_calls=2)
    frames = [call(1), call(2), call(3)]
    with Sandbox(policy, spares=0) as sb, sb.session({"tool": lambda x: x}) as session:
        execution = session.run(FORGE.format(frames=frames))
    assert execution.error_code == "tool_call_limit"
    assert len(execution.tool_calls) == 2


# -- async sessions ----------------------------------------------------------------------


def test_async_session_runs_tools_at_once_and_cancels_cleanly() -> None:
    async def main() -> None:
        arrived: list[int] = []
        all_in = asyncio.Event()

        async def tool(i: int) -> int:
            arrived.append(i)
            if len(arrived) == 5:
                all_in.set()
            await asyncio.wait_for(all_in.wait(), MEET_S)
            return i

        async def stall(i: int) -> int:
            arrived.append(i)
            await asyncio.sleep(30)
            return i

        async with AsyncSandbox("default", spares=1) as sb:
            async with sb.session({"tool": tool, "stall": stall}) as session:
                execution = await session.run(GATHER.format(n=5))
                assert execution.output.value == [0, 1, 2, 3, 4]  # type: ignore[union-attr]
                arrived.clear()
                run = asyncio.ensure_future(
                    session.run(GATHER.replace("tool", "stall").format(n=3))
                )
                while len(arrived) < 3:
                    await asyncio.sleep(0.01)
                run.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await run
                await asyncio.sleep(0.05)
                # Nothing of the cancelled run is left on this loop.
                assert asyncio.all_tasks() == {asyncio.current_task()}
                again = await session.run("final_result(1)")
                assert again.output.value == 1  # type: ignore[union-attr]

    asyncio.run(main())
