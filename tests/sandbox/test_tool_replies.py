"""A plain sync tool call's reply goes to the worker from the tool's own thread: a
reply larger than the channel takes at once is finished by the run loop, in order,
on the sync and the async path alike."""

from __future__ import annotations

import asyncio

import pytest

from sandbox import AsyncSandbox, FinalResult, Sandbox

pytestmark = pytest.mark.timeout(120)
BIG = 900_000  # near the default result_bytes: far more than a socket buffer


def blob(n: int) -> str:
    return "x" * n


SCRIPT = "sizes = [len(blob(900_000 - i)) for i in range(5)]\nfinal_result(sizes)"


def test_large_replies_from_tool_threads_arrive_whole(sandbox: Sandbox) -> None:
    with sandbox.session({"blob": blob}) as session:
        execution = session.run(SCRIPT)
        assert execution.output == FinalResult(value=[BIG - i for i in range(5)])
        assert [call.ok for call in execution.tool_calls] == [True] * 5


def test_large_replies_arrive_whole_on_the_event_loop() -> None:
    async def main() -> object:
        async with AsyncSandbox("default", spares=0) as sb, sb.session({"blob": blob}) as s:
            return (await s.run(SCRIPT)).output

    assert asyncio.run(main()) == FinalResult(value=[BIG - i for i in range(5)])
