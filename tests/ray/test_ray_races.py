"""`RaySandboxPool` under sessions requested at one moment: each node's slots hold,
no session or worker is handed out twice, and none is left behind."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("ray", reason="Ray is not installed: pip install 'codeact[ray]'")

from codeact.ray import RaySandboxPool
from sandbox import SandboxPolicy

POLICY = SandboxPolicy.preset("default")


@pytest.mark.timeout(240)
def test_sessions_requested_at_once_never_pass_a_nodes_slots(cluster: Any) -> None:
    per_node, requests = 2, 12

    async def main() -> None:
        async with RaySandboxPool(POLICY, sessions_per_node=per_node) as pool:
            start = asyncio.Event()
            open_on: dict[str, int] = {}
            peak: dict[str, int] = {}
            workers: list[tuple[str, int | None]] = []

            async def one(i: int) -> object:
                await start.wait()
                async with pool.session() as session:
                    node = session.node
                    assert node is not None
                    open_on[node] = open_on.get(node, 0) + 1
                    peak[node] = max(peak.get(node, 0), open_on[node])
                    workers.append((node, session.pid))
                    output = (await session.run(f"final_result({i})")).output
                    await asyncio.sleep(0.05)
                    open_on[node] -= 1
                    return output.value  # type: ignore[union-attr]

            tasks = [asyncio.create_task(one(i)) for i in range(requests)]
            await asyncio.sleep(0)
            start.set()
            assert await asyncio.gather(*tasks) == list(range(requests))
            assert len(peak) == 2 and all(count <= per_node for count in peak.values())
            assert len(set(workers)) == requests  # no worker served two sessions
            health = await pool.node_health()
            assert len(health) == 2
            for figures in health.values():
                assert figures.sessions_open == 0 and figures.live_workers == 0

    asyncio.run(main())
