"""`RaySandboxPool`: sandbox sessions on a Ray cluster's nodes, as `AsyncSandbox` gives
them here — ``async with pool.session(tools=...) as s: await s.run(src)``.

A session holds a slot of one node's actor for its whole life, so its variables live
in one worker. Its tools never leave this process: the node's session has proxies
whose calls come back here as events, are validated and run here, and answered; the
node's own `ToolSet` asks the gate (which also runs here), times the calls out and
records them, as for a local session. The pool is an `AsyncSandbox`,
so ``Agent.run(task, sandbox=pool)`` takes it as it takes a local one.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Self

import ray

from codeact.ray.calls import CallerTools, reply_failed
from codeact.ray.cluster import Connection, Placement, alive_nodes
from codeact.ray.fleet import Fleet, Member
from codeact.ray.node import NodeSandbox, tool_spec
from sandbox import (
    AsyncSandbox,
    AsyncSession,
    Execution,
    SandboxError,
    SandboxHealth,
    SandboxPolicy,
    Snapshot,
    SnapshotError,
)
from sandbox.host.tool_failures import describe
from sandbox.host.tools import ToolGate


class RaySandboxPool(AsyncSandbox):
    """Sessions on the nodes of the Ray cluster at `address` (None: the connection this
    process already has, or a local Ray started by `start` and stopped by `close`).

    Each node's actor holds `sessions_per_node` sessions at most, and declares the
    resources that many workers may use under `policy` (see `Placement`)."""

    def __init__(
        self,
        policy: SandboxPolicy | str | None = None,
        *,
        address: str | None = None,
        sessions_per_node: int = 8,
        cpus_per_session: float | None = None,
    ) -> None:
        if policy is None:
            policy = SandboxPolicy.preset("default")
        elif isinstance(policy, str):
            policy = SandboxPolicy.load(policy)
        if sessions_per_node < 1:
            raise ValueError("sessions_per_node must be at least 1")
        self._policy = policy
        self._placement = Placement.for_policy(policy, cpus_per_session)
        self._per_node = sessions_per_node
        self._connection = Connection(address)
        self._fleet: Fleet | None = None
        self._starting: asyncio.Lock | None = None
        self._confinement: dict[str, str] = {}
        #: Sync tools run here, off the event loop, as a local sandbox's do.
        self._threads = concurrent.futures.ThreadPoolExecutor(32, "ray-pool-tool")

    @property
    def policy(self) -> SandboxPolicy:
        return self._policy

    @property
    def confinement(self) -> dict[str, str]:
        """Each confinement mechanism's state in the latest run's worker."""
        return dict(self._confinement)

    def health(self) -> SandboxHealth:
        """Not one sandbox's figure: a pool has one sandbox per node (see
        :meth:`node_health`)."""
        raise TypeError(
            "a RaySandboxPool has one sandbox per node: use 'await pool.node_health()'"
        )

    async def node_health(self) -> dict[str, SandboxHealth]:
        """Each live node's :meth:`Sandbox.health`, by node id."""
        if self._fleet is None:
            return {}
        members = [m for m in self._fleet.members if m.alive]
        answers = await asyncio.gather(*(m.actor.health.remote() for m in members))
        return {
            m.node: SandboxHealth.model_validate_json(a)
            for m, a in zip(members, answers, strict=True)
        }

    @property
    def nodes(self) -> list[str]:
        """The nodes holding a live sandbox actor."""
        return [m.node for m in self._fleet.members if m.alive] if self._fleet else []

    async def start(self) -> Self:
        """Connect and start one sandbox actor per node with room (idempotent)."""
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if self._fleet is None:
                await asyncio.to_thread(self._connection.open)
                n_nodes = len(alive_nodes())
                fleet = Fleet(
                    NodeSandbox,
                    (self._policy.model_dump_json(),),
                    self._placement,
                    self._per_node * max(1, n_nodes),
                    per_node=self._per_node,
                )
                try:
                    await fleet.start()
                except BaseException:
                    await asyncio.to_thread(self._connection.close)
                    raise
                self._fleet = fleet
        return self

    async def close(self) -> None:
        """Stop the actors (every session ends) and the connection opened by `start`."""
        fleet, self._fleet = self._fleet, None
        try:
            if fleet is not None:
                await fleet.close()
        finally:
            await asyncio.to_thread(self._connection.close)
            self._threads.shutdown(wait=False, cancel_futures=True)
            self._threads = concurrent.futures.ThreadPoolExecutor(32, "ray-pool-tool")

    def session(
        self,
        tools: Mapping[str, Callable[..., Any]] | None = None,
        *,
        gate: ToolGate | None = None,
        tool_timeouts: Mapping[str, float | None] | None = None,
        restore: bytes | Snapshot | None = None,
    ) -> RaySession:
        """A new session on one node; use it with ``async with``. Sessions on a node
        cannot be restored from a snapshot (``restore`` raises SnapshotError)."""
        if restore is not None:
            raise SnapshotError("a session on a Ray node cannot be restored from a snapshot")
        return RaySession(self, tools, gate, tool_timeouts)

    async def _lease(self) -> tuple[Fleet, Member]:
        await self.start()
        assert self._fleet is not None
        return self._fleet, await self._fleet.acquire()


class RaySession(AsyncSession):
    """A session on one node (see `RaySandboxPool`); `AsyncSession`'s contract."""

    def __init__(
        self,
        pool: RaySandboxPool,
        tools: Mapping[str, Callable[..., Any]] | None,
        gate: ToolGate | None = None,
        tool_timeouts: Mapping[str, float | None] | None = None,
    ) -> None:
        self._pool = pool
        self._tools = tools
        self._gate = gate
        self._tool_timeouts = tool_timeouts
        self._id = uuid.uuid4().hex
        self._lease: tuple[Fleet, Member] | None = None
        self._callee: CallerTools | None = None
        self._pid: int | None = None

    @property
    def pid(self) -> int | None:
        """The worker's process id (on the session's node)."""
        return self._pid

    async def snapshot(self) -> Snapshot:
        """Not available on a Ray node: raises SnapshotError."""
        raise SnapshotError("a session on a Ray node cannot be snapshotted")

    @property
    def node(self) -> str | None:
        """The id of the node the session runs on."""
        return self._lease[1].node if self._lease else None

    async def start(self) -> Self:
        """Take a slot on a node and a worker there."""
        if self._lease is not None:
            return self
        callee = CallerTools(self._tools, self._pool._threads)
        spec = {
            "policy": self._pool.policy.digest(),
            "tools": [tool_spec(name, fn) for name, fn in (self._tools or {}).items()],
            "timeouts": dict(self._tool_timeouts or {}),
            "gated": self._gate is not None,
        }
        fleet, member = await self._pool._lease()
        try:
            opened = member.actor.open_session.remote(self._id, spec)
            self._pid = await self._call(fleet, member, opened)
        except BaseException:
            await fleet.release(member)
            raise
        self._lease, self._callee = (fleet, member), callee
        return self

    @staticmethod
    async def _call(fleet: Fleet, member: Member, ref: Any) -> Any:
        try:
            return await ref
        except ray.exceptions.RayActorError as exc:
            fleet.lost(member)
            text = str(exc).strip().splitlines()[0] if str(exc).strip() else "died"
            raise SandboxError(f"the sandbox actor on node {member.node} died: {text}") from None
        except ray.exceptions.RayTaskError as exc:
            raise SandboxError(f"the node's sandbox failed: {exc.cause!r}") from None

    async def run(self, source: str) -> Execution:
        """Run `source` on the session's node; cancelling this call kills the worker."""
        await self.start()
        assert self._lease is not None
        fleet, member = self._lease
        answering: dict[int, asyncio.Task[None]] = {}
        try:
            event = await self._call(fleet, member, member.actor.run.remote(self._id, source))
            while event["op"] in ("call", "gate", "abandon"):
                if event["op"] == "abandon":  # the node timed the call out
                    task = answering.pop(event["id"], None)
                    if task is not None:
                        task.cancel()
                else:
                    answering[event["id"]] = asyncio.create_task(self._answer(member, event))
                event = await self._call(fleet, member, member.actor.next_event.remote(self._id))
        except asyncio.CancelledError:
            try:
                pid = member.actor.cancel.remote(self._id)
                self._pid = await asyncio.shield(self._call(fleet, member, pid))
            except SandboxError:
                pass  # the node went with the run: nothing is left to stop
            raise
        finally:
            for task in answering.values():
                task.cancel()
        if event["op"] == "failed":
            raise SandboxError(f"{event['type']}: {event['error']}")
        if event["op"] != "done":
            raise SandboxError(f"the run ended on its node without a result: {event['op']}")
        execution = Execution.model_validate_json(event["execution"])
        self._pool._confinement = dict(execution.confinement)
        return execution

    async def _answer(self, member: Member, event: dict[str, Any]) -> None:
        """Carry out a tool call (or ask the gate) here and send the answer back."""
        reply: dict[str, Any]
        if event["op"] == "gate":
            assert self._gate is not None
            try:
                reply = {"refusal": await self._gate(str(event["name"]), dict(event["arguments"]))}
            except asyncio.CancelledError:
                raise
            except BaseException as exc:  # the call fails with the gate's error, as here
                reply = reply_failed(type(exc).__name__, describe(exc))
        else:
            assert self._callee is not None
            name, args, kwargs = str(event["name"]), list(event["args"]), dict(event["kwargs"])
            reply = await self._callee.call(name, args, kwargs)
        try:
            await member.actor.reply.remote(self._id, event["id"], reply)
        except ray.exceptions.RayError:
            pass  # the actor died: the run's next event says so

    async def close(self) -> None:
        """End the session and kill its worker; its slot goes back to the pool."""
        if self._lease is None:
            return
        (fleet, member), self._lease = self._lease, None
        try:
            if member.alive:
                await member.actor.close_session.remote(self._id)
        except ray.exceptions.RayError:
            pass  # the actor died with the session in it: nothing is left to close
        finally:
            await fleet.release(member)
