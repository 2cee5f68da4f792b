"""One session's share of the tool threads: its sync calls running plus its hung ones.

A sync tool call holds one of its session's ``hung_tools_per_session`` slots from when it
is handed to a tool thread until that thread is done with it — after its timeout too,
for as long as it hangs. So a session never holds more tool threads than that, however
many calls it has in flight at once. A call in flight beyond the slots waits for one, in
the order the script made the calls (waiting is not part of its timeout). Once every slot
is held by a hung call, a new sync call fails at once with
:class:`~sandbox.host.tool_threads.ToolBudgetExhausted`, and so do the calls waiting.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from sandbox.host.tool_threads import ToolBudgetExhausted


class Slot:
    """One sync call's hold on a tool thread of its session."""

    __slots__ = ("hung", "released")

    def __init__(self) -> None:
        self.hung = False
        self.released = False


class _Waiter:
    __slots__ = ("future", "loop", "slot")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.future: asyncio.Future[Slot] = loop.create_future()
        self.slot: Slot | None = None


class ToolSlots:
    """The slots of one session (thread-safe: freed from tool threads)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held = 0
        self._hung = 0
        self._budget = 0
        self._waiters: deque[_Waiter] = deque()

    def take(self, budget: int) -> Slot:
        """A slot now, for a plain call (nothing else of its run is running)."""
        with self._lock:
            self._budget = budget
            self._check()
            if self._held >= budget or self._waiters:
                raise ToolBudgetExhausted(
                    f"{self._held} tool calls of this session hold its {budget} tool "
                    "threads (running, or still running after their timeout)"
                )
            self._held += 1
            return Slot()

    async def wait(self, budget: int, waiting: Callable[[bool], None] | None = None) -> Slot:
        """A slot once one is free (first come, first served), for a call in flight;
        ``waiting(False)`` is called if it has to wait."""
        with self._lock:
            self._budget = budget
            self._check()
            if self._held < budget and not self._waiters:
                self._held += 1
                return Slot()
            waiter = _Waiter(asyncio.get_running_loop())
            self._waiters.append(waiter)
        if waiting is not None:
            waiting(False)
        try:
            return await waiter.future
        except asyncio.CancelledError:
            with self._lock:
                granted = waiter.slot
                if granted is None and waiter in self._waiters:
                    self._waiters.remove(waiter)
            if granted is not None:
                self.release(granted)
            raise

    def bind(self, slot: Slot, future: Future[Any]) -> None:
        """Free ``slot`` once the thread is done with ``future`` (or it was cancelled)."""
        future.add_done_callback(lambda _: self.release(slot))

    def hang(self, slot: Slot) -> None:
        """``slot``'s call timed out or was abandoned, but still runs in its thread."""
        with self._lock:
            if slot.released or slot.hung:
                return
            slot.hung = True
            self._hung += 1
            settled = self._settle()
        _notify(settled, self)

    def release(self, slot: Slot) -> None:
        """Give ``slot`` back (once, however often it is called)."""
        with self._lock:
            if slot.released:
                return
            slot.released = True
            self._held -= 1
            if slot.hung:
                self._hung -= 1
            settled = self._settle()
        _notify(settled, self)

    def _check(self) -> None:
        if self._hung >= self._budget:
            raise ToolBudgetExhausted(
                f"{self._hung} earlier tool calls of this session are still running "
                f"after their timeout (at most {self._budget}); no more sync tool calls "
                "can run until one of them returns"
            )

    def _settle(self) -> list[tuple[_Waiter, Slot | Exception]]:
        """Under the lock: the waiters that get a slot now, or fail now."""
        settled: list[tuple[_Waiter, Slot | Exception]] = []
        while self._waiters:
            try:
                self._check()
            except ToolBudgetExhausted as exc:
                settled.extend((waiter, exc) for waiter in self._waiters)
                self._waiters.clear()
                break
            if self._held >= self._budget:
                break
            waiter = self._waiters.popleft()
            self._held += 1
            waiter.slot = Slot()
            settled.append((waiter, waiter.slot))
        return settled


def _notify(settled: list[tuple[_Waiter, Slot | Exception]], slots: ToolSlots) -> None:
    """Tell each waiter on its own event loop (outside the lock: it may be this thread)."""
    for waiter, outcome in settled:
        try:
            waiter.loop.call_soon_threadsafe(_resolve, waiter.future, outcome)
        except RuntimeError:  # the loop is closed: its task is gone, the slot is free
            if isinstance(outcome, Slot):
                slots.release(outcome)


def _resolve(future: asyncio.Future[Slot], outcome: Slot | Exception) -> None:
    with contextlib.suppress(asyncio.InvalidStateError):
        if isinstance(outcome, Slot):
            future.set_result(outcome)
        else:
            future.set_exception(outcome)
