"""Sandbox: the synchronous host API's entry point.

``Sandbox`` holds the options and the lifecycle; starting it makes the
:class:`~sandbox.host.supply.WorkerSupply` its sessions draw from (the zygote, which
``supervisor.py`` replaces if it dies, spare workers, admission, tool threads).
``Sandbox.session`` takes one worker for the session's whole life (see ``session.py``):
variables persist across its runs, and no worker is ever reused for another session.
Admission control (``admission.py``) bounds how many sessions hold a worker at once.
"""

from __future__ import annotations

import asyncio
import atexit
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any, Self

from sandbox.errors import SandboxError
from sandbox.host.admission import budget
from sandbox.host.health import SandboxHealth
from sandbox.host.session import Session
from sandbox.host.snapshots import Snapshot
from sandbox.host.supply import SupplyOptions, WorkerSupply
from sandbox.host.tools import ToolGate, ToolSet
from sandbox.policy import SandboxPolicy

_OPEN: weakref.WeakSet[Sandbox] = weakref.WeakSet()


class Sandbox:
    """Runs scripts in forked, confined workers under one policy.

    Use as a context manager (or call :meth:`start` and :meth:`close`). Each worker
    keeps its policy's hard limits; admission charges what sessions use: a new session
    is admitted while the memory the sandbox's processes use now (measured) plus
    ``session_request_mb`` per open session fits in ``memory_budget_mb`` (80 % of the
    machine's memory by default), and at most ``max_workers`` sessions are open (by
    default as many as their requests fit in the budget and the open-files limit
    allows). A session beyond waits up to ``admission_timeout_s``, then
    :class:`~sandbox.errors.AdmissionTimeout` says which budget is full. Every wait for a new worker
    (its fork, its hello) is bounded by ``start_timeout_s``; a dead or stuck zygote is
    replaced. Sync tools run in up to ``tool_threads`` threads, a session's in up to
    ``hung_tools_per_session``: its calls running plus those still running after their
    timeout. Its calls in flight beyond that wait for one to return; once all of them
    run past their timeout, further sync calls fail.
    """

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
        if policy is None:
            policy = SandboxPolicy.preset("default")
        elif isinstance(policy, str):
            policy = SandboxPolicy.load(policy)
        self.policy: SandboxPolicy = policy
        max_workers, memory_mb = budget(max_workers, memory_budget_mb, session_request_mb)
        self._options = SupplyOptions(
            spares=spares,
            max_workers=max_workers,
            memory_budget_mb=memory_mb,
            admission_timeout_s=admission_timeout_s,
            start_timeout_s=start_timeout_s,
            tool_threads=tool_threads,
            hung_tools_per_session=hung_tools_per_session,
            session_request_mb=session_request_mb,
        )
        #: What the zygote was started with (mount paths resolved once, at start).
        self.worker_config: dict[str, Any] = {}
        #: The supply sessions draw from: the running one, or the last one closed.
        self._supply: WorkerSupply | None = None
        self._served = 0
        self._lock = threading.Lock()
        #: start() and close() one at a time: a close() during a start() in another
        #: thread (a cancelled async start) waits for it, then stops what it started.
        self._lifecycle = threading.RLock()

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> Self:
        """Start the zygote and fork the first spares (idempotent)."""
        with self._lifecycle:
            return self._start()

    def _start(self) -> Self:
        with self._lock:
            if self._supply is not None and not self._supply.closed:
                return self
            supply = WorkerSupply(self.policy, self._options)
            self.worker_config = supply.worker_config
            self._supply = supply
            _OPEN.add(self)
        if self.policy.required_mechanisms():
            # Refuse now, not at the first session, where a required mechanism is missing.
            try:
                self.session().close()
            except SandboxError:
                self._close()
                raise
        return self

    def close(self) -> None:
        """Kill every session's worker and stop the zygote."""
        with self._lifecycle:
            self._close()

    def _close(self) -> None:
        supply = self._supply
        if supply is not None:
            supply.close()
        _OPEN.discard(self)

    def processes(self) -> set[int]:
        """Pids of the zygotes, the spares and the sessions' workers (for leak checks)."""
        supply = self._supply
        return supply.processes() if supply is not None else set()

    def health(self) -> SandboxHealth:
        """Restarts, workers, spares, sessions and admission figures, now."""
        supply = self._supply
        if supply is None:
            return SandboxHealth.stopped()
        return supply.health(self._served)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- sessions ----------------------------------------------------------------------
    def session(
        self,
        tools: Mapping[str, Callable[..., Any]] | None = None,
        *,
        gate: ToolGate | None = None,
        tool_timeouts: Mapping[str, float | None] | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
        cancel: threading.Event | None = None,
        restore: bytes | Snapshot | None = None,
    ) -> Session:
        """A new session in a fresh worker, with ``tools`` callable from its scripts.

        ``restore``: a :meth:`Session.snapshot` to rebuild first (``session.restored``
        says what it rebuilt); raises SnapshotError when it is not an intact snapshot.

        ``gate`` is awaited before every tool call (None = proceed, a string = refuse
        with that reason); ``tool_timeouts`` overrides the policy's per-call timeout for
        some tools (None = no timeout). Async tools and the gate run on ``loop``, or on
        a loop the sandbox keeps in a background thread. Waits for an admission slot
        (see the class docstring); setting ``cancel`` abandons that wait.
        """
        snapshot = None if restore is None else Snapshot.load(restore)
        self.start()
        toolset = ToolSet(tools, gate=gate, timeouts=tool_timeouts)
        current = self._supply
        if current is None or current.closed:
            raise SandboxError("the sandbox is closed")
        supply: WorkerSupply = current
        session = supply.admit(lambda: Session(supply, toolset, loop), cancel)
        with self._lock:
            self._served += 1
        if snapshot is not None:
            try:
                session.restore(snapshot)
            except BaseException:
                session.close()
                raise
        return session

    async def session_async(
        self,
        tools: Mapping[str, Callable[..., Any]] | None = None,
        *,
        gate: ToolGate | None = None,
        tool_timeouts: Mapping[str, float | None] | None = None,
        restore: bytes | Snapshot | None = None,
    ) -> Session:
        """:meth:`session` for a started sandbox, from asyncio code: the wait for a slot
        holds no thread; async tools and the gate run on the running loop. Cancelling
        it leaves no worker behind."""
        snapshot = None if restore is None else Snapshot.load(restore)
        toolset = ToolSet(tools, gate=gate, timeouts=tool_timeouts)
        current = self._supply
        if current is None or current.closed:
            raise SandboxError("the sandbox is not running")
        supply: WorkerSupply = current
        loop = asyncio.get_running_loop()
        session = await supply.admit_async(lambda: Session(supply, toolset, loop))
        with self._lock:
            self._served += 1
        if snapshot is not None:
            try:
                await supply.in_start_thread(lambda: session.restore(snapshot))
            except BaseException:
                session.close()
                raise
        return session

    @property
    def running(self) -> bool:
        """Started and not closed."""
        supply = self._supply
        return supply is not None and not supply.closed

    @property
    def confinement(self) -> dict[str, str]:
        """Each mechanism's state in this sandbox's workers ("active", "off" or
        "degraded: <why>"), ``cgroup`` included; starts the sandbox and a worker if none
        has run yet."""
        supply = self._supply
        if supply is None or not supply.confinement:
            self.session().close()
            supply = self._supply
            assert supply is not None
        return dict(supply.confinement)


def open_sandboxes() -> list[Sandbox]:
    """Sandboxes started and not yet closed in this process."""
    return list(_OPEN)


@atexit.register
def _close_all() -> None:
    # Workers must never outlive the program that started them.
    for sandbox in list(_OPEN):
        sandbox.close()
