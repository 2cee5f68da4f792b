"""How promptly an event loop answers, told apart from how busy the machine is.

A test on a busy machine cannot assert wall-clock latency: the loop's thread may wait
for a CPU longer than the bound. :class:`LoopLag` pings the loop on a timer and reads
the loop thread's scheduler statistics around each wait (``/proc/thread-self/
schedstat``: the time it spent runnable but waiting for a CPU). A ping's own lateness
is its lateness on the wall clock less that wait: what is left is the loop blocked in a
call, or busy with its own work — what the loop is responsible for.
"""

from __future__ import annotations

import asyncio
import time


def _run_delay() -> float | None:
    """Seconds this thread has waited on a run queue so far, None where unknown."""
    try:
        with open("/proc/thread-self/schedstat") as stat:
            return int(stat.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return None


class LoopLag:
    """Pings the running loop every ``every_s``; :meth:`worst` tells the result."""

    def __init__(self, every_s: float = 0.01) -> None:
        self.every_s = every_s
        self.samples: list[tuple[float, float]] = []  # (wall lateness, own lateness)
        self._task: asyncio.Task[None] | None = None

    async def _ping(self) -> None:
        while True:
            due = time.perf_counter() + self.every_s
            delay = _run_delay()
            await asyncio.sleep(self.every_s)
            late = max(0.0, time.perf_counter() - due)
            after = _run_delay()
            queued = after - delay if delay is not None and after is not None else 0.0
            self.samples.append((late, max(0.0, late - queued)))

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._ping())

    async def stop(self) -> None:
        assert self._task is not None
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass

    def worst(self) -> tuple[float, float]:
        """(the worst lateness the loop is responsible for, the worst on the wall)."""
        own = max((own for _, own in self.samples), default=0.0)
        wall = max((late for late, _ in self.samples), default=0.0)
        return own, wall
