"""A run's tool calls that run as tasks on the tools' event loop: async tools, calls a
gate must approve, and every call made in flight together with others (sync tools
among them wait there for a slot of their session, ``tool_slots.py``). The state is
the run's :class:`~sandbox.host.tool_flight.Flight`'s, which this class is a part of.
"""

from __future__ import annotations

import asyncio
import functools
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from sandbox.host.frames import Call
from sandbox.host.tool_threads import ToolThreads
from sandbox.host.tools import ToolOutcome, ToolSet
from sandbox.policy import Limits as SandboxLimits

#: How long after its timeout a task in flight is given up on by the host itself.
OVERDUE_S = 2.0


class LoopCalls:
    """The task half of a run's calls (mixed into ``Flight``, which owns the state)."""

    __slots__ = ("_on_loop", "_tasks_done")

    _tools: ToolSet
    _limits: SandboxLimits
    _threads: Callable[[], ToolThreads]
    _loop: Callable[[], asyncio.AbstractEventLoop]
    _closed: bool
    _lock: threading.Lock
    _tasks_done: threading.Condition | None
    _tasks: dict[int, asyncio.Task[ToolOutcome] | None]
    _due: dict[int, tuple[float, float, Callable[[], None] | None]]
    _parked: dict[int, float]
    _on_loop: asyncio.AbstractEventLoop | None
    _finished: queue.SimpleQueue[tuple[int, ToolOutcome]]

    def _enter(self, call: Call) -> None:
        raise NotImplementedError

    def _finish(self, call_id: int, outcome: ToolOutcome) -> None:
        raise NotImplementedError

    def _start_task(self, call: Call) -> None:
        """A call as a task on the tools' event loop."""
        self._enter(call)
        timeout = self._tools.timeout_of(call.name, self._limits.tool_timeout_s)
        if timeout is not None:
            self._due[call.id] = (time.perf_counter() + timeout + OVERDUE_S, timeout, None)
        with self._lock:
            if self._tasks_done is None:
                self._tasks_done = threading.Condition(self._lock)
            self._tasks[call.id] = None
        options = {
            "timeout": self._limits.tool_timeout_s,
            "threads": self._threads(),
            "max_result_bytes": self._limits.result_bytes,
        }
        try:
            loop = self._on_loop = self._loop()
            loop.call_soon_threadsafe(self._begin, call, options)
        except RuntimeError as exc:  # the event loop is closed
            outcome = self._tools.refused(
                call.name, call.args, call.keywords, "RuntimeError", f"{call.name}(): {exc}"
            )
            with self._lock:
                del self._tasks[call.id]
            self._finish(call.id, outcome)

    def _begin(self, call: Call, options: dict[str, Any]) -> None:
        """On the event loop: start the call's task (unless the run is over)."""
        with self._lock:
            if self._closed:
                del self._tasks[call.id]
                self._notify_tasks_done()
                return
            running = functools.partial(self._running, call.id)  # sync tools only
            coroutine = self._tools.invoke_async(
                call.name, call.args, call.keywords, running=running, **options
            )
            task = asyncio.get_running_loop().create_task(coroutine)
            self._tasks[call.id] = task
        task.add_done_callback(functools.partial(self._ended, call))

    def _running(self, call_id: int, started: bool) -> None:
        """On the event loop: a sync call waits for a slot of its session (``started``
        False), or has one and starts. Its host deadline waits with it and starts
        again with it: the wait is not part of its timeout. (Each step is one
        GIL-atomic dict operation; a stale entry is dropped by :meth:`_overdue`.)"""
        if not started:
            due = self._due.pop(call_id, None)
            if due is not None:
                self._parked[call_id] = due[1]
            return
        timeout = self._parked.pop(call_id, None)
        if timeout is not None:
            self._due[call_id] = (time.perf_counter() + timeout + OVERDUE_S, timeout, None)

    def _ended(self, call: Call, task: asyncio.Task[ToolOutcome]) -> None:
        """On the event loop: a call's task is over."""
        outcome: ToolOutcome | None = None
        if task.cancelled():
            if not self._closed:  # cancelled by its event loop (shutting down), not by us
                outcome = self._tools.refused(
                    call.name,
                    call.args,
                    call.keywords,
                    "CancelledError",
                    f"{call.name}() was cancelled by the host's event loop",
                )
        else:
            problem = task.exception()
            outcome = (
                task.result()
                if problem is None
                else self._tools.refused(
                    call.name, call.args, call.keywords, type(problem).__name__, str(problem)
                )
            )
        with self._lock:
            self._tasks.pop(call.id, None)
            self._notify_tasks_done()
        if outcome is not None:
            self._finish(call.id, outcome)

    def _notify_tasks_done(self) -> None:
        """Under the lock: a task ended (a closing run may wait for them)."""
        if self._tasks_done is not None:
            self._tasks_done.notify_all()
