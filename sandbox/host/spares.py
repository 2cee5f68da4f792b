"""Spare workers forked ahead of time, so that a new session does not wait for a fork.

A spare taken from a full pool is replaced a moment later (:data:`REFILL_DELAY_S`),
not at once: forked at take time, the replacement competed for the CPU with the new
session's first run on a two-core machine. Spares taken one after another (a pool no
longer full) are replaced at once.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from concurrent.futures import Future

from sandbox.errors import SandboxError
from sandbox.host.workers import WorkerHandle, Zygote

#: How long a replacement waits after a spare was taken (a new session's first run).
REFILL_DELAY_S = 0.003


class WorkerPool:
    """Spare workers forked ahead of time."""

    def __init__(self, zygote: Zygote, spares: int) -> None:
        self._zygote = zygote
        self._target = max(0, spares)
        self._ready: deque[WorkerHandle] = deque()
        self._in_flight = 0
        self._lock = threading.Lock()
        self._closed = False
        self._wanted = threading.Event()
        if self._target:
            threading.Thread(target=self._refill_later, name="sandbox-spares", daemon=True).start()
        self.refill()

    def _refill_later(self) -> None:
        while True:
            self._wanted.wait()
            self._wanted.clear()
            if self._closed:
                return
            time.sleep(REFILL_DELAY_S)
            if self._closed:  # closed while it slept (its wake-up was cleared above)
                return
            self.refill()

    def _arrived(self, future: Future[WorkerHandle]) -> None:
        with self._lock:
            self._in_flight -= 1
            if future.exception() is None:
                worker = future.result()
                if self._closed:
                    worker.close()
                else:
                    self._ready.append(worker)

    def refill(self) -> None:
        """Request forks until ready + in flight reaches the target."""
        with self._lock:
            missing = self._target - len(self._ready) - self._in_flight
            if self._closed or missing <= 0:
                return
            self._in_flight += missing
        for _ in range(missing):
            try:
                future = self._zygote.fork()
            except SandboxError:
                with self._lock:
                    self._in_flight -= 1
                continue
            future.add_done_callback(self._arrived)

    def acquire(self, timeout: float) -> WorkerHandle:
        """A live spare if one is ready, else a freshly forked worker (raises
        :class:`ZygoteFailure` when the zygote cannot fork within ``timeout``)."""
        while True:
            with self._lock:
                worker = self._ready.popleft() if self._ready else None
            if worker is None or worker.alive():
                break
            worker.close()  # died before it was used: its buffered hello means nothing
        if worker is None:
            worker = self._zygote.wait_fork(self._zygote.fork(), timeout)
        with self._lock:
            # Only a pool that was full waits: sessions taken one after another need
            # their replacements at once (the delay, on a loaded machine, drained it).
            was_full = len(self._ready) + self._in_flight >= self._target - 1 > 0
        if was_full:
            self._wanted.set()
        else:
            self.refill()
        return worker

    def pids(self) -> set[int]:
        """Pids of the ready spares that are alive (dead ones are dropped and replaced)."""
        with self._lock:
            dead = [worker for worker in self._ready if not worker.alive()]
            for worker in dead:
                self._ready.remove(worker)
            pids = {worker.pid for worker in self._ready}
        if dead:
            # A spare can die while it waits (killed from outside, or by the OOM killer):
            # it is no process of this pool any more, and a session would not get it.
            for worker in dead:
                worker.close()
            self.refill()
        return pids

    def close(self) -> None:
        """Kill every spare."""
        with self._lock:
            self._closed = True
            spares, self._ready = list(self._ready), deque()
        self._wanted.set()  # its thread ends
        for worker in spares:
            worker.close()
