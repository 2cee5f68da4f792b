"""Sandbox: the synchronous host API's entry point.

``Sandbox`` starts the zygote once and keeps spare workers; ``Sandbox.session`` takes
one worker for the session's whole life (see ``session.py``): variables persist
across its runs, and no worker is ever reused for another session.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import threading
import weakref
from collections.abc import Callable, Mapping
from typing import Any, Self

from .messages import parse_worker_message
from .policy import SandboxPolicy
from .process import SandboxError, WorkerHandle, WorkerPool, Zygote
from .requirements import check as check_required
from .session import Session
from .tools import ToolGate, ToolSet
from .wire import ChannelClosed, FrameTooLarge

_OPEN: weakref.WeakSet[Sandbox] = weakref.WeakSet()


class Sandbox:
    """Runs scripts in forked, confined workers under one policy.

    Use as a context manager (or call :meth:`start` and :meth:`close`).
    """

    def __init__(self, policy: SandboxPolicy | str | None = None, *, spares: int = 2) -> None:
        if policy is None:
            policy = SandboxPolicy.preset("default")
        elif isinstance(policy, str):
            policy = SandboxPolicy.load(policy)
        self.policy: SandboxPolicy = policy
        self._spares = spares
        self._zygote: Zygote | None = None
        #: What the zygote was started with (mount paths resolved once, at start).
        self.worker_config: dict[str, Any] = {}
        self._pool: WorkerPool | None = None
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._loop_thread: _LoopThread | None = None
        self._sessions: set[Session] = set()
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
        if self._zygote is not None:
            return self
        config = self.policy.worker_config()
        zygote = Zygote(config)
        self.worker_config = config
        floor = zygote.vm_size + 48 * 1024 * 1024
        if self.policy.limits.memory_mb * 1024 * 1024 < floor:
            zygote.close()
            raise SandboxError(
                f"limits.memory_mb={self.policy.limits.memory_mb} is below what a worker "
                f"needs to start (about {floor // (1024 * 1024)} MB)"
            )
        self._zygote = zygote
        # A spare's staged copy of a writable mount would miss what sessions wrote after
        # it was forked: such workers are forked when a session needs one.
        self._pool = WorkerPool(zygote, 0 if config.get("stage_writes") else self._spares)
        _OPEN.add(self)
        self._executor = concurrent.futures.ThreadPoolExecutor(8, "sandbox-tool")
        if self.policy.required_mechanisms():
            # Refuse now, not at the first session, where a required mechanism is missing.
            try:
                self.session().close()
            except SandboxError:
                self.close()
                raise
        return self

    def close(self) -> None:
        """Kill every session's worker and stop the zygote."""
        with self._lifecycle:
            self._close()

    def _close(self) -> None:
        for session in list(self._sessions):
            session.close()
        if self._pool is not None:
            self._pool.close()
        if self._zygote is not None:
            self._zygote.close()
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
        if self._loop_thread is not None:
            self._loop_thread.stop()
        self._zygote = self._pool = self._executor = self._loop_thread = None
        _OPEN.discard(self)

    def processes(self) -> set[int]:
        """Pids of the zygote, the spares and the sessions' workers (for leak checks)."""
        pids: set[int] = set()
        if self._zygote is not None:
            pids.add(self._zygote.pid)
            pids |= self._zygote.helper_pids
        if self._pool is not None:
            pids |= self._pool.pids()
        with self._lock:
            pids |= {s.pid for s in self._sessions if s.pid is not None}
        return pids

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
    ) -> Session:
        """A new session in a fresh worker, with ``tools`` callable from its scripts.

        ``gate`` is awaited before every tool call (None = proceed, a string = refuse
        with that reason); ``tool_timeouts`` overrides the policy's per-call timeout for
        some tools (None = no timeout). Async tools and the gate run on ``loop``, or on
        a loop the sandbox keeps in a background thread.
        """
        self.start()
        toolset = ToolSet(tools, gate=gate, timeouts=tool_timeouts)
        session = Session(self, toolset, loop)
        with self._lock:
            self._sessions.add(session)
        return session

    def _acquire(self) -> tuple[WorkerHandle, float]:
        if self._pool is None:
            raise SandboxError("the sandbox is closed")
        worker = self._pool.acquire()
        try:
            hello = parse_worker_message(worker.reader.read_frame())
        except (ChannelClosed, FrameTooLarge, OSError, ValueError) as exc:
            worker.close()
            raise SandboxError(f"a new worker failed to start: {exc}") from None
        if hello.op != "hello":
            worker.close()
            raise SandboxError(f"a new worker failed to start: {hello}")
        try:
            check_required(self.policy.required_mechanisms(), hello.confinement)
        except SandboxError:
            worker.close()
            raise
        self._confinement = dict(hello.confinement)
        return worker, hello.process_cpu_s

    @property
    def confinement(self) -> dict[str, str]:
        """Each mechanism's state in this sandbox's workers ("active", "off" or
        "degraded: <why>"); starts the sandbox and a worker if none has run yet."""
        if not self._confinement:
            self.session().close()
        return dict(self._confinement)

    def _forget(self, session: Session) -> None:
        with self._lock:
            self._sessions.discard(session)

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
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(timeout=5)
