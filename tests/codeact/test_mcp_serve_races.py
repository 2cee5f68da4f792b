"""``codeact mcp serve``'s session table under clients arriving at the same moment: the
limit holds, one name is one session, and no worker is left behind."""

from __future__ import annotations

import asyncio

import pytest

from codeact.mcp.serve import SandboxService, SessionLimitReached
from sandbox import SandboxPolicy

pytestmark = pytest.mark.timeout(120)
POLICY = SandboxPolicy.preset("default")
COUNT = "try:\n    n += 1\nexcept NameError:\n    n = 1\nfinal_result(n)"


async def _at_once(count: int, call: object) -> list[object]:
    """``count`` calls started together, released at one moment."""
    start = asyncio.Event()

    async def one(i: int) -> object:
        await start.wait()
        return await call(i)  # type: ignore[operator]

    tasks = [asyncio.create_task(one(i)) for i in range(count)]
    await asyncio.sleep(0)
    start.set()
    return await asyncio.gather(*tasks, return_exceptions=True)


def test_twelve_new_sessions_at_once_get_four_slots() -> None:
    async def main() -> None:
        service = SandboxService(POLICY, max_sessions=4)
        async with service.running():
            results = await _at_once(
                12, lambda i: service.run_python(f"final_result({i})", f"client-{i}")
            )
            served = [r for r in results if isinstance(r, dict)]
            refused = [r for r in results if isinstance(r, SessionLimitReached)]
            assert (len(served), len(refused)) == (4, 8), results
            assert len(service.session_ids()) == 4
            health = service.health()
            assert health.sessions_open == 4 and health.live_workers == 4
            for name in service.session_ids():
                assert await service.close_session(name)
            assert service.health().sessions_open == 0

    asyncio.run(main())


def test_clients_racing_on_one_new_session_share_one_worker() -> None:
    async def main() -> None:
        service = SandboxService(POLICY, max_sessions=4)
        async with service.running():
            results = await _at_once(
                12,
                lambda i: service.run_python(COUNT, "shared"),
            )
            assert all(isinstance(r, dict) for r in results), results
            # One session ran all twelve scripts, one after another.
            counts = sorted(r["output"]["value"] for r in results)  # type: ignore[index]
            assert counts == list(range(1, 13))
            assert service.session_ids() == ["shared"]
            health = service.health()
            assert health.sessions_open == 1 and health.live_workers == 1

    asyncio.run(main())
