"""What a run costs, as the host measures it: CPU from the kernel, peak memory, on a timer.

A worker's own figures are claims: a plain-Python script can forge its ``done`` frame,
pace the channel so that the run loop is never idle, or burn CPU while the host serves
a tool call. So one watcher thread per process reads the kernel's count of every
running run's worker (``/proc/<pid>/stat`` and ``schedstat``) every
:data:`TICK_S`, whatever the run loop is doing, and kills a worker past its run's
``cpu_hard_s`` then and there (its process group, through the handle's ``kill``). The
run loop asks :meth:`RunWatch.check` on each iteration, and takes ``cpu_s`` and
``peak_memory_bytes`` for the ``Execution`` from :meth:`RunWatch.finish`. The kernel
stops a worker on its own too, at ``session_cpu_s`` (``RLIMIT_CPU``).

The interface is small on purpose: :func:`watch` when a run starts, ``check`` on
every iteration of whatever loop drives the run, ``finish`` when it ends, and
:func:`release` when the session lets its worker go. A worker's /proc files are opened
once and read again with ``pread`` (opening them costs several times the read: about
55 µs a run for both reads, with the machine loaded); :func:`release` closes them, or
else the worker's handle going away does.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from sandbox.execution import ErrorCode

#: How often the watcher reads each running worker's CPU time.
TICK_S = 0.02
#: How long the watcher's thread waits without a run before it ends.
IDLE_S = 2.0
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class _Meter:
    """A process's /proc files, opened once and read again with ``pread``: a run reads
    them when it starts and ends, and opening them costs several times the read."""

    NAMES = ("stat", "schedstat", "status")

    def __init__(self, pid: int) -> None:
        self.lock = threading.Lock()
        self.fds: dict[str, int] = {}
        for name in self.NAMES:
            try:
                self.fds[name] = os.open(f"/proc/{pid}/{name}", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                if name == "stat":
                    self.close()
                    raise

    def read(self, name: str) -> bytes | None:
        with self.lock:  # never a descriptor closed (and its number reused) meanwhile
            fd = self.fds.get(name)
            try:
                return os.pread(fd, 4096, 0) if fd is not None else None
            except OSError:  # ESRCH: the process is gone (a new one with its pid is not it)
                return None

    def close(self) -> None:
        with self.lock:
            for fd in self.fds.values():
                os.close(fd)
            self.fds.clear()


class Watched(Protocol):
    """A worker as the watch needs it (``WorkerHandle``): its pid, and the means to kill
    its process group."""

    @property
    def pid(self) -> int: ...

    def kill(self) -> None: ...


#: Each watched worker's meter, closed by :func:`release`, or when its handle goes away.
_METERS: weakref.WeakKeyDictionary[Any, _Meter] = weakref.WeakKeyDictionary()
_METERS_LOCK = threading.Lock()


def _meter(worker: Watched) -> _Meter | None:
    with _METERS_LOCK:
        meter = _METERS.get(worker)
        if meter is None:
            try:
                meter = _Meter(worker.pid)
            except OSError:
                return None
            _METERS[worker] = meter
            weakref.finalize(worker, meter.close)
        return meter


def release(worker: Watched) -> None:
    """Close ``worker``'s kept descriptors (its session is done with it)."""
    with _METERS_LOCK:
        meter = _METERS.pop(worker, None)
    if meter is not None:
        meter.close()


def _read(meter: _Meter | None, name: str) -> bytes | None:
    return meter.read(name) if meter is not None else None


def cpu_seconds(meter: _Meter | None) -> float | None:
    """CPU time of the metered process (None once it is gone): its threads' user plus
    system time, counted in clock ticks, or its main thread's to the nanosecond where
    that is more (a worker has one thread; a short run then reads more than 0)."""
    stat = _read(meter, "stat")
    if stat is None:
        return None
    try:
        fields = stat.rsplit(b")", 1)[1].split()
        ticks = (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    except (IndexError, ValueError):
        return None
    try:
        return max(ticks, int((_read(meter, "schedstat") or b"").split()[0]) / 1e9)
    except (IndexError, ValueError):
        return ticks


def peak_memory_bytes(meter: _Meter | None) -> int | None:
    """Peak resident set size of the metered process (None once it is gone)."""
    status = _read(meter, "status")
    if status is None:
        return None
    start = status.find(b"\nVmHWM:")
    if start < 0:
        return None
    try:
        return int(status[start + 7 :].split(None, 2)[0]) * 1024
    except (IndexError, ValueError):
        return None


@dataclass(frozen=True)
class RunCosts:
    """A run's costs as the host measured them."""

    cpu_s: float
    peak_memory_bytes: int


class RunWatch:
    """One run's worker, watched: its CPU since the run began, against its limit."""

    def __init__(self, worker: Watched, cpu_limit_s: float) -> None:
        self.pid = worker.pid
        self._limit = cpu_limit_s
        self._meter: _Meter | None = _meter(worker)
        self._kill: Callable[[], None] | None = worker.kill
        self._start = cpu_seconds(self._meter) or 0.0
        self._last = self._start
        self._exceeded: ErrorCode | None = None
        self._costs: RunCosts | None = None

    #: How often the run loop asks :meth:`check` (the watch's own thread reads faster).
    interval_s = 0.05

    def check(self) -> ErrorCode | None:
        """The limit the run went past (its worker is being killed), or None."""
        return self._exceeded

    def _read(self) -> float | None:
        now = cpu_seconds(self._meter)
        if now is not None:
            self._last = max(self._last, now)
        return now

    def tick(self) -> bool:
        """Read the worker's CPU now; kill it past its limit. False once done with it."""
        now = self._read()
        kill = self._kill
        if now is None or kill is None:
            return False  # gone, or its run is over (its worker may be released)
        if now - self._start > self._limit:
            self._exceeded = ErrorCode.CPU_LIMIT
            kill()
            return False
        return True

    def finish(self) -> RunCosts:
        """Stop watching; the run's CPU time and the worker's peak memory, read now (or
        as last seen, if the worker is gone). The same figures on every call."""
        if self._costs is None:
            self._kill = None  # nothing here keeps the worker's handle (and meter) alive
            _WATCHER.forget(self)
            self._read()
            self._costs = RunCosts(
                cpu_s=round(max(0.0, self._last - self._start), 6),
                peak_memory_bytes=peak_memory_bytes(self._meter) or 0,
            )
            self._meter = None
        return self._costs


class _Watcher:
    """The one thread that reads every watched worker's CPU time, every tick."""

    def __init__(self) -> None:
        self._runs: set[RunWatch] = set()
        self._lock = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, run: RunWatch) -> None:
        with self._lock:
            self._runs.add(run)
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._loop, name="sandbox-resource-watch", daemon=True
                )
                self._thread.start()
            self._lock.notify()

    def forget(self, run: RunWatch) -> None:
        with self._lock:
            self._runs.discard(run)

    def _loop(self) -> None:
        while True:
            with self._lock:
                # Idle: the thread waits a while for the next run (runs of a session
                # follow one another), then ends; the next run starts another.
                if not self._runs and not self._lock.wait_for(lambda: self._runs, IDLE_S):
                    self._thread = None
                    return
                runs = list(self._runs)
            for run in runs:
                if not run.tick():
                    self.forget(run)
            time.sleep(TICK_S)


_WATCHER = _Watcher()


def watch(worker: Watched, cpu_limit_s: float) -> RunWatch:
    """Start watching the run now beginning in ``worker``."""
    run = RunWatch(worker, cpu_limit_s)
    _WATCHER.add(run)
    return run
