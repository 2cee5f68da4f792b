"""AsyncSandbox and AsyncSession: the same machinery for asyncio code.

Runs execute in a thread (the channel is blocking I/O, which keeps the synchronous
round trip fast); async tools run on the caller's event loop. Cancelling the awaiting
task kills the worker, so the thread returns at once and nothing keeps running.
"""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable, Mapping
from typing import Any, Self

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
        """Start the zygote (in a thread: it takes tens of milliseconds); cancelling this
        call leaves nothing running."""
        task = asyncio.ensure_future(asyncio.to_thread(self.sync.start))
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            await asyncio.wait([task])
            await asyncio.to_thread(self.sync.close)
            raise
        return self

    async def close(self) -> None:
        """Kill every worker and stop the zygote (finished even if this is cancelled)."""
        task = asyncio.ensure_future(asyncio.to_thread(self.sync.close))
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

    async def start(self) -> Self:
        """Take a worker for this session (cancelling this call leaves none behind)."""
        if self._session is None:
            loop = asyncio.get_running_loop()
            cancel = threading.Event()
            open_session = functools.partial(
                self._sandbox.session,
                self._tools,
                gate=self._gate,
                tool_timeouts=self._tool_timeouts,
                loop=loop,
                cancel=cancel,
                restore=self._restore,
            )
            task = asyncio.ensure_future(asyncio.to_thread(open_session))
            try:
                self._session = await asyncio.shield(task)
            except asyncio.CancelledError:
                # A wait for a slot ends at once; a worker being started is then ended.
                cancel.set()
                await asyncio.wait([task])
                if not task.cancelled() and task.exception() is None:
                    task.result().close()
                raise
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
        """Run ``source``; cancelling this call kills the worker."""
        await self.start()
        session = self._session
        assert session is not None
        cancel = threading.Event()
        task = asyncio.ensure_future(asyncio.to_thread(session.run, source, cancel=cancel))
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            cancel.set()  # covers a run still starting its worker
            session.kill()
            # Let the thread observe the dead worker before the session is reused.
            await asyncio.wait([task])
            raise

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
