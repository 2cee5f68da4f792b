"""What a sandbox's processes use of the machine's memory now, for admission.

Where the sandbox has a cgroup of its own (``cgroup.py``), the kernel counts for it:
``memory.current``, one read. Elsewhere the meter adds up its processes' PSS (the
proportional set size: each page shared by ``n`` processes counts ``1/n`` in each, so
the sum is what they use together) from ``/proc/<pid>/smaps_rollup``. That read walks
the process's page tables — a few hundred microseconds — so a thread of the meter's
own reads each process when it is new and again after it ran (at most once every
``refresh_s``), never while it sits idle, and at most ``per_pass`` a pass: a thousand
idle sessions cost nothing to watch.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

#: How often the meter's thread looks for processes to measure.
PASS_S = 0.25
#: Processes measured in one pass at most (bounds the meter's CPU).
PER_PASS = 32


def pss_bytes(pid: int) -> int | None:
    """``pid``'s proportional set size, None when it is gone or unreadable."""
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as rollup:
            for line in rollup:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


class MemoryMeter:
    """The memory a sandbox's processes (``pids()``) use, kept current by a thread."""

    def __init__(
        self,
        pids: Callable[[], set[int]],
        cgroup_current: Callable[[], int | None] | None = None,
        *,
        refresh_s: float = 1.0,
        per_pass: int = PER_PASS,
    ) -> None:
        self._pids = pids
        self._cgroup_current = cgroup_current
        self._refresh_s = refresh_s
        self._per_pass = per_pass
        self._lock = threading.Lock()
        self._measured: dict[int, tuple[int, float]] = {}  # pid -> (bytes, when)
        self._stale: set[int] = set()  # ran since they were measured
        self._forgotten: set[int] = set()  # gone during the current pass
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def source(self) -> str:
        """Where the figure comes from, in words."""
        if self._cgroup_current is not None:
            return "the sandbox cgroup's memory.current"
        with self._lock:
            count = len(self._measured)
        return f"the PSS of {count} processes (/proc/<pid>/smaps_rollup)"

    def start(self) -> None:
        """Start measuring (a no-op where the cgroup counts)."""
        if self._cgroup_current is None and self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name="sandbox-memory-meter", daemon=True
            )
            self._thread.start()

    def total(self) -> int:
        """Bytes used now, as far as measured (a process not measured yet counts 0)."""
        if self._cgroup_current is not None:
            current = self._cgroup_current()
            if current is not None:
                return current
        with self._lock:
            return sum(size for size, _ in self._measured.values())

    def ran(self, pid: int) -> None:
        """``pid`` ran a script: its use may have changed."""
        with self._lock:
            if pid in self._measured:
                self._stale.add(pid)

    def forget(self, pid: int) -> None:
        """``pid`` is gone (its session closed): it uses nothing any more."""
        with self._lock:
            self._measured.pop(pid, None)
            self._stale.discard(pid)
            self._forgotten.add(pid)

    def measure_now(self) -> None:
        """One pass (the thread's; also for a caller that needs a fresh figure)."""
        live = self._pids()
        now = time.monotonic()
        with self._lock:
            self._forgotten.clear()
            for pid in [pid for pid in self._measured if pid not in live]:
                del self._measured[pid]
            self._stale &= live
            new = [pid for pid in live if pid not in self._measured]
            due = [
                pid
                for pid in self._stale
                if now - self._measured[pid][1] >= self._refresh_s
            ]
        for pid in (new + sorted(due, key=lambda p: self._measured.get(p, (0, 0.0))[1]))[
            : self._per_pass
        ]:
            size = pss_bytes(pid)
            with self._lock:
                self._stale.discard(pid)
                if size is not None and pid not in self._forgotten:
                    self._measured[pid] = (size, time.monotonic())

    def _run(self) -> None:
        while not self._stop.wait(PASS_S):
            try:
                self.measure_now()
            except Exception:  # a figure missing for a pass beats a meter that stops
                continue

    def close(self) -> None:
        """Stop the thread."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(timeout=5)
