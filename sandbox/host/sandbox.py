"""Sandbox: the synchronous host API's entry point.

``Sandbox`` starts the zygote once (``supervisor.py`` replaces it if it dies) and keeps
spare workers; ``Sandbox.session`` takes one worker for the session's whole life (see
``session.py``): variables persist across its runs, and no worker is ever reused for
another session. Admission control (``admission.py``) bounds how many sessions hold a
worker at once.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any, Self

from sandbox.errors import SandboxError
from sandbox.host.admission import Admission, budget
from sandbox.host.cgroup import SandboxCgroup
from sandbox.host.health import SandboxHealth
from sandbox.host.requirements import check as check_required
from sandbox.host.session import Session
from sandbox.host.supervisor import Supervisor
from sandbox.host.tool_threads import ToolThreads
from sandbox.host.tools import ToolGate, ToolSet
from sandbox.host.workers import WorkerHandle
from sandbox.policy import SandboxPolicy

_OPEN: weakref.WeakSet[Sandbox] = weakref.WeakSet()


class Sandbox:
    """Runs scripts in forked, confined workers under one policy.

    Use as a context manager (or call :meth:`start` and :meth:`close`). At most
    ``max_workers`` sessions hold a worker at once (default: what fits in
    ``memory_budget_mb``, itself 80 % of the machine's memory by default, at the
    policy's ``memory_mb`` each); a session beyond waits up to ``admission_timeout_s``,
    then :class:`~sandbox.host.admission.AdmissionTimeout` is raised. Every wait for a new
    worker (its fork, its hello) is bounded by ``start_timeout_s``; a dead or stuck zygote
    is replaced. Sync tools
    run in up to ``tool_threads`` threads; a session whose ``hung_tools_per_session``
    calls still run after their timeout gets errors from further sync calls.
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
    ) -> None:
        if policy is None:
            policy = SandboxPolicy.preset("default")
        elif isinstance(policy, str):
            policy = SandboxPolicy.load(policy)
        self.policy: SandboxPolicy = policy
        self._spares = spares
        self._budget = budget(policy.limits.memory_mb, max_workers, memory_budget_mb)
        self._admission_timeout = admission_timeout_s
        self._start_timeout = start_timeout_s
        self._tool_budget = (tool_threads, hung_tools_per_session)
        #: What the zygote was started with (mount paths resolved once, at start).
        self.worker_config: dict[str, Any] = {}
        self._supervisor: Supervisor | None = None
        self._admission: Admission | None = None
        self._cgroup: SandboxCgroup | None = None
        self._tool_threads: ToolThreads | None = None
        self._loop_thread: _LoopThread | None = None
        self._sessions: set[Session] = set()
        self._served = 0
        self._lock = threading.Lock()
        #: start() and close() one at a time: a close() during a start() in another
        #: thread (a cancelled async start) waits for it, then stops what it started.
        self._lifecycle = threading.RLock()
        self._confinement: dict[str, str] = {}

    # -- lifecycle ---------------------------------------------------------------------
    def start(self) -> Self:
        """Start the zygote and fork the first spares (idempotent)."""
        with self._lifecycle:
            return self._start()

    def _start(self) -> Self:
        with self._lock:
            if self._supervisor is not None:
                return self
            config = self.policy.worker_config()
            max_workers, memory_mb = self._budget
            cgroup = SandboxCgroup.create(
                None if memory_mb is None else memory_mb << 20, max_workers + self._spares + 8
            )
            try:
                supervisor = Supervisor(
                    config,
                    self._spares,
                    start_timeout_s=self._start_timeout,
                    before_start=cgroup.adopt,
                )
            except BaseException:
                cgroup.close()
                raise
            floor = supervisor.zygote.vm_size + 48 * 1024 * 1024
            if self.policy.limits.memory_mb * 1024 * 1024 < floor:
                supervisor.close()
                cgroup.close()
                raise SandboxError(
                    f"limits.memory_mb={self.policy.limits.memory_mb} is below what a worker "
                    f"needs to start (about {floor // (1024 * 1024)} MB)"
                )
            self.worker_config = config
            self._supervisor, self._cgroup = supervisor, cgroup
            self._admission = Admission(max_workers, memory_mb, self._admission_timeout)
            self._tool_threads = ToolThreads(*self._tool_budget)
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
        if self._admission is not None:
            self._admission.close()
        for session in list(self._sessions):
            session.close()
        with self._lock:
            supervisor, self._supervisor = self._supervisor, None
            cgroup, self._cgroup = self._cgroup, None
            threads, self._tool_threads = self._tool_threads, None
            loop_thread, self._loop_thread = self._loop_thread, None
        if supervisor is not None:
            supervisor.close()
        if cgroup is not None:
            cgroup.close()
        if threads is not None:
            threads.close()
        if loop_thread is not None:
            loop_thread.stop()
        _OPEN.discard(self)

    def processes(self) -> set[int]:
        """Pids of the zygotes, the spares and the sessions' workers (for leak checks)."""
        supervisor = self._supervisor
        pids = supervisor.pids() if supervisor is not None else set()
        with self._lock:
            pids |= {s.pid for s in self._sessions if s.pid is not None}
        return pids

    def health(self) -> SandboxHealth:
        """Restarts, workers, spares, sessions and admission figures, now."""
        supervisor = self._supervisor
        with self._lock:
            live = sum(1 for s in self._sessions if s.pid is not None)
            open_sessions = len(self._sessions)
        threads = self._tool_threads
        cgroup = self._cgroup
        return SandboxHealth(
            running=supervisor is not None,
            zygote_pid=supervisor.zygote.pid if supervisor else None,
            zygote_restarts=supervisor.restarts if supervisor else 0,
            last_restart_cause=supervisor.last_restart_cause if supervisor else None,
            live_workers=live,
            spares=supervisor.spare_count() if supervisor else 0,
            sessions_open=open_sessions,
            sessions_served=self._served,
            tool_threads_busy=threads.busy() if threads else 0,
            admission=self._admission.figures() if self._admission else None,
            cgroup=cgroup.state if cgroup else "off: the sandbox is not running",
        )

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
    ) -> Session:
        """A new session in a fresh worker, with ``tools`` callable from its scripts.

        ``gate`` is awaited before every tool call (None = proceed, a string = refuse
        with that reason); ``tool_timeouts`` overrides the policy's per-call timeout for
        some tools (None = no timeout). Async tools and the gate run on ``loop``, or on
        a loop the sandbox keeps in a background thread. Waits for an admission slot
        (see the class docstring); setting ``cancel`` abandons that wait.
        """
        self.start()
        toolset = ToolSet(tools, gate=gate, timeouts=tool_timeouts)
        admission = self._admission
        if admission is None:
            raise SandboxError("the sandbox is closed")
        admission.enter(cancel)
        try:
            session = Session(self, toolset, loop)
        except BaseException:
            admission.leave()
            raise
        session._admission = admission
        with self._lock:
            self._sessions.add(session)
            self._served += 1
        return session

    def _acquire(self) -> tuple[WorkerHandle, float]:
        supervisor = self._supervisor
        if supervisor is None:
            raise SandboxError("the sandbox is closed")
        worker, hello = supervisor.acquire()
        try:
            check_required(self.policy.required_mechanisms(), hello.confinement)
        except SandboxError:
            worker.close()
            raise
        confinement = dict(hello.confinement)
        if self._cgroup is not None:
            confinement["cgroup"] = self._cgroup.state
        self._confinement = confinement
        return worker, hello.process_cpu_s

    def _release(self, worker: WorkerHandle) -> None:
        supervisor = self._supervisor
        if supervisor is not None:
            supervisor.release(worker)

    def _supervisor_check(self) -> None:
        supervisor = self._supervisor
        if supervisor is not None:
            supervisor.check()

    def _threads(self) -> ToolThreads:
        threads = self._tool_threads
        if threads is None:
            raise SandboxError("the sandbox is closed")
        return threads

    @property
    def confinement(self) -> dict[str, str]:
        """Each mechanism's state in this sandbox's workers ("active", "off" or
        "degraded: <why>"), ``cgroup`` included; starts the sandbox and a worker if none
        has run yet."""
        if not self._confinement:
            self.session().close()
        return dict(self._confinement)

    def _forget(self, session: Session) -> None:
        with self._lock:
            if session not in self._sessions:
                return
            self._sessions.discard(session)
        if session._admission is not None:
            session._admission.leave()

    def _async_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop_thread is None:
                self._loop_thread = _LoopThread()
            return self._loop_thread.loop


def open_sandboxes() -> list[Sandbox]:
    """Sandboxes started and not yet closed in this process."""
    return list(_OPEN)


@atexit.register
def _close_all() -> None:
    # Workers must never outlive the program that started them.
    for sandbox in list(_OPEN):
        sandbox.close()


class _LoopThread:
    """An event loop in a daemon thread, for async tools called from sync sessions."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, daemon=True, name="sandbox-async-tools"
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop and close the loop (its selector and self-pipe are three descriptors)."""
        with contextlib.suppress(RuntimeError):
            self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
        if not self._thread.is_alive():
            self.loop.close()
