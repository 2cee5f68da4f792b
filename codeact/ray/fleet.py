"""`Fleet`: one sandbox actor per node, its slots handed out, dead actors replaced.

The driver leases a slot for one sample (or one session's whole life); a call that
fails because the actor died marks it lost, and a new actor is started on the same
node if the node is still alive (a few times at most, so that a node that keeps
killing its actor is given up on).
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import ray

from codeact.ray.cluster import Placement, alive_nodes, node_alive
from sandbox import SandboxError

log = logging.getLogger("codeact.ray")
#: Seconds an actor may take to be placed and start its sandbox.
READY_TIMEOUT_S = 120.0
#: Replacements per node and run before the node is given up on.
MAX_REPLACEMENTS = 3


class NoCapacity(SandboxError):
    """No live sandbox actor is left on the cluster."""


@dataclass(eq=False)
class Member:
    """One node's actor and its slots."""

    node: str
    actor: Any
    slots: int
    info: dict[str, Any] = field(default_factory=dict)
    busy: int = 0
    alive: bool = True


class Fleet:
    """Actors of `actor_class` (``__init__(*args, slots)``), one per node with room."""

    def __init__(
        self,
        actor_class: type,
        args: tuple[Any, ...],
        placement: Placement,
        wanted: int,
        *,
        per_node: int | None = None,
        on_lost: Callable[[Member], None] | None = None,
    ) -> None:
        self.actor_class, self.args, self.placement = actor_class, args, placement
        self.wanted = wanted
        self.per_node = per_node
        self.on_lost = on_lost
        self.members: list[Member] = []
        self.notes: list[str] = []
        self._replaced: dict[str, int] = {}
        self._replacing: set[asyncio.Task[None]] = set()
        self._changed: asyncio.Condition | None = None

    @property
    def capacity(self) -> int:
        return sum(m.slots for m in self.members if m.alive)

    async def start(self) -> None:
        """An actor on every node with room; `SandboxError` when none started."""
        self._changed = asyncio.Condition()
        nodes = alive_nodes()
        usable = [(node, res) for node, res in nodes if self.placement.fit(res, 1) > 0]
        if not usable:
            raise SandboxError(
                f"no node of the Ray cluster ({len(nodes)} alive) has room for a sandbox "
                f"actor: a slot takes {self.placement.cpus_per_slot} CPU and "
                f"{self.placement.bytes_per_slot // 2**20} MB"
            )
        per_node = self.per_node or math.ceil(self.wanted / len(usable))
        spawned = await asyncio.gather(
            *(self._spawn(node, self.placement.fit(res, per_node)) for node, res in usable),
            return_exceptions=True,
        )
        for result in spawned:
            if isinstance(result, Member):
                self.members.append(result)
            elif isinstance(result, Exception):
                self.notes.append(str(result))
            else:
                raise result
        if not self.members:
            raise SandboxError("no sandbox actor started: " + "; ".join(self.notes))
        for note in self.notes:
            log.warning("%s", note)
        if self.capacity < self.wanted:
            log.warning(
                "the Ray cluster has room for %d at once (of %d asked for): each takes "
                "%s CPU and %d MB on its node",
                self.capacity, self.wanted, self.placement.cpus_per_slot,
                self.placement.bytes_per_slot // 2**20,
            )  # fmt: skip

    async def _spawn(self, node: str, slots: int) -> Member:
        remote: Any = ray.remote(self.actor_class).options(**self.placement.options(node, slots))
        actor = remote.remote(*self.args, slots)
        try:
            info = await asyncio.wait_for(actor.ready.remote(), READY_TIMEOUT_S)
        except (TimeoutError, ray.exceptions.RayError) as exc:
            ray.kill(actor)
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise SandboxError(f"node {node}: the sandbox actor did not start: {first}") from None
        return Member(node, actor, slots, dict(info))

    async def acquire(self, avoid: str | None = None) -> Member:
        """A slot on the least busy actor (not on node `avoid` while another has room)."""
        assert self._changed is not None, "start the fleet first"
        async with self._changed:
            while True:
                free = [m for m in self.members if m.alive and m.busy < m.slots]
                if free:
                    member = min(free, key=lambda m: (m.node == avoid, m.busy / m.slots))
                    member.busy += 1
                    return member
                if not any(m.alive for m in self.members) and not self._replacing:
                    raise NoCapacity(
                        "no sandbox actor is left on the Ray cluster: "
                        + ("; ".join(self.notes[-3:]) or "every one died")
                    )
                await self._changed.wait()

    async def release(self, member: Member) -> None:
        assert self._changed is not None
        async with self._changed:
            member.busy -= 1
            self._changed.notify_all()

    def lost(self, member: Member) -> None:
        """`member`'s actor died: stop using it and start a replacement on its node."""
        if not member.alive:
            return
        member.alive = False
        ray.kill(member.actor)
        if self.on_lost is not None:
            self.on_lost(member)
        task = asyncio.get_running_loop().create_task(self._replace(member))
        self._replacing.add(task)
        task.add_done_callback(self._replacing.discard)

    async def _replace(self, member: Member) -> None:
        assert self._changed is not None
        count = self._replaced.get(member.node, 0) + 1
        self._replaced[member.node] = count
        try:
            if count > MAX_REPLACEMENTS:
                self.notes.append(f"node {member.node}: actor died {count} times, given up")
            elif not await asyncio.to_thread(node_alive, member.node):
                self.notes.append(f"node {member.node}: the node is gone")
            else:
                fresh = await self._spawn(member.node, member.slots)
                self.members.append(fresh)
        except SandboxError as exc:
            self.notes.append(str(exc))
        finally:
            async with self._changed:
                current = asyncio.current_task()
                if current is not None:
                    self._replacing.discard(current)
                self.members = [m for m in self.members if m.alive or m.busy]
                self._changed.notify_all()

    async def close(self) -> None:
        """Stop every actor (and any replacement still starting)."""
        for task in list(self._replacing):
            task.cancel()
        await asyncio.gather(*self._replacing, return_exceptions=True)
        live = [m for m in self.members if m.alive]
        # Let each actor stop its zygote and workers; kill it whatever it answered.
        await asyncio.wait(
            [asyncio.ensure_future(m.actor.shutdown.remote()) for m in live] or [_done()],
            timeout=10,
        )
        for member in live:
            member.alive = False
            ray.kill(member.actor)
        self.members = []


async def _done() -> None:
    return None
