"""AsyncSandbox runs wait on their workers with the event loop, not in threads."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading

import pytest

from sandbox import AsyncSandbox, FinalResult
from tests.loop_lag import LoopLag


@pytest.mark.timeout(120)
def test_nested_runs_in_async_tools_finish_with_one_default_executor_thread() -> None:
    async def main() -> tuple[list[object], tuple[float, float], int]:
        loop = asyncio.get_running_loop()
        loop.set_default_executor(concurrent.futures.ThreadPoolExecutor(1))
        lag = LoopLag()
        async with AsyncSandbox("default") as sandbox:

            async def inner(n: int) -> int:
                async with sandbox.session() as session:
                    source = f"import time\ntime.sleep(0.2)\nfinal_result({n} + 1)"
                    execution = await session.run(source)
                    return execution.output.value  # type: ignore[union-attr,no-any-return]

            async def outer(n: int) -> object:
                async with sandbox.session({"inner": inner}) as session:
                    return (await session.run(f"final_result(inner({n}) * 10)")).output

            lag.start()
            threads = threading.active_count()
            try:
                outputs = await asyncio.wait_for(asyncio.gather(*(outer(n) for n in range(24))), 90)
            finally:
                await lag.stop()
            grown = threading.active_count() - threads
        return outputs, lag.worst(), grown

    outputs, (own, wall), grown = asyncio.run(main())
    assert outputs == [FinalResult(value=(n + 1) * 10) for n in range(24)]
    late = f"{own * 1e3:.0f} ms late ({wall * 1e3:.0f} ms on the wall clock)"
    assert own < 0.05, f"the loop answered a ping {late}"
    # 48 runs of 0.2 s at once held no thread each (a few start workers, run tools).
    assert grown < 16, grown
