"""Cancellation and close leave nothing: no worker, no zygote, no event loop, no fd."""

from __future__ import annotations

import asyncio
import gc
import os
import signal
import threading
import time
import warnings
from typing import Any

import psutil
import pytest

from sandbox import AsyncSandbox, FinalResult, Sandbox, SandboxPolicy
from sandbox.host.workers import process_state

POLICY = SandboxPolicy.preset("default").with_limits(wall_s=20, tool_timeout_s=20)


def _alive(pids: set[int]) -> set[int]:
    return {pid for pid in pids if process_state(pid) not in (None, "Z", "X")}


def _children() -> set[int]:
    return _alive({p.pid for p in psutil.Process().children(recursive=True)})


def _settle(pids: set[int], seconds: float = 10) -> set[int]:
    """The pids still alive after up to ``seconds`` (a killed process takes a moment)."""
    deadline = time.monotonic() + seconds
    while (left := _alive(pids)) and time.monotonic() < deadline:
        time.sleep(0.01)
    return left


@pytest.mark.timeout(60)
@pytest.mark.parametrize("moment", ["starting", "running", "in_tool", "in_approval"])
def test_cancelling_an_async_session_at_any_point_leaves_no_worker(moment: str) -> None:
    entered = threading.Event()

    def blocks() -> None:
        entered.set()
        time.sleep(15)  # released by cancellation, not by returning

    async def undecided(name: str, arguments: dict[str, Any]) -> str | None:
        entered.set()
        await asyncio.sleep(3600)  # a person who never answers
        return None

    async def main() -> None:
        async with AsyncSandbox(POLICY, spares=0) as sb:
            before = sb.sync.processes()
            gate = undecided if moment == "in_approval" else None
            session = sb.session(tools={"blocks": blocks}, gate=gate)
            if moment == "starting":
                task = asyncio.ensure_future(session.start())
                await asyncio.sleep(0)
            else:
                await session.start()
                source = "while True:\n    pass" if moment == "running" else "blocks()"
                task = asyncio.ensure_future(session.run(source))
                if moment in ("in_tool", "in_approval"):
                    await asyncio.to_thread(entered.wait, 15)
                else:
                    await asyncio.sleep(0.3)
            workers = _children() - before
            cancelled_at = time.monotonic()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            # Cancellation returns promptly, well before the tool or wall-clock limit.
            assert time.monotonic() - cancelled_at < 10
            await session.close()
            assert _settle(workers) == set()
            assert _settle(_children() - before) == set()
            assert sb.health().sessions_open == 0

    asyncio.run(main())


@pytest.mark.timeout(60)
def test_cancelling_an_async_sandbox_while_it_starts_leaves_nothing() -> None:
    async def main() -> None:
        sb = AsyncSandbox(POLICY, spares=2)
        task = asyncio.ensure_future(sb.start())
        await asyncio.sleep(0.01)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert sb.sync.processes() == set() and not sb.health().running

    before = _children()
    asyncio.run(main())
    assert _settle(_children() - before) == set()


@pytest.mark.timeout(60)
def test_close_after_a_zygote_restart_leaves_nothing() -> None:
    sb = Sandbox(POLICY, spares=2)
    with sb:
        with sb.session() as s:
            assert s.run("x = 1").ok
            zygote = sb.health().zygote_pid
            assert zygote is not None
            os.kill(zygote, signal.SIGKILL)
            _settle({zygote})
            held = sb.session()  # a worker of the new zygote, left open on purpose
            assert held.run("final_result(1)").output == FinalResult(value=1)
        assert sb.health().zygote_restarts == 1
        started = _children()
    assert _settle(started) == set()
    assert sb.processes() == set() and sb.health().running is False


@pytest.mark.timeout(60)
def test_a_sync_sandbox_closes_its_event_loop() -> None:
    loops: list[asyncio.AbstractEventLoop] = []

    async def async_tool() -> str:
        loops.append(asyncio.get_running_loop())  # the loop the sandbox keeps for it
        return "async"

    me = psutil.Process()

    def one_sandbox() -> None:
        with Sandbox(POLICY, spares=0) as sb, sb.session(tools={"t": async_tool}) as s:
            assert s.run("final_result(t())").output == FinalResult(value="async")
            loop = loops.pop()
        assert loop.is_closed()

    one_sandbox()  # imports and caches warmed up
    gc.collect()
    fds = me.num_fds()
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        for _ in range(3):
            one_sandbox()
        gc.collect()
    assert me.num_fds() <= fds
