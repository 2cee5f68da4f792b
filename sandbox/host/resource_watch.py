"""What a run costs, as the host measures it: CPU from the kernel, peak memory, on a timer.

A worker's own figures are claims: a plain-Python script can forge its ``done`` frame,
pace the channel so that the run loop is never idle, or burn CPU while the host serves
a tool call. So one watcher thread per process reads the kernel's count of every
running run's worker (``/proc/<pid>/stat`` and ``schedstat``) every
:data:`TICK_S`, whatever the run loop is doing, and kills a worker past its run's
``cpu_hard_s`` then and there (its process group, through the handle's ``kill``). The
run loop asks :meth:`RunWatch.exceeded` on each iteration, and takes ``cpu_s`` and
``peak_memory_bytes`` for the ``Execution`` from :meth:`RunWatch.finish`. The kernel
stops a worker on its own too, at ``session_cpu_s`` (``RLIMIT_CPU``).

The interface is small on purpose: :func:`watch` when a run starts, ``exceeded`` on
every iteration of whatever loop drives the run, ``finish`` when it ends.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from sandbox.execution import ErrorCode

#: How often the watcher reads each running worker's CPU time.
TICK_S = 0.02
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float | None:
    """CPU time of ``pid`` (None once it is gone): its threads' user plus system time,
    counted in clock ticks, or its main thread's to the nanosecond where that is more
    (a worker has one thread; a short run then reads more than 0)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    ticks = (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    try:
        with open(f"/proc/{pid}/schedstat", "rb") as schedstat:
            return max(ticks, int(schedstat.read().split()[0]) / 1e9)
    except (OSError, IndexError, ValueError):
        return ticks


def peak_memory_bytes(pid: int) -> int | None:
    """Peak resident set size of ``pid`` (None once it is gone)."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


@dataclass(frozen=True)
class RunCosts:
    """A run's costs as the host measured them."""

    cpu_s: float
    peak_memory_bytes: int


class RunWatch:
    """One run's worker, watched: its CPU since the run began, against its limit."""

    def __init__(self, pid: int, cpu_limit_s: float, kill: Callable[[], None]) -> None:
        self.pid = pid
        self._limit = cpu_limit_s
        self._kill = kill
        self._start = cpu_seconds(pid) or 0.0
        self._last = self._start
        self._exceeded: ErrorCode | None = None
        self._costs: RunCosts | None = None

    def exceeded(self) -> ErrorCode | None:
        """The limit the run went past (its worker is being killed), or None."""
        return self._exceeded

    def _read(self) -> float | None:
        now = cpu_seconds(self.pid)
        if now is not None:
            self._last = max(self._last, now)
        return now

    def tick(self) -> bool:
        """Read the worker's CPU now; kill it past its limit. False once done with it."""
        now = self._read()
        if now is None or self._costs is not None:
            return False  # gone, or its run is over (its worker may be released)
        if now - self._start > self._limit:
            self._exceeded = ErrorCode.CPU_LIMIT
            self._kill()
            return False
        return True

    def finish(self) -> RunCosts:
        """Stop watching; the run's CPU time and the worker's peak memory, read now (or
        as last seen, if the worker is gone). The same figures on every call."""
        if self._costs is None:
            _WATCHER.forget(self)
            self._read()
            self._costs = RunCosts(
                cpu_s=round(max(0.0, self._last - self._start), 6),
                peak_memory_bytes=peak_memory_bytes(self.pid) or 0,
            )
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
            if self._thread is None or not self._thread.is_alive():
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
                while not self._runs:
                    self._lock.wait()
                runs = list(self._runs)
            for run in runs:
                if not run.tick():
                    self.forget(run)
            time.sleep(TICK_S)


_WATCHER = _Watcher()


def watch(pid: int, cpu_limit_s: float, kill: Callable[[], None]) -> RunWatch:
    """Start watching the run now beginning in worker ``pid``."""
    run = RunWatch(pid, cpu_limit_s, kill)
    _WATCHER.add(run)
    return run
