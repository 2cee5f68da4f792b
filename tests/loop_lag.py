"""How promptly an event loop answers, told apart from how busy the machine is.

A test on a busy machine cannot assert wall-clock latency: the loop's thread may wait
for a CPU longer than the bound. :class:`LoopLag` pings the loop on a timer and reads
the scheduler statistics of the process's threads around each wait
(``/proc/self/task/*/schedstat``: the CPU time each used, and the time it spent
runnable but waiting for a CPU). A ping's own lateness is the time the loop thread
slept in the wait — but only as far as the process's other threads were not waiting
for a CPU then (a thread holding the interpreter lock while it waits for a core holds
the loop too, which is the machine's doing) — plus the CPU time it worked beyond the
time it waited for a core (work piled up while it waited is the machine's doing too).
A loop blocked in a call while the rest of the process idles, or busy with its own
work on a machine that lets it run, counts in full.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time

Stats = dict[int, tuple[float, float]]  # thread id -> (CPU seconds, seconds queued)


def _thread_stats() -> Stats:
    """Each thread's CPU and run-queue time so far."""
    stats: Stats = {}
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return stats
    for task in tasks:
        try:
            with open(f"/proc/self/task/{task}/schedstat") as stat:
                fields = stat.read().split()
            stats[int(task)] = (int(fields[0]) / 1e9, int(fields[1]) / 1e9)
        except (OSError, ValueError, IndexError):
            continue
    return stats


def own_lateness(late: float, me: int, before: Stats, after: Stats) -> float:
    """The part of ``late`` the loop (thread ``me``) is responsible for."""
    if me not in before or me not in after:
        return late
    cpu = after[me][0] - before[me][0]
    queued = after[me][1] - before[me][1]
    others = sum(after[t][1] - before[t][1] for t in after if t in before and t != me)
    slept = late - queued - cpu
    return min(late, max(0.0, slept - others) + max(0.0, cpu - queued))


class LoopLag:
    """Pings the running loop every ``every_s``; :meth:`worst` tells the result."""

    def __init__(self, every_s: float = 0.01) -> None:
        self.every_s = every_s
        self.samples: list[tuple[float, float]] = []  # (wall lateness, own lateness)
        self._task: asyncio.Task[None] | None = None

    async def _ping(self) -> None:
        me = threading.get_native_id()
        while True:
            due = time.perf_counter() + self.every_s
            before = _thread_stats()
            await asyncio.sleep(self.every_s)
            late = max(0.0, time.perf_counter() - due)
            self.samples.append((late, own_lateness(late, me, before, _thread_stats())))

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
