"""Reading /proc: the few process facts the probe needs (Linux only, like the sandbox)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class ProcInfo:
    """One process as /proc shows it now."""

    pid: int
    ppid: int
    pgid: int
    sid: int
    state: str
    start_ticks: int
    cpu_s: float
    cmdline: str

    @property
    def identity(self) -> tuple[int, int]:
        """(pid, start time): stays the same only for the same process."""
        return self.pid, self.start_ticks


def read(pid: int | str) -> ProcInfo | None:
    """The process ``pid`` (or ``"self"``), or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            head, _, tail = stat.read().rpartition(b")")
        with open(f"/proc/{pid}/cmdline", "rb") as cmd:
            cmdline = cmd.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
    except OSError:
        return None
    f = tail.split()
    return ProcInfo(
        pid=int(head.split(b"(", 1)[0]),
        ppid=int(f[1]),
        pgid=int(f[2]),
        sid=int(f[3]),
        state=f[0].decode(),
        start_ticks=int(f[19]),
        cpu_s=(int(f[11]) + int(f[12])) / _TICKS,
        cmdline=cmdline,
    )


def processes() -> Iterator[ProcInfo]:
    """Every process visible now."""
    for name in os.listdir("/proc"):
        if name.isdigit():
            info = read(name)
            if info is not None:
                yield info


def boot_ticks(wall_time: float) -> int:
    """A wall-clock time as a process start time (clock ticks since boot)."""
    with open("/proc/uptime") as uptime:
        up = float(uptime.read().split()[0])
    return int((up - (time.time() - wall_time)) * _TICKS)


def rss_bytes(pid: int | str = "self") -> int:
    """Resident memory of a process (0 when unknown)."""
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


class CpuSampler:
    """A process's CPU time since it was started, sampled every 50 ms from another
    thread until :meth:`stop` (what it used before being killed is seen too)."""

    def __init__(self, pid: int | None) -> None:
        self._pid = pid
        first = read(pid) if pid is not None else None
        self._start = first.cpu_s if first is not None else 0.0
        self.used = 0.0
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="probe-cpu", daemon=True)
        if first is not None:
            self._thread.start()

    def _loop(self) -> None:
        assert self._pid is not None
        while not self._stopped.wait(0.05):
            info = read(self._pid)
            if info is None:
                return
            self.used = max(self.used, info.cpu_s - self._start)

    def stop(self) -> float:
        """Stop sampling; the most CPU seen used."""
        self._stopped.set()
        if self._thread.is_alive():
            self._thread.join(1)
        return self.used


def namespace_pid(pid: int) -> int | None:
    """``pid``'s number inside its own PID namespace, if that is a child of this one."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("NSpid:"):
                    numbers = line.split()[1:]
                    return int(numbers[-1]) if len(numbers) > 1 else None
    except (OSError, ValueError):
        return None
    return None
