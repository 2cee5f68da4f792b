"""The pieces of the Ray backend that need no cluster: placement and the limiters."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed: pip install 'codeact[ray]'")

from codeact.ray.bench import RemoteLimiter, SharedLimiter  # noqa: E402
from codeact.ray.cluster import ACTOR_BASE_BYTES, Placement  # noqa: E402
from sandbox import SandboxPolicy  # noqa: E402

GB = 1 << 30


def test_placement_comes_from_the_policy_limits() -> None:
    placement = Placement.for_policy(SandboxPolicy.preset("default"))
    # A run may burn cpu_hard_s = 6 of its wall_s = 10 seconds; a worker maps 512 MB.
    assert (placement.cpus_per_slot, placement.bytes_per_slot) == (0.6, 512 << 20)
    assert placement.fit({"CPU": 4.0, "memory": 8.0 * GB}, 8) == 6  # by CPU
    assert placement.fit({"CPU": 16.0, "memory": 2.0 * GB}, 8) == 3  # by memory
    assert placement.fit({"CPU": 16.0, "memory": 64.0 * GB}, 8) == 8  # as asked
    assert placement.fit({"CPU": 0.0, "memory": 64.0 * GB}, 8) == 0  # a head without work
    options = placement.options("ab" * 28, 6)
    assert options["num_cpus"] == 3.6
    assert options["memory"] == 6 * (512 << 20) + ACTOR_BASE_BYTES
    assert options["max_restarts"] == 0 and options["max_task_retries"] == 0


def test_a_lost_nodes_connections_are_given_back() -> None:
    async def main() -> None:
        shared = SharedLimiter(2)
        await shared.acquire("a")
        await shared.acquire("a")
        waiting = asyncio.create_task(shared.acquire("b"))
        await asyncio.sleep(0.05)
        assert not waiting.done()  # both connections are held by "a"
        await shared.forget("a")  # "a" died holding them
        await asyncio.wait_for(waiting, 1)
        await shared.forget("b")  # "b" died too, while another call of its was waiting
        await shared.acquire("b")
        assert shared.limiter.in_flight == 0
        await shared.release("c", True)  # a release nobody acquired changes nothing
        assert shared.limiter.in_flight == 0

    asyncio.run(main())


class _Gone:
    """An actor handle whose actor died: every call raises as Ray's do."""

    def __getattr__(self, name: str) -> Any:
        async def fail(*args: object) -> None:
            raise ray.exceptions.ActorDiedError()

        return SimpleNamespace(remote=fail)


def test_nodes_go_on_under_their_share_when_the_shared_limiter_is_lost() -> None:
    async def main() -> None:
        limiter = RemoteLimiter(_Gone(), "node-a", share=1)

        async def call() -> None:
            await limiter.acquire()
            await asyncio.sleep(0.05)
            await limiter.release(ok=True)

        first = asyncio.create_task(call())
        await asyncio.sleep(0.01)
        second = asyncio.create_task(limiter.acquire())
        await asyncio.sleep(0.01)
        assert limiter.own is not None and not second.done()  # one at a time here now
        await first
        await asyncio.wait_for(second, 1)

    asyncio.run(main())


_LOCAL_RAY = """
import json, ray
from codeact.ray.cluster import Connection
connection = Connection(None)
connection.open()
try:
    @ray.remote
    def where() -> str:
        return ray.util.get_node_ip_address()
    print(json.dumps({"nodes": [n["NodeManagerAddress"] for n in ray.nodes()],
                      "driver": ray.util.get_node_ip_address(), "task": ray.get(where.remote())}))
finally:
    connection.close()
"""


@pytest.mark.timeout(150)
def test_the_local_ray_listens_on_loopback_only() -> None:
    import ipaddress
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    result = subprocess.run(
        [sys.executable, "-c", _LOCAL_RAY], capture_output=True, text=True, timeout=140,
        cwd=root, env={**env, "PYTHONPATH": str(root)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    addresses = [*seen["nodes"], seen["driver"], seen["task"]]
    assert all(ipaddress.ip_address(a).is_loopback for a in addresses), seen
