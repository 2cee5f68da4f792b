"""AsyncSandbox and AsyncSession: the same machinery for asyncio code.

A run waits on its worker's channel with the event loop (``run_drivers.py``): it holds
no thread, so any number of runs — runs nested in tools among them, sub-agents — wait
at once without one waiting for a thread another holds. Async tools run on the
caller's loop, sync ones on the sandbox's own tool threads; the waits for an admission
slot are the loop's too, and the few blocking steps (a worker's or the zygote's start)
run on threads the sandbox owns, never the loop's default executor. Cancelling the
awaiting task kills the worker, so nothing keeps running.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Mapping
from typing import Any, Self, TypeVar

from sandbox.errors import SandboxError
from sandbox.execution import Execution
from sandbox.host.health import SandboxHealth
from sandbox.host.sandbox import Sandbox
from sandbox.host.session import Session
from sandbox.host.snapshots import RestoreReport, Snapshot
from sandbox.host.tools import ToolGate
from sandbox.policy import SandboxPolicy


class AsyncSandbox:
    """Async counterpart of :class:`Sandbox`: ``async with AsyncSandbox(policy) as sb``."""

    def __init__(
        self,
        policy: SandboxPolicy | str | None = None,
        *,
        spares: int = 2,
        max_workers: int | None = None,
        memory_budget_mb: int | None = None,
        admission_timeout_s: float = 60.0,
        start_timeout_s: float = 10.0,
        tool_threads: int = 64,
        hung_tools_per_session: int = 4,
        session_request_mb: int = 8,
    ) -> None:
        """The same options as :class:`Sandbox`."""
        self.sync = Sandbox(
            policy,
            spares=spares,
            max_workers=max_workers,
            memory_budget_mb=memory_budget_mb,
            admission_timeout_s=admission_timeout_s,
            start_timeout_s=start_timeout_s,
            tool_threads=tool_threads,
            hung_tools_per_session=hung_tools_per_session,
            session_request_mb=session_request_mb,
        )

    @classmethod
    def wrap(cls, sandbox: Sandbox) -> AsyncSandbox:
        """An async view of an existing :class:`Sandbox` (the same zygote and workers)."""
        view = cls.__new__(cls)
        view.sync = sandbox
        return view

    @property
    def policy(self) -> SandboxPolicy:
        """The policy every session of this sandbox runs under."""
        return self.sync.policy

    @property
    def confinement(self) -> dict[str, str]:
        """Each confinement mechanism's state in the latest worker."""
        return self.sync.confinement

    async def start(self) -> Self:
        """Start the zygote (in a thread of its own: it takes tens of milliseconds);
        cancelling this call leaves nothing running. Returns at once when started."""
        if self.sync.running:
            return self
        task = asyncio.ensure_future(in_own_thread(self.sync.start))
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            await asyncio.wait([task])
            await in_own_thread(self.sync.close)
            raise
        return self

    async def close(self) -> None:
        """Kill every worker and stop the zygote (finished even if this is cancelled)."""
        task = asyncio.ensure_future(in_own_thread(self.sync.close))
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            await asyncio.wait([task])
            raise

    def health(self) -> SandboxHealth:
        """See :meth:`Sandbox.health`."""
        return self.sync.health()

    async def __aenter__(self) -> Self:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def session(
        self,
        tools: Mapping[str, Callable[..., Any]] | None = None,
        *,
        gate: ToolGate | None = None,
        tool_timeouts: Mapping[str, float | None] | None = None,
        restore: bytes | Snapshot | None = None,
    ) -> AsyncSession:
        """A new session; use it with ``async with``. See :meth:`Sandbox.session`."""
        return AsyncSession(self.sync, tools, gate, tool_timeouts, restore)


class AsyncSession:
    """Async counterpart of :class:`Session`."""

    def __init__(
        self,
        sandbox: Sandbox,
        tools: Mapping[str, Callable[..., Any]] | None,
        gate: ToolGate | None = None,
        tool_timeouts: Mapping[str, float | None] | None = None,
        restore: bytes | Snapshot | None = None,
    ) -> None:
        self._sandbox = sandbox
        self._tools = tools
        self._gate = gate
        self._tool_timeouts = tool_timeouts
        self._restore = None if restore is None else Snapshot.load(restore)
        self._session: Session | None = None
        # One start and one run at a time (made on first use, on the caller's loop).
        self._starting: asyncio.Lock | None = None
        self._running: asyncio.Lock | None = None

    async def start(self) -> Self:
        """Take a worker for this session (cancelling this call leaves none behind)."""
        if self._session is not None:
            return self
        if self._starting is None:
            self._starting = asyncio.Lock()
        async with self._starting:
            if self._session is None:
                if not self._sandbox.running:
                    await AsyncSandbox.wrap(self._sandbox).start()
                self._session = await self._sandbox.session_async(
                    self._tools,
                    gate=self._gate,
                    tool_timeouts=self._tool_timeouts,
                    restore=self._restore,
                )
        return self

    async def __aenter__(self) -> Self:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def pid(self) -> int | None:
        """The current worker's process id."""
        return self._session.pid if self._session else None

    async def run(self, source: str) -> Execution:
        """Run ``source`` (after the session's run before it, if one is going on);
        cancelling this call kills the worker."""
        await self.start()
        if self._running is None:
            self._running = asyncio.Lock()
        async with self._running:
            session = self._session
            if session is None:
                raise SandboxError("the session is closed")
            return await session.run_async(source)

    @property
    def restored(self) -> RestoreReport | None:
        """What the session's ``restore=`` rebuilt (see :meth:`Session.restore`)."""
        return self._session.restored if self._session else None

    async def snapshot(self) -> Snapshot:
        """See :meth:`Session.snapshot` (run in a thread)."""
        await self.start()
        session = self._session
        assert session is not None
        return await asyncio.to_thread(session.snapshot)

    async def close(self) -> None:
        """End the session and kill its worker (quick and non-blocking: done here, so
        that cancelling the caller cannot skip it)."""
        if self._session is not None:
            session, self._session = self._session, None
            session.close()


T = TypeVar("T")


async def in_own_thread(fn: Callable[[], T]) -> T:
    """``fn()`` in a thread of its own: never the loop's default executor, which the
    caller sizes and other work may have filled."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[T] = loop.create_future()

    def settle(result: T | None, problem: BaseException | None) -> None:
        if future.done():
            return
        if problem is not None:
            future.set_exception(problem)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def target() -> None:
        try:
            result, problem = fn(), None
        except BaseException as exc:
            result, problem = None, exc
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits
            loop.call_soon_threadsafe(settle, result, problem)

    threading.Thread(target=target, name="sandbox-lifecycle", daemon=True).start()
    return await future
