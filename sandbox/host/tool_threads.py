"""Threads for sync tools: a hung tool costs its own call, never the sandbox or the host.

A call that times out keeps its thread until the tool returns, which may be never.
The threads are daemon threads (interpreter exit does not wait for a hung one, unlike
``ThreadPoolExecutor``'s), a new one is started when none is idle, and two budgets
bound what calls can hold: the sandbox's threads in all, and each session's
``max_hung_per_session`` slots (its sync calls running plus its hung ones,
``tool_slots.py``). Past either, a call fails with :class:`ToolBudgetExhausted`, which
the script sees as a ``RuntimeError``.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

#: A thread with nothing to do for this long ends (threads come back on demand).
_IDLE_S = 30.0


class ToolBudgetExhausted(RuntimeError):
    """No thread may be started for a sync tool call; the message says which budget."""


_Task = tuple[Callable[[], Any], "Future[Any]"]


class ToolThreads:
    """Daemon threads that run sync tool calls, within a thread budget."""

    def __init__(self, max_threads: int, max_hung_per_session: int) -> None:
        self.max_threads = max_threads
        self.max_hung_per_session = max_hung_per_session
        self._lock = threading.Lock()
        self._idle: list[queue.SimpleQueue[_Task | None]] = []
        self._threads = 0
        self._closed = False

    def submit(self, fn: Callable[[], Any]) -> Future[Any]:
        """Run ``fn`` in a thread (the caller holds one of its session's slots)."""
        future: Future[Any] = Future()
        with self._lock:
            if self._closed:
                raise ToolBudgetExhausted("the sandbox is closed")
            inbox = self._idle.pop() if self._idle else None
            if inbox is None:
                if self._threads >= self.max_threads:
                    raise ToolBudgetExhausted(
                        f"all {self.max_threads} tool threads of this sandbox are busy "
                        "(tools that hang after their timeout keep theirs)"
                    )
                self._threads += 1
                inbox = queue.SimpleQueue()
                threading.Thread(
                    target=self._serve, args=(inbox,), name="sandbox-tool", daemon=True
                ).start()
        inbox.put((fn, future))
        return future

    def _serve(self, inbox: queue.SimpleQueue[_Task | None]) -> None:
        try:
            while True:
                try:
                    task = inbox.get(timeout=_IDLE_S)
                except queue.Empty:
                    with self._lock:
                        if inbox in self._idle:
                            self._idle.remove(inbox)
                            return
                    continue  # handed a task just now: take it
                if task is None:
                    return
                fn, future = task
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(fn())
                    except BaseException as exc:
                        future.set_exception(exc)
                with self._lock:
                    if self._closed:
                        return
                    self._idle.append(inbox)
        finally:
            with self._lock:
                self._threads -= 1

    def busy(self) -> int:
        """Threads running a call now (hung ones included)."""
        with self._lock:
            return self._threads - len(self._idle)

    def close(self) -> None:
        """Let idle threads end; busy ones end when their call returns."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for inbox in idle:
            inbox.put(None)
