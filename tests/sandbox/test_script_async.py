"""Scripts' own async code: async def, await, asyncio.run/gather, top-level await,
tools awaited; the loop, executors and coroutine frames out of reach."""

from __future__ import annotations

import asyncio
import textwrap

import pytest

from sandbox import Sandbox

pytestmark = pytest.mark.timeout(120)


def run(sandbox: Sandbox, source: str, tools=None):  # type: ignore[no-untyped-def]
    with sandbox.session(tools) as session:
        return session.run(textwrap.dedent(source))


def test_async_code_runs(sandbox: Sandbox) -> None:
    source = """
    import asyncio
    async def work(i):
        await asyncio.sleep(0.01)
        return i * 2
    async def main():
        r = await asyncio.gather(*(work(i) for i in range(5)))
        async with asyncio.timeout(1):
            await asyncio.sleep(0)
        q = asyncio.Queue()
        await q.put(1)
        t = asyncio.create_task(work(10))
        async def agen():
            for i in range(3):
                yield i
        xs = [x async for x in agen()]
        return r, await q.get(), await t, xs
    print(asyncio.run(main()))
    """
    execution = run(sandbox, source)
    assert execution.stdout == "([0, 2, 4, 6, 8], 1, 20, [0, 1, 2])\n", execution.output


def test_top_level_await(sandbox: Sandbox) -> None:
    source = """
    import asyncio
    async def work(i):
        await asyncio.sleep(0)
        return i
    x = await work(21)
    print(x, await asyncio.gather(work(1), work(2)))
    """
    assert run(sandbox, source).stdout == "21 [1, 2]\n"


def test_async_host_tool_awaited_in_a_script(sandbox: Sandbox) -> None:
    async def lookup(key: str) -> str:
        await asyncio.sleep(0.01)
        return key.upper()

    source = """
    import asyncio
    async def main():
        one = await lookup("a")
        rest = await asyncio.gather(lookup("b"), lookup("c"))
        return [one, *rest]
    print(asyncio.run(main()), lookup("d"))
    """
    execution = run(sandbox, source, {"lookup": lookup})
    assert execution.stdout == "['A', 'B', 'C'] D\n", execution.output


def test_a_loop_with_nothing_to_wait_for_raises(sandbox: Sandbox) -> None:
    source = """
    import asyncio
    async def hang():
        await asyncio.Event().wait()
    asyncio.run(hang())
    """
    execution = run(sandbox, source)
    assert execution.error_code == "runtime_error"
    assert "nothing left to wait for" in execution.output.message


@pytest.mark.parametrize(
    "expr",
    [
        "c.cr_frame",
        "getattr(c, 'cr_frame')",
        "t.get_loop()",
        "getattr(t, 'get_loop')()",
        "t.get_stack()",
        "t.get_coro()",
        "t._loop",
        "asyncio.get_event_loop()",
        "asyncio.get_running_loop()",
        "asyncio.to_thread(print)",
        "asyncio.create_subprocess_exec('true')",
        "asyncio.open_connection('localhost', 80)",
        "asyncio.events",
    ],
)
def test_loop_and_frames_out_of_reach(sandbox: Sandbox, expr: str) -> None:
    source = (
        "import asyncio\nasync def co():\n    return 1\nasync def main():\n"
        "    c = co()\n    t = asyncio.create_task(co())\n"
        f"    print('GOT', {expr})\n    c.close()\nasyncio.run(main())"
    )
    execution = run(sandbox, source)
    assert execution.error_code in ("policy_violation", "runtime_error")
    assert "GOT" not in execution.stdout
