"""What a worker must never change about the host process and the files outside its mounts.

:class:`HostProcess` snapshots the host's own scheduling and resource state: every
rlimit, the nice value, the CPU affinity and the scheduling policy of its main thread
(whose tid is the pid a script is given). :class:`FileMeta` snapshots one file's
metadata: mode, owner, times and extended attributes. Each compares a later snapshot
with the first, in words; :meth:`HostProcess.restore` puts the host back as it was, so
that one escape does not break the rest of a suite.

:class:`Opener` opens a host file every few milliseconds while a case runs and records
each open that failed or hung (a fanotify permission mark answered with ``FAN_DENY``
or never answered).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import threading
import time
from dataclasses import dataclass
from pathlib import Path

#: Every rlimit once, by its usual name (RLIMIT_OFILE is another name of RLIMIT_NOFILE).
_BY_NUMBER = {
    value: name
    for name in sorted(dir(resource), reverse=True)
    if name.startswith("RLIMIT_") and isinstance(value := getattr(resource, name), int)
}
_RLIMITS = {name: value for value, name in sorted(_BY_NUMBER.items())}


@dataclass(frozen=True)
class HostProcess:
    """One snapshot of the host process's limits, priority, affinity and scheduler."""

    rlimits: tuple[tuple[str, tuple[int, int]], ...]
    nice: int
    affinity: frozenset[int]
    scheduler: int

    @classmethod
    def now(cls) -> HostProcess:
        """The current state (of the main thread, where a setting is per thread)."""
        pid = os.getpid()
        limits = tuple((name, resource.prlimit(pid, which)) for name, which in _RLIMITS.items())
        return cls(
            rlimits=limits,
            nice=os.getpriority(os.PRIO_PROCESS, pid),
            affinity=frozenset(os.sched_getaffinity(pid)),
            scheduler=os.sched_getscheduler(pid),
        )

    def changes(self, later: HostProcess) -> list[str]:
        """What differs in ``later``, in words (empty: nothing)."""
        found = [
            f"the host's {name} became {new} (was {old})"
            for (name, old), (_, new) in zip(self.rlimits, later.rlimits, strict=True)
            if old != new
        ]
        if later.nice != self.nice:
            found.append(f"the host's nice value became {later.nice} (was {self.nice})")
        if later.affinity != self.affinity:
            found.append(f"the host's CPUs became {sorted(later.affinity)}")
        if later.scheduler != self.scheduler:
            found.append(f"the host's scheduling policy became {later.scheduler}")
        return found

    def restore(self) -> list[str]:
        """Put the host back to this snapshot, as far as this process may (a lowered
        hard limit needs CAP_SYS_RESOURCE); returns what still differs."""
        pid = os.getpid()
        for name, value in self.rlimits:
            with contextlib.suppress(OSError, ValueError):
                if resource.prlimit(pid, _RLIMITS[name]) != value:
                    resource.prlimit(pid, _RLIMITS[name], value)
        with contextlib.suppress(OSError):
            os.sched_setscheduler(pid, self.scheduler, os.sched_param(0))
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, pid, self.nice)
        with contextlib.suppress(OSError):
            os.sched_setaffinity(pid, self.affinity)
        return self.changes(HostProcess.now())


@dataclass(frozen=True)
class FileMeta:
    """One file's metadata: mode, owner, modification and change times, xattrs."""

    mode: int
    owner: tuple[int, int]
    mtime_ns: int
    ctime_ns: int
    xattrs: tuple[str, ...]

    @classmethod
    def of(cls, path: Path) -> FileMeta | None:
        """The metadata of ``path`` (None: it is gone)."""
        try:
            st = path.lstat()
        except OSError:
            return None
        try:
            xattrs = tuple(sorted(os.listxattr(path, follow_symlinks=False)))
        except OSError:
            xattrs = ()
        return cls(st.st_mode, (st.st_uid, st.st_gid), st.st_mtime_ns, st.st_ctime_ns, xattrs)


class Opener:
    """Opens ``path`` read-only every ``interval_s`` until closed; records what failed."""

    def __init__(self, path: Path, interval_s: float = 0.05, hang_s: float = 1.0) -> None:
        self.path = path
        self.failures: list[str] = []
        self._interval, self._hang = interval_s, hang_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._open_often, name="probe-open", daemon=True)
        self._thread.start()

    def _open_often(self) -> None:
        while not self._stop.is_set():
            started = time.monotonic()
            try:
                os.close(os.open(self.path, os.O_RDONLY))
            except OSError as exc:
                self.failures.append(f"open failed: {exc.strerror}")
            took = time.monotonic() - started
            if took > self._hang:
                self.failures.append(f"open hung for {took:.1f} s")
            self._stop.wait(self._interval)

    def close(self) -> None:
        """Stop opening; a hung open is given a few seconds to return."""
        self._stop.set()
        self._thread.join(timeout=10)
        if self._thread.is_alive():
            self.failures.append("an open still hangs")


class _SigVal(ctypes.Union):
    _fields_ = [("sival_int", ctypes.c_int), ("sival_ptr", ctypes.c_void_p)]


def can_queue_signal(uid: int | None = None) -> bool:
    """Whether the host's user (or ``uid``, as root) still has its pending-signal budget:
    a worker that spent it would make the host's own ``sigqueue`` and timers fail. A
    forked child blocks a real-time signal and queues it to itself; a refusal counts only
    when the user's count (``SigQ`` in /proc) has reached its limit — ``sigqueue`` also
    fails for a moment when the kernel cannot allocate the entry (memory pressure)."""
    libc = ctypes.CDLL(None, use_errno=True)
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        spent = 0
        try:
            if uid is not None:
                os.setgid(uid)
                os.setuid(uid)
            number = signal.SIGRTMIN + 3
            signal.pthread_sigmask(signal.SIG_BLOCK, [number])
            if libc.sigqueue(ctypes.c_int(os.getpid()), number, _SigVal(0)) != 0:
                spent = int(_pending_signals_spent())
        finally:
            os._exit(spent)
    _, status = os.waitpid(pid, 0)
    return not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 1)


def _pending_signals_spent() -> bool:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("SigQ:"):
                used, limit = line.split()[1].split("/")
                return int(used) >= int(limit)
    return False
