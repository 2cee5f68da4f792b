"""A session's sync calls running plus its hung ones never exceed
``hung_tools_per_session``: calls in flight beyond it wait for a slot, so one session
cannot take the sandbox's tool threads from the others (real threads throughout)."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest

from sandbox import Sandbox, SandboxPolicy
from sandbox.host.tool_slots import ToolSlots
from sandbox.host.tool_threads import ToolBudgetExhausted

pytestmark = pytest.mark.timeout(120)

#: Generous: on a busy 2-core machine threads may start late.
MEET_S = 20.0

GATHER = """
import asyncio
async def main():
    return await asyncio.gather(*(tool(i) for i in range({n})), return_exceptions=True)
final_result([type(r).__name__ if isinstance(r, Exception) else r for r in asyncio.run(main())])
"""


def test_one_session_hanging_many_calls_leaves_the_others_their_threads() -> None:
    release = threading.Event()

    def tool(i: int) -> int:
        release.wait(60)
        return i

    def ok() -> str:
        return "ok"

    policy = SandboxPolicy.preset("default")
    with Sandbox(policy, spares=0, tool_threads=16, hung_tools_per_session=4) as sb:
        try:
            with sb.session({"tool": tool}, tool_timeouts={"tool": 0.3}) as a:
                execution = a.run(GATHER.format(n=16))
                assert execution.ok, execution.output
                kinds = execution.output.value  # type: ignore[union-attr]
                # Four ran and timed out (hung, holding their slots); the rest were refused.
                assert kinds == ["TimeoutError"] * 4 + ["RuntimeError"] * 12
                refused = execution.tool_calls[4].error or ""
                assert "still running after their timeout (at most 4)" in refused
                assert sb.health().tool_threads_busy <= 4
                with sb.session({"ok": ok}) as b:
                    other = b.run("final_result(ok())")
                    assert other.ok, other.output
                    assert other.output.value == "ok"  # type: ignore[union-attr]
        finally:
            release.set()


def test_calls_beyond_the_budget_wait_for_a_slot() -> None:
    barrier = threading.Barrier(4, timeout=MEET_S)
    lock = threading.Lock()
    running = peak = finished = 0
    finished_when_fifth_began: list[int] = []
    fifth_began = threading.Event()

    def tool(i: int) -> int:
        nonlocal running, peak, finished
        with lock:
            running += 1
            peak = max(peak, running)
            if i == 4:
                finished_when_fifth_began.append(finished)
                fifth_began.set()
        try:
            if i < 4:
                barrier.wait()  # passes only once four run at once
            if i == 0:  # a while for a fifth running at once; with slots, none can
                fifth_began.wait(1.0)
            elif i < 4:  # three hold their slots until the fifth runs beside them
                assert fifth_began.wait(MEET_S)
        finally:
            with lock:
                running -= 1
                finished += 1
        return i

    policy = SandboxPolicy.preset("default")
    with (
        Sandbox(policy, spares=0, hung_tools_per_session=4) as sb,
        sb.session({"tool": tool}) as session,
    ):
        execution = session.run(GATHER.format(n=5))
    assert execution.ok, execution.output
    assert execution.output.value == [0, 1, 2, 3, 4]  # type: ignore[union-attr]
    assert peak == 4
    assert finished_when_fifth_began == [1]  # it began only once call 0 freed a slot
    assert all(record.ok for record in execution.tool_calls)


def test_waiting_for_a_slot_is_not_part_of_the_timeout() -> None:
    # Eight waves of two calls of 0.6 s each: the last waits over 4 s for its slot,
    # past its 2 s timeout and the host's own deadline for it, and still succeeds.
    def tool(i: int) -> int:
        time.sleep(0.6)
        return i

    policy = SandboxPolicy.preset("default")
    with (
        Sandbox(policy, spares=0, hung_tools_per_session=2) as sb,
        sb.session({"tool": tool}, tool_timeouts={"tool": 2.0}) as session,
    ):
        execution = session.run(GATHER.format(n=16))
    assert execution.ok, execution.output
    assert execution.output.value == list(range(16))  # type: ignore[union-attr]


def test_slots_go_first_come_first_served_and_fail_once_all_are_hung() -> None:
    async def scenario() -> None:
        slots = ToolSlots()
        first, second = slots.take(2), await slots.wait(2)
        with pytest.raises(ToolBudgetExhausted, match="hold its 2 tool threads"):
            slots.take(2)
        third = asyncio.ensure_future(slots.wait(2))
        fourth = asyncio.ensure_future(slots.wait(2))
        cancelled = asyncio.ensure_future(slots.wait(2))
        await asyncio.sleep(0)
        cancelled.cancel()
        slots.release(first)
        granted = await asyncio.wait_for(third, MEET_S)
        assert not fourth.done()
        slots.hang(second)
        slots.hang(granted)  # both slots now held by hung calls: the waiter fails
        with pytest.raises(ToolBudgetExhausted, match="still running after their timeout"):
            await asyncio.wait_for(fourth, MEET_S)
        with pytest.raises(ToolBudgetExhausted):
            slots.take(2)
        slots.release(second)  # a hung call returned: its slot is free again
        slots.release(slots.take(2))

    asyncio.run(scenario())
