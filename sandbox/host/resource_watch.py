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
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from sandbox.execution import ErrorCode

#: How often the watcher reads each running worker's CPU time.
TICK_S = 0.02
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class _Meter:
    """A process's /proc files, opened once and read again with ``pread``: a run reads
    them when it starts and ends, and opening them costs several times the read."""

    NAMES = ("stat", "schedstat", "status")

    def __init__(self, pid: int) -> None:
        self.fds: dict[str, int] = {}
        for name in self.NAMES:
            try:
                self.fds[name] = os.open(f"/proc/{pid}/{name}", os.O_RDONLY | os.O_CLOEXEC)
            except OSError:
                if name == "stat":
                    self.close()
                    raise

    def read(self, name: str) -> bytes | None:
        fd = self.fds.get(name)
        try:
            return os.pread(fd, 4096, 0) if fd is not None else None
        except OSError:  # ESRCH: the process is gone (a new one with its pid is not it)
            return None

    def close(self) -> None:
        for fd in self.fds.values():
            os.close(fd)
        self.fds.clear()


#: Meters of the workers measured lately, the least recently used first.
_METERS: OrderedDict[int, _Meter] = OrderedDict()
_METERS_LOCK = threading.Lock()
_MAX_METERS = 16


def _read(pid: int, name: str) -> bytes | None:
    """``/proc/<pid>/<name>`` now, through a kept descriptor (None once it is gone)."""
    with _METERS_LOCK:
        meter = _METERS.pop(pid, None)
        if meter is None:
            try:
                meter = _Meter(pid)
            except OSError:
                return None
        data = meter.read(name)
        if data is None and name == "stat":
            meter.close()  # gone: a later process with this pid gets a meter of its own
            return None
        _METERS[pid] = meter
        while len(_METERS) > _MAX_METERS:
            _METERS.popitem(last=False)[1].close()
        return data


def cpu_seconds(pid: int) -> float | None:
    """CPU time of ``pid`` (None once it is gone): its threads' user plus system time,
    counted in clock ticks, or its main thread's to the nanosecond where that is more
    (a worker has one thread; a short run then reads more than 0)."""
    stat = _read(pid, "stat")
    if stat is None:
        return None
    try:
        fields = stat.rsplit(b")", 1)[1].split()
        ticks = (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS
    except (IndexError, ValueError):
        return None
    try:
        return max(ticks, int((_read(pid, "schedstat") or b"").split()[0]) / 1e9)
    except (IndexError, ValueError):
        return ticks


def peak_memory_bytes(pid: int) -> int | None:
    """Peak resident set size of ``pid`` (None once it is gone)."""
    status = _read(pid, "status")
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
