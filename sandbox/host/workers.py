"""The host's side of the process model: the zygote and its workers.

:class:`Zygote` starts the fork server with an empty environment and talks to it over
a SOCK_SEQPACKET control socket; a reader thread collects ``forked`` and ``exited``
notices. :class:`WorkerHandle` is one worker: its channel, its pid, and the means to
kill its whole process group. Spare workers forked ahead of time are
:class:`~sandbox.host.spares.WorkerPool`'s.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any, cast

import sandbox
from sandbox.errors import SandboxError, ZygoteFailure
from sandbox.protocol import (
    ExitedNotice,
    FailedNotice,
    ForkedNotice,
    FrameReader,
    Op,
    ReadyNotice,
    WorkerConfig,
    ZygoteNotice,
    datagram,
    host_frame_cap,
)

#: How long a starting zygote may take to say it is ready (it imports everything once).
READY_TIMEOUT_S = 30.0

#: What the zygote runs: the package found where this one was imported from, then the
#: fork server's ``main`` (a test starts a zygote this way from a copy of the tree).
_BOOT = (
    "import sys; sys.path.insert(0, {root!r}); from sandbox.worker.zygote import main; "
    "main({fd}, {host})"
)


def package_root() -> str:
    """The directory holding the ``sandbox`` package in use (what the zygote imports)."""
    return str(Path(sandbox.__file__).resolve().parent.parent)


def signal_name(signum: int) -> str:
    """``SIGKILL`` for 9, ``signal 64`` for a number without a name."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def process_state(pid: int) -> str | None:
    """The state letter of ``pid`` from /proc (``T`` stopped, ``Z`` zombie), None if gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0].decode()
    except (OSError, IndexError):
        return None


class WorkerHandle:
    """One forked worker, seen from the host."""

    def __init__(self, pid: int, sock: socket.socket, max_frame: int) -> None:
        self.pid = pid
        self.sock = sock
        self.reader = FrameReader(sock, max_frame)
        self.killed_by_host = False
        #: The zygote that forked this worker (its exit notice comes from there).
        self.origin: Zygote | None = None
        #: Set once its session let it go (see ``Supervisor.release``).
        self.released = False
        self._pidfd: int | None = None
        # A cancelled run kills its worker from the caller's thread while the run's own
        # thread closes it: without this lock the pidfd's number could be closed, reused
        # by the next spare's pidfd, and that spare signalled.
        self._pidfd_lock = threading.Lock()
        with contextlib.suppress(OSError, AttributeError):
            self._pidfd = os.pidfd_open(pid)

    def kill(self) -> None:
        """SIGKILL the worker and everything in its process group."""
        self.killed_by_host = True
        with self._pidfd_lock:
            if self._pidfd is not None:
                with contextlib.suppress(OSError):
                    signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.killpg(self.pid, signal.SIGKILL)

    def alive(self) -> bool:
        """False once the worker has exited (a spare may die before it is used)."""
        with self._pidfd_lock:
            if self._pidfd is not None:
                # poll, not select: with many sessions open, descriptors pass 1024.
                poller = select.poll()
                poller.register(self._pidfd, select.POLLIN)
                return not poller.poll(0)
        return process_state(self.pid) not in (None, "Z", "X")

    def pause(self) -> None:
        """SIGSTOP the worker's process group: nothing runs between two runs."""
        with contextlib.suppress(OSError):
            os.killpg(self.pid, signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT the worker's process group before the next run."""
        with contextlib.suppress(OSError):
            os.killpg(self.pid, signal.SIGCONT)

    def close(self) -> None:
        """Kill the worker (if alive) and release the host's descriptors."""
        self.kill()
        with contextlib.suppress(OSError):
            self.sock.close()
        with self._pidfd_lock:
            if self._pidfd is not None:
                with contextlib.suppress(OSError):
                    os.close(self._pidfd)
                self._pidfd = None

    def cpu_seconds(self) -> float | None:
        """User+system CPU time of the worker, from /proc (None when gone)."""
        try:
            with open(f"/proc/{self.pid}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS

    def memory_bytes(self) -> int | None:
        """Peak resident set size of the worker, from /proc (None when gone)."""
        try:
            with open(f"/proc/{self.pid}/status", "rb") as status:
                for line in status:
                    if line.startswith(b"VmHWM:"):
                        return int(line.split()[1]) * 1024
        except OSError:
            return None
        return None


_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class Zygote:
    """The fork server process and its control channel."""

    def __init__(
        self,
        worker_config: dict[str, Any],
        *,
        start_timeout_s: float = READY_TIMEOUT_S,
        before_start: Callable[[int], None] | None = None,
    ) -> None:
        self._max_frame = host_frame_cap(worker_config["limits"])
        # Close-on-exec, and closed in children this process forks (_close_in_children):
        # only the host holds the control socket, so the zygote sees the host go away.
        host_end, zygote_end = socket.socketpair(
            socket.AF_UNIX, socket.SOCK_SEQPACKET | socket.SOCK_CLOEXEC
        )
        root = package_root()
        boot = _BOOT.format(root=root, fd=zygote_end.fileno(), host=os.getpid())
        # A forked worker's /proc/self/environ shows the zygote's original environment,
        # so the zygote itself starts with none (the OS layer off keeps the host's).
        os_layer = worker_config.get("layers", {}).get("os", True)
        self._proc = subprocess.Popen(
            [sys.executable, "-I", "-X", "utf8", "-c", boot],
            env={} if os_layer else dict(os.environ),
            pass_fds=[zygote_end.fileno()],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            cwd="/",
        )
        zygote_end.close()
        if before_start is not None:
            # Before the zygote forks anything (e.g. moving it into the sandbox's cgroup).
            before_start(self._proc.pid)
        self._ctrl = host_end
        _LIVE.add(self)
        self._send_lock = threading.Lock()
        self._next_id = 0
        self._pending: dict[int, tuple[Future[WorkerHandle], socket.socket]] = {}
        self._exits: dict[int, ExitedNotice] = {}
        self._exit_cond = threading.Condition()
        self._closed = False
        self._shut_by_host = False
        #: Called (in the reader thread) when the zygote dies without being shut down.
        self.on_exit: Callable[[Zygote], None] | None = None
        # Built by SandboxPolicy.worker_config (a test checks it against the shape).
        self._ctrl.sendall(datagram(cast(WorkerConfig, worker_config)))
        notice = self._recv(timeout=start_timeout_s)
        if notice is None or notice.get("op") != Op.READY:
            detail = f"no answer from the zygote within {start_timeout_s:g} s"
            if notice is not None and notice.get("op") == Op.FAILED:
                detail = cast(FailedNotice, notice)["error"]
            self.close(force=True)
            raise SandboxError(f"the sandbox zygote failed to start: {detail}")
        ready = cast(ReadyNotice, notice)
        self.pid = int(ready["pid"])
        self.vm_size = int(ready.get("vm_size", 0))
        #: The zygote's helper processes (its PID namespace's holder), for leak checks.
        self.helper_pids = {int(pid) for pid in ready.get("helpers", [])}
        self._ctrl.settimeout(None)
        self._thread = threading.Thread(target=self._read_loop, name="sandbox-zygote", daemon=True)
        self._thread.start()

    def _recv(self, timeout: float | None) -> ZygoteNotice | None:
        # The zygote never runs untrusted code: its notices are read as they come.
        self._ctrl.settimeout(timeout)
        try:
            data = self._ctrl.recv(65536)
        except (TimeoutError, OSError):
            return None
        return cast(ZygoteNotice, json.loads(data)) if data else None

    def _read_loop(self) -> None:
        while True:
            message = self._recv(timeout=None)
            if message is None:
                break
            op = message.get("op")
            if op == Op.FORKED:
                forked = cast(ForkedNotice, message)
                entry = self._pending.pop(int(forked["id"]), None)
                if entry is not None:
                    future, sock = entry
                    worker = WorkerHandle(int(forked["pid"]), sock, self._max_frame)
                    worker.origin = self
                    future.set_result(worker)
            elif op == Op.EXITED:
                exited = cast(ExitedNotice, message)
                with self._exit_cond:
                    self._exits[int(exited["pid"])] = exited
                    while len(self._exits) > 1024:  # notices nobody asked for
                        del self._exits[next(iter(self._exits))]
                    self._exit_cond.notify_all()
        # The zygote is gone: fail everything still waiting.
        self._closed = True
        for future, sock in self._pending.values():
            sock.close()
            if not future.done():
                future.set_exception(ZygoteFailure(f"the sandbox zygote {self.death_cause()}"))
        self._pending.clear()
        with self._exit_cond:
            self._exit_cond.notify_all()
        if self.on_exit is not None and not self._shut_by_host:
            self.on_exit(self)

    def fork(self) -> Future[WorkerHandle]:
        """Ask for one more worker; the future resolves once it is forked."""
        future: Future[WorkerHandle] = Future()
        host_end, worker_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        with self._send_lock:
            if self._closed:
                host_end.close()
                worker_end.close()
                if self._shut_by_host:
                    raise SandboxError("the sandbox is closed")
                raise ZygoteFailure(f"the sandbox zygote {self.death_cause()}")
            self._next_id += 1
            request_id = self._next_id
            self._pending[request_id] = (future, host_end)
            try:
                request = datagram({"op": Op.FORK, "id": request_id})
                socket.send_fds(self._ctrl, [request], [worker_end.fileno()])
            except OSError as exc:
                self._pending.pop(request_id, None)
                host_end.close()
                raise ZygoteFailure(f"cannot reach the sandbox zygote: {exc}") from None
            finally:
                worker_end.close()
        return future

    def wait_fork(self, future: Future[WorkerHandle], timeout: float) -> WorkerHandle:
        """The forked worker, or :class:`ZygoteFailure` if the zygote died, was stopped
        or did not answer within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                return future.result(min(0.1, max(0.0, deadline - time.monotonic())))
            except concurrent.futures.TimeoutError:
                pass
            state = process_state(self.pid)
            if state in ("T", "t"):
                raise ZygoteFailure("the sandbox zygote is stopped (SIGSTOP) and cannot fork")
            if state in (None, "Z", "X") or self._closed:
                raise ZygoteFailure(f"the sandbox zygote {self.death_cause()}")
            if time.monotonic() >= deadline:
                raise ZygoteFailure(f"the sandbox zygote did not fork within {timeout:g} s")

    def death_cause(self) -> str:
        """How the zygote ended, in words ("was killed by SIGKILL from outside...")."""
        try:
            code = self._proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            return "stopped answering"
        if code < 0:
            return (
                f"was killed by {signal_name(-code)} "
                "(from outside the sandbox: the host never signals it)"
            )
        return f"exited with status {code}"

    def exit_status(self, pid: int, timeout: float) -> ExitedNotice | None:
        """The ``exited`` notice for ``pid``, waiting up to ``timeout`` seconds."""
        with self._exit_cond:
            self._exit_cond.wait_for(lambda: pid in self._exits or self._closed, timeout)
            return self._exits.pop(pid, None)

    def forget(self, pid: int) -> None:
        """Drop a worker's exit notice (the host no longer cares)."""
        with self._exit_cond:
            self._exits.pop(pid, None)

    @property
    def alive(self) -> bool:
        """True while the zygote process runs."""
        return not self._closed and self._proc.poll() is None

    def close(self, *, force: bool = False) -> None:
        """Shut the zygote down; it kills its workers on the way out (and the kernel
        kills them when it dies: they ask for SIGKILL on their parent's death).

        ``force`` (or a stopped zygote, which would never read the request) kills it.
        """
        self._closed = self._shut_by_host = True
        if force or process_state(self._proc.pid) in ("T", "t"):
            with contextlib.suppress(OSError):
                self._proc.kill()
        with contextlib.suppress(OSError):
            self._ctrl.send(datagram({"op": Op.SHUTDOWN}))
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        with contextlib.suppress(OSError):
            self._ctrl.close()


#: The zygotes of this process, for :func:`_close_in_children`.
_LIVE: weakref.WeakSet[Zygote] = weakref.WeakSet()


def _close_in_children() -> None:
    """In a child forked from the host: close every zygote's control socket, which
    would otherwise keep the zygote alive after the host dies (its workers too)."""
    for zygote in list(_LIVE):
        zygote._closed = zygote._shut_by_host = True
        with contextlib.suppress(OSError):
            zygote._ctrl.close()
    _LIVE.clear()


os.register_at_fork(after_in_child=_close_in_children)
