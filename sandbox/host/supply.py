"""WorkerSupply: what a :class:`~sandbox.host.session.Session` draws its worker from.

A started :class:`~sandbox.host.sandbox.Sandbox` owns one supply (the supervised zygote
and its spares, admission, the cgroup, the threads and the event loop for tools) and
hands it to every session it opens, the way an HTTP client hands its requests a
connection pool: a session knows its supply, never the sandbox. Closing the supply
closes the sessions it still holds and stops everything it started; what it reported
(the latest worker's confinement, the admission figures) stays readable.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from sandbox.errors import SandboxError
from sandbox.host.admission import Admission
from sandbox.host.cgroup import SandboxCgroup
from sandbox.host.descriptors import raise_open_files_limit
from sandbox.host.health import SandboxHealth
from sandbox.host.memory_use import MemoryMeter
from sandbox.host.requirements import check as check_required
from sandbox.host.supervisor import Supervisor
from sandbox.host.tool_threads import ToolThreads
from sandbox.host.workers import WorkerHandle
from sandbox.policy import SandboxPolicy

#: Processes the cgroup admits beyond the workers and spares (the zygote, its helpers).
_SPARE_PIDS = 8
#: What a worker needs beyond the zygote's own mappings to start at all.
_START_HEADROOM = 48 * 1024 * 1024


class Holder(Protocol):
    """What the supply keeps of a session that holds one of its slots."""

    @property
    def pid(self) -> int | None: ...

    def close(self) -> None: ...


H = TypeVar("H", bound=Holder)
T = TypeVar("T")

#: Threads that start workers for the async API (a start waits on the zygote, bounded
#: by ``start_timeout_s``; it never waits on another session). Few: each competes with
#: the event loop for the interpreter, and with 200 users on one loop two ran as many
#: scripts a second as eight, the loop answering sooner.
_START_THREADS = 2


@dataclass(frozen=True)
class FreshWorker:
    """A worker just taken from the supply: confined, ready, not yet told anything."""

    handle: WorkerHandle
    #: Each mechanism's state in this worker, the sandbox's cgroup included.
    confinement: dict[str, str]
    #: The worker's CPU clock when it said hello.
    process_cpu_s: float
    #: The worker's descriptors of its writable mounts' private upper layers.
    layers: tuple[int, ...] = ()


@dataclass(frozen=True)
class SupplyOptions:
    """How a sandbox's supply is sized (see :class:`~sandbox.host.sandbox.Sandbox`)."""

    spares: int
    max_workers: int
    memory_budget_mb: int | None
    admission_timeout_s: float
    start_timeout_s: float
    tool_threads: int
    hung_tools_per_session: int
    session_request_mb: int


class WorkerSupply:
    """Workers, admission slots and tool machinery for one started sandbox."""

    def __init__(self, policy: SandboxPolicy, options: SupplyOptions) -> None:
        """Start the zygote and fork the first spares (raises :class:`SandboxError`)."""
        self.policy = policy
        #: What the zygote was started with (mount paths resolved once, here).
        self.worker_config: dict[str, Any] = policy.worker_config()
        #: The latest worker's confinement report (empty until a worker started).
        self.confinement: dict[str, str] = {}
        #: The host's open-files soft limit, raised at start (each session holds some).
        self.open_files_limit = raise_open_files_limit()
        memory_mb = options.memory_budget_mb
        cgroup = SandboxCgroup.create(
            None if memory_mb is None else memory_mb << 20,
            options.max_workers + options.spares + _SPARE_PIDS,
        )
        try:
            supervisor = Supervisor(
                self.worker_config,
                options.spares,
                start_timeout_s=options.start_timeout_s,
                before_start=cgroup.adopt,
            )
        except BaseException:
            cgroup.close()
            raise
        floor = supervisor.zygote.vm_size + _START_HEADROOM
        if policy.limits.memory_mb * 1024 * 1024 < floor:
            supervisor.close()
            cgroup.close()
            raise SandboxError(
                f"limits.memory_mb={policy.limits.memory_mb} is below what a worker "
                f"needs to start (about {floor // (1024 * 1024)} MB)"
            )
        self._supervisor: Supervisor | None = supervisor
        self._cgroup: SandboxCgroup | None = cgroup
        self._meter = MemoryMeter(
            self.processes, cgroup.memory_current if cgroup.path is not None else None
        )
        self._admission = Admission(
            options.max_workers,
            memory_mb,
            options.admission_timeout_s,
            request_mb=options.session_request_mb,
            used=self._meter.total,
            used_by=lambda: self._meter.source,
        )
        self._tool_threads: ToolThreads | None = ToolThreads(
            options.tool_threads, options.hung_tools_per_session
        )
        self._loop_thread: _LoopThread | None = None
        self._starters = concurrent.futures.ThreadPoolExecutor(
            _START_THREADS, thread_name_prefix="sandbox-start"
        )
        self._held: set[Holder] = set()
        self._lock = threading.Lock()
        self._meter.start()

    @property
    def closed(self) -> bool:
        """True once :meth:`close` has begun."""
        return self._supervisor is None

    # -- slots -------------------------------------------------------------------------
    def admit(self, open_session: Callable[[], H], cancel: threading.Event | None) -> H:
        """Wait for a slot (see :class:`~sandbox.host.admission.Admission`), then hold
        what ``open_session`` makes in it until :meth:`leave`; the slot is given back at
        once if it raises."""
        self._admission.enter(cancel)
        try:
            held = open_session()
        except BaseException:
            self._admission.leave()
            raise
        with self._lock:
            self._held.add(held)
        return held

    async def admit_async(self, open_session: Callable[[], H]) -> H:
        """:meth:`admit` for the event loop: the wait for a slot holds no thread, the
        worker's start one of the supply's own; cancelling it leaves nothing behind."""
        await self._admission.enter_async()
        start = asyncio.ensure_future(self.in_start_thread(open_session))
        try:
            held = await asyncio.shield(start)
        except asyncio.CancelledError:
            await asyncio.wait([start])  # a worker being started is then ended
            if not start.cancelled() and start.exception() is None:
                start.result().close()
            self._admission.leave()
            raise
        except BaseException:
            self._admission.leave()
            raise
        with self._lock:
            self._held.add(held)
        return held

    async def in_start_thread(self, fn: Callable[[], T]) -> T:
        """``fn()`` (a worker's start, a zygote's replacement) on one of the supply's own
        threads, never the caller's default executor."""
        return await asyncio.get_running_loop().run_in_executor(self._starters, fn)

    def leave(self, held: Holder) -> None:
        """``held`` has closed: give its slot back (once, however often it is called)."""
        with self._lock:
            if held not in self._held:
                return
            self._held.discard(held)
        self._admission.leave()

    # -- workers -----------------------------------------------------------------------
    def acquire(self) -> FreshWorker:
        """A live worker whose confinement meets the policy's ``require`` (else
        :class:`~sandbox.errors.RequirementNotMet`)."""
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
        cgroup = self._cgroup
        if cgroup is not None:
            confinement["cgroup"] = cgroup.state
        self.confinement = confinement
        return FreshWorker(worker, confinement, hello.process_cpu_s, tuple(hello.layers))

    def ran(self, worker: WorkerHandle) -> None:
        """``worker`` ran a script: its memory use may have changed."""
        self._meter.ran(worker.pid)

    def release(self, worker: WorkerHandle) -> None:
        """A session is done with ``worker`` (already killed)."""
        self._meter.forget(worker.pid)
        supervisor = self._supervisor
        if supervisor is not None:
            supervisor.release(worker)

    def check_zygote(self) -> None:
        """Replace the zygote now if it has died (a session's worker died with it)."""
        supervisor = self._supervisor
        if supervisor is not None:
            supervisor.check()

    # -- tools -------------------------------------------------------------------------
    def tool_threads(self) -> ToolThreads:
        """The threads sync tools run in."""
        threads = self._tool_threads
        if threads is None:
            raise SandboxError("the sandbox is closed")
        return threads

    def async_loop(self) -> asyncio.AbstractEventLoop:
        """The loop async tools of sync sessions run on (started on first use)."""
        with self._lock:
            if self._loop_thread is None:
                self._loop_thread = _LoopThread()
            return self._loop_thread.loop

    # -- figures and shutdown ----------------------------------------------------------
    def processes(self) -> set[int]:
        """Pids of the zygotes, the spares and the held sessions' workers."""
        supervisor = self._supervisor
        pids = supervisor.pids() if supervisor is not None else set()
        with self._lock:
            pids |= {held.pid for held in self._held if held.pid is not None}
        return pids

    def health(self, sessions_served: int) -> SandboxHealth:
        """The figures of :meth:`Sandbox.health <sandbox.host.sandbox.Sandbox.health>`."""
        supervisor, threads, cgroup = self._supervisor, self._tool_threads, self._cgroup
        with self._lock:
            live = sum(1 for held in self._held if held.pid is not None)
            open_sessions = len(self._held)
        return SandboxHealth(
            running=supervisor is not None,
            zygote_pid=supervisor.zygote.pid if supervisor else None,
            zygote_restarts=supervisor.restarts if supervisor else 0,
            last_restart_cause=supervisor.last_restart_cause if supervisor else None,
            live_workers=live,
            spares=supervisor.spare_count() if supervisor else 0,
            sessions_open=open_sessions,
            sessions_served=sessions_served,
            tool_threads_busy=threads.busy() if threads else 0,
            admission=self._admission.figures(),
            cgroup=cgroup.state if cgroup else "off: the sandbox is not running",
            open_files_limit=self.open_files_limit,
        )

    def close(self) -> None:
        """Close every held session, kill the spares and stop the zygote."""
        self._admission.close()
        self._meter.close()
        with self._lock:
            held = list(self._held)
        for session in held:
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
        self._starters.shutdown(wait=False, cancel_futures=True)


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
