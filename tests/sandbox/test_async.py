"""AsyncSandbox: the same contract from asyncio, async tools, cancellation."""

from __future__ import annotations

import asyncio
import threading
import time
from typing import Any

import psutil
import pytest

from sandbox import AsyncSandbox, FinalResult, SandboxPolicy


async def fetch(item: str) -> dict[str, str]:
    await asyncio.sleep(0.01)
    return {"item": item}


def test_async_example() -> None:
    async def main() -> None:
        async with AsyncSandbox(SandboxPolicy.preset("default")) as sb:
            async with sb.session(tools={"fetch": fetch}) as s:
                ex = await s.run("r = fetch('wand')\nfinal_result(r['item'])")
                assert ex.output == FinalResult(value="wand")
                ex = await s.run("observation(r)")
                assert ex.output.value == {"item": "wand"}  # type: ignore[union-attr]

    asyncio.run(main())


def test_concurrent_sessions() -> None:
    async def main() -> list[object]:
        async with AsyncSandbox("default") as sb:

            async def one(i: int) -> object:
                async with sb.session() as s:
                    return (await s.run(f"final_result({i} * 2)")).output

            return await asyncio.gather(*(one(i) for i in range(6)))

    assert asyncio.run(main()) == [FinalResult(value=i * 2) for i in range(6)]


@pytest.mark.timeout(20)
def test_cancellation_kills_the_worker() -> None:
    async def main() -> None:
        async with AsyncSandbox("default") as sb, sb.session() as s:
            await s.run("x = 1")
            pid = s.pid
            assert pid is not None
            task = asyncio.create_task(s.run("import time\ntime.sleep(8)"))
            await asyncio.sleep(0.3)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert not psutil.pid_exists(pid) or psutil.Process(pid).status() == "zombie"
            ex = await s.run("final_result('next run works')")
            assert ex.output == FinalResult(value="next run works")
            assert ex.worker_restarted

    asyncio.run(main())


def test_a_close_during_a_start_in_another_thread_stops_what_it_started(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # What a cancelled ``await sandbox.start()`` leaves: the start goes on in its thread.
    from sandbox.host import sandbox as host
    from sandbox.host import supervisor
    from sandbox.host import workers as process
    from sandbox.host.sandbox import open_sandboxes

    starting = threading.Event()

    class SlowZygote(process.Zygote):
        def __init__(self, config: dict[str, Any], **options: Any) -> None:
            starting.set()
            time.sleep(0.3)
            super().__init__(config, **options)

    monkeypatch.setattr(supervisor, "Zygote", SlowZygote)
    sandbox = host.Sandbox(SandboxPolicy.preset("default"), spares=1)
    thread = threading.Thread(target=sandbox.start)
    thread.start()
    assert starting.wait(10)
    sandbox.close()
    thread.join(30)
    assert sandbox.processes() == set()
    assert sandbox not in open_sandboxes()
