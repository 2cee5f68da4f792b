"""`RaySandboxPool` keeps `AsyncSandbox`'s session contract: each test runs against a
local `AsyncSandbox` and against a pool on the two-node test cluster."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import Any

import psutil
import pytest

pytest.importorskip("ray", reason="Ray is not installed: pip install 'codeact[ray]'")

from codeact import Agent
from codeact.models import ScriptedModel
from codeact.ray import RaySandboxPool
from sandbox import AsyncSandbox, ErrorCode, FinalResult, SandboxError, SandboxPolicy

Factory = Callable[[SandboxPolicy], AsyncSandbox]
POLICY = SandboxPolicy.preset("default")


@pytest.fixture(params=["local", "ray"])
def make(request: pytest.FixtureRequest) -> Factory:
    if request.param == "local":
        return lambda policy: AsyncSandbox(policy)
    request.getfixturevalue("cluster")
    return lambda policy: RaySandboxPool(policy, sessions_per_node=4)


def lookup(item: str, qty: int = 1) -> dict[str, Any]:
    prices = {"wand": 3}
    return {"item": item, "total": prices[item] * qty, "pid": os.getpid()}


async def fetch(item: str) -> str:
    await asyncio.sleep(0.01)
    return item.upper()


@pytest.mark.timeout(60)
def test_state_persists_within_a_session_and_not_across(make: Factory) -> None:
    async def main() -> None:
        async with make(POLICY) as sb:
            async with sb.session() as one, sb.session() as two:
                await one.run("x = 41")
                ex = await one.run("final_result(x + 1)")
                assert ex.output == FinalResult(value=42)
                ex = await two.run("final_result(x)")
                assert ex.output.type == "error" and "x" in ex.output.message  # type: ignore[union-attr]
                assert one.pid != two.pid

    asyncio.run(main())


@pytest.mark.timeout(60)
def test_tools_run_in_the_callers_process(make: Factory) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []

    async def gate(name: str, arguments: dict[str, Any]) -> str | None:
        asked.append((name, arguments))
        if arguments.get("item") == "boom":
            raise RuntimeError("the gate broke")
        return "not today" if name == "fetch" and arguments["item"] == "no" else None

    async def main() -> None:
        tools = {"lookup": lookup, "fetch": fetch}
        async with make(POLICY) as sb, sb.session(tools, gate=gate) as s:
            ex = await s.run("r = lookup('wand', qty=2)\nfinal_result([r, fetch('a')])")
            assert ex.output.type == "final_result", ex
            value: Any = ex.output.value  # type: ignore[union-attr]
            assert value == [{"item": "wand", "total": 6, "pid": os.getpid()}, "A"]
            assert [(c.name, c.arguments, c.ok) for c in ex.tool_calls] == [
                ("lookup", {"item": "wand", "qty": 2}, True),
                ("fetch", {"item": "a"}, True),
            ]
            ex = await s.run(
                "try:\n    lookup('rope')\nexcept KeyError as e:\n    final_result(str(e))"
            )
            assert ex.output == FinalResult(value="'rope'")
            ex = await s.run("lookup(qty='many', item='wand')")
            assert ex.output.type == "error" and "qty" in ex.output.message  # type: ignore[union-attr]
            ex = await s.run("fetch('no')")
            assert "not approved: not today" in ex.output.message  # type: ignore[union-attr]
            ex = await s.run("fetch('boom')")
            assert "the gate broke" in ex.output.message  # type: ignore[union-attr]
        assert ("fetch", {"item": "no"}) in asked

    asyncio.run(main())


@pytest.mark.timeout(60)
def test_limits_hold(make: Factory) -> None:
    policy = POLICY.model_copy(
        update={"limits": POLICY.limits.model_copy(update={"wall_s": 1.0, "cpu_soft_s": 0.5,
                                                          "cpu_hard_s": 0.8})}
    )  # fmt: skip

    def slow() -> str:
        time.sleep(3)
        return "late"

    async def main() -> None:
        async with make(policy) as sb, sb.session({"slow": slow}, tool_timeouts={"slow": 0.3}) as s:
            ex = await s.run("slow()")
            assert "did not finish within 0.3 s" in ex.output.message  # type: ignore[union-attr]
            ex = await s.run("while True:\n    pass")
            assert ex.output.type == "error"
            assert ex.error_code in (ErrorCode.CPU_LIMIT, ErrorCode.TIMEOUT), ex
            ex = await s.run("x = 'a' * (2 << 30)")
            assert ex.output.type == "error", ex
            ex = await s.run("final_result('still usable')")
            assert ex.output == FinalResult(value="still usable")

    asyncio.run(main())


@pytest.mark.timeout(60)
def test_cancellation_kills_the_run(make: Factory) -> None:
    async def main() -> None:
        async with make(POLICY) as sb, sb.session() as s:
            await s.run("x = 1")
            task = asyncio.create_task(s.run("import time\ntime.sleep(8)"))
            await asyncio.sleep(1.0)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            ex = await s.run("final_result('next run works')")
            assert ex.output == FinalResult(value="next run works")
            assert ex.worker_restarted

    asyncio.run(main())


@pytest.mark.timeout(60)
def test_an_agent_runs_its_scripts_in_the_pool(make: Factory) -> None:
    replies = [
        "Looking it up.\n```python\nr = lookup('wand', qty=3)\nprint(r['total'])\n```",
        "Done.\n```python\nfinal_result(r['total'])\n```",
    ]
    agent = Agent("shop", ScriptedModel(replies), "Price things.", {"lookup": lookup})

    async def main() -> None:
        async with make(POLICY) as sb:
            output = await agent.run("What do 3 wands cost?", sandbox=sb)
        assert output.value == 9
        assert [c.name for c in output.tool_calls] == ["lookup"]

    asyncio.run(main())


@pytest.mark.timeout(60)
def test_sessions_are_pinned_and_spread_over_the_nodes(worker_nodes: set[str]) -> None:
    async def main() -> None:
        async with RaySandboxPool(POLICY, sessions_per_node=2) as pool:
            assert set(pool.nodes) == worker_nodes
            sessions = [pool.session() for _ in range(4)]
            for s in sessions:
                await s.start()
            nodes = [s.node for s in sessions]
            for i, s in enumerate(sessions):
                await s.run(f"x = {i}")
                ex = await s.run("final_result(x)")
                assert ex.output == FinalResult(value=i) and s.node == nodes[i]
                await s.close()
            assert set(nodes) == worker_nodes
            health = await pool.node_health()
            assert set(health) == worker_nodes
            assert all(h.running and h.sessions_served >= 1 for h in health.values())
            with pytest.raises(TypeError, match="node_health"):
                pool.health()

    asyncio.run(main())


def _actor_of(worker_pid: int) -> psutil.Process:
    """The node actor whose zygote forked `worker_pid`."""
    for parent in psutil.Process(worker_pid).parents():
        if (parent.cmdline() or [""])[0].startswith("ray::NodeSandbox"):
            return parent
    raise AssertionError(f"no sandbox actor above worker {worker_pid}")


@pytest.mark.timeout(120)
def test_a_dead_node_actor_fails_its_session_and_is_replaced(worker_nodes: set[str]) -> None:
    async def main() -> None:
        async with RaySandboxPool(POLICY, sessions_per_node=2) as pool:
            async with pool.session() as s:
                await s.run("x = 1")
                assert s.pid is not None
                lost = s.node
                _actor_of(s.pid).kill()
                with pytest.raises(SandboxError, match="died"):
                    await s.run("final_result(x)")
            deadline = time.monotonic() + 60
            while sorted(pool.nodes) != sorted(worker_nodes) and time.monotonic() < deadline:
                await asyncio.sleep(0.2)
            assert sorted(pool.nodes) == sorted(worker_nodes), "the dead actor was not replaced"
            sessions = [await pool.session().start() for _ in range(4)]
            assert lost in {s.node for s in sessions}
            for s in sessions:
                ex = await s.run("final_result('fine')")
                assert ex.output == FinalResult(value="fine")
                await s.close()

    asyncio.run(main())
