"""The host's side of one run's tool calls: ids checked, several calls in flight at once.

The worker numbers its calls 1, 2, 3… in each run (``tool_channel.py``); anything else
(an id reused, skipped or never issued) is a protocol violation that ends the worker.
A plain call is answered before the next frame is read, as ever; a call marked
``concurrent`` (made inside the script's event loop) starts a task on the event loop
(async tools there, sync ones on the sandbox's tool threads, within their budgets: a
session's sync calls beyond its slots wait for one, ``tool_slots.py``),
and its reply goes out as soon as it finishes, bearing its id. At most
:func:`~sandbox.protocol.in_flight_cap` calls may be in flight; one more ends
the run with ``tool_call_limit``, as does a call beyond the policy's ``tool_calls``.

When the run ends with calls still in flight (killed, timed out, crashed), they are
cancelled, awaited briefly, and recorded as abandoned; a sync tool still running in
its thread then counts against the session's hung-call budget, as a timed-out one
does. Records are kept in id order — the order in which the script made the calls —
whatever order they finished in.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from sandbox.execution import ErrorCode, ToolCallRecord
from sandbox.host.frames import Call
from sandbox.host.tool_threads import ToolThreads
from sandbox.host.tools import ToolOutcome, ToolSet
from sandbox.limits_text import explain
from sandbox.policy import Limits as SandboxLimits
from sandbox.protocol import encode

#: How long the end of a run waits for abandoned calls' tasks to finish.
_ABANDON_WAIT_S = 2.0
#: How long after its timeout a call in flight is given up on by the host itself.
_OVERDUE_S = 2.0


class CallRefused(Exception):
    """A call the run may not make: the run ends with ``code``."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Flight:
    """One run's tool calls: the ones answered, the ones in flight."""

    # Set up by the first concurrent call only: a run without one pays for none of it
    # (measured: a per-run Flight cost 1.9 µs with all of it made up front, 0.9 µs so).
    _pending: dict[int, Call]
    _due: dict[int, tuple[float, float]]  # id -> (when the host gives up on it, timeout)
    _parked: dict[int, float]  # id -> timeout, of sync calls waiting for a slot
    _tasks: dict[int, asyncio.Task[ToolOutcome] | None]
    _finished: queue.SimpleQueue[tuple[int, ToolOutcome]]
    _on_loop: asyncio.AbstractEventLoop | None

    def __init__(
        self,
        tools: ToolSet,
        limits: SandboxLimits,
        cap: int,
        threads: Callable[[], ToolThreads],
        loop: Callable[[], asyncio.AbstractEventLoop],
        abort: threading.Event,
    ) -> None:
        self._tools = tools
        self._limits = limits
        self._cap = cap
        self._threads = threads
        self._loop = loop
        self._abort = abort
        self._records: dict[int, ToolCallRecord] = {}
        self._last_id = 0
        #: Time spent waiting for tools, not counted against the script.
        self.tool_time = 0.0
        self._busy_since: float | None = None
        self._lock: threading.Condition | None = None
        self._wake: tuple[int, int] | None = None
        self._closed = False

    @property
    def wake_fd(self) -> int | None:
        """Readable when a call in flight has finished (None before the first one)."""
        return self._wake[0] if self._wake is not None else None

    @property
    def busy(self) -> bool:
        """Whether calls are in flight."""
        return self._lock is not None and bool(self._pending)

    def paused(self, now: float) -> float:
        """Seconds of this run spent waiting for tools, up to ``now``."""
        if self._busy_since is None:
            return self.tool_time
        return self.tool_time + now - self._busy_since

    def take(self, call: Call) -> bytes | None:
        """Serve ``call``: the reply frame of a plain call, None for a concurrent one
        (its reply comes from :meth:`replies`). Raises ``ValueError`` for a protocol
        violation, :class:`CallRefused` beyond a limit."""
        if call.id != self._last_id + 1:
            raise ValueError(
                f"protocol violation: tool call id {call.id} after {self._last_id} "
                "(ids count up from 1 in each run)"
            )
        self._last_id = call.id
        if call.id > self._limits.tool_calls:
            raise CallRefused(ErrorCode.TOOL_CALL_LIMIT, _limit_text(self._limits))
        if call.concurrent:
            if self._lock is not None and len(self._pending) >= self._cap:
                raise CallRefused(
                    ErrorCode.TOOL_CALL_LIMIT,
                    f"Tool call limit reached: {len(self._pending) + 1} tool calls in flight "
                    f"at once; at most {self._cap} may be.",
                )
            self._start(call)
            return None
        outcome = self._tools.invoke(
            call.name,
            call.args,
            call.keywords,
            timeout=self._limits.tool_timeout_s,
            threads=self._threads(),
            loop=self._loop(),
            max_result_bytes=self._limits.result_bytes,
            abort=self._abort,
        )
        self._records[call.id] = outcome.record
        if self._busy_since is None:  # else the busy period counts this time already
            self.tool_time += outcome.elapsed_s
        return _reply_frame(outcome, call.id)

    def _start(self, call: Call) -> None:
        if self._lock is None:
            self._pending, self._due, self._tasks, self._parked = {}, {}, {}, {}
            self._finished = queue.SimpleQueue()
            self._on_loop = None
            self._wake = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
            self._lock = threading.Condition()
        if self._busy_since is None:
            self._busy_since = time.perf_counter()
        self._pending[call.id] = call
        timeout = self._tools.timeout_of(call.name, self._limits.tool_timeout_s)
        if timeout is not None:
            self._due[call.id] = (time.perf_counter() + timeout + _OVERDUE_S, timeout)
        with self._lock:
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
        assert self._lock is not None
        with self._lock:
            if self._closed:
                del self._tasks[call.id]
                self._lock.notify_all()
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
            self._due[call_id] = (time.perf_counter() + timeout + _OVERDUE_S, timeout)

    def _ended(self, call: Call, task: asyncio.Task[ToolOutcome]) -> None:
        """On the event loop: a call's task is over."""
        assert self._lock is not None
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
            self._lock.notify_all()
            if outcome is not None:
                self._finish(call.id, outcome)

    def _finish(self, call_id: int, outcome: ToolOutcome) -> None:
        self._finished.put((call_id, outcome))
        if self._closed or self._wake is None:
            return  # the run is over: the outcome is recorded, no reply goes out
        try:
            os.write(self._wake[1], b"x")
        except BlockingIOError:
            pass  # the pipe is full of wake-ups already

    def replies(self) -> list[bytes]:
        """The reply frames of the calls in flight that have finished."""
        if self._wake is None:
            return []
        try:
            os.read(self._wake[0], 4096)
        except BlockingIOError:
            pass
        frames = []
        while True:
            try:
                call_id, outcome = self._finished.get_nowait()
            except queue.Empty:
                break
            if self._pending.pop(call_id, None) is None:
                continue  # given up on as overdue already
            self._due.pop(call_id, None)
            self._parked.pop(call_id, None)
            self._records[call_id] = outcome.record
            frames.append(_reply_frame(outcome, call_id))
        frames.extend(self._overdue())
        if not self._pending and self._busy_since is not None:
            self.tool_time += time.perf_counter() - self._busy_since
            self._busy_since = None
        return frames

    def _overdue(self) -> list[bytes]:
        """Replies for calls whose timeout passed long ago: their event loop is blocked
        (an async tool that never yields), so it cannot end them itself."""
        now = time.perf_counter()
        # list(): one GIL-atomic copy, as the loop's thread moves calls between the two.
        due = list(self._due.items())
        late = [(i, f"did not finish within {t:g} s") for i, (d, t) in due if d <= now]
        if late:  # then calls waiting for a slot on the blocked loop will not start either
            blocked = "did not start: the host's event loop is blocked"
            late += [(i, blocked) for i in list(self._parked)]
        frames = []
        for call_id, problem in late:
            call = self._pending.pop(call_id, None)
            self._due.pop(call_id, None)
            self._parked.pop(call_id, None)
            if call is None:
                continue
            outcome = self._tools.refused(
                call.name, call.args, call.keywords, "TimeoutError", f"{call.name}() {problem}"
            )
            self._records[call_id] = outcome.record
            frames.append(_reply_frame(outcome, call_id))
            assert self._lock is not None
            with self._lock:
                task = self._tasks.get(call_id)
            if task is not None and self._on_loop is not None:
                with contextlib.suppress(RuntimeError):
                    self._on_loop.call_soon_threadsafe(task.cancel)
        return frames

    def close(self) -> list[ToolCallRecord]:
        """End the run's calls: cancel those in flight, record them as abandoned; the
        records of every call, in the order the script made them."""
        if self._lock is not None and not self._closed:
            self._abandon()
        if self._busy_since is not None:
            self.tool_time += time.perf_counter() - self._busy_since
            self._busy_since = None
        records = self._records
        return [records[i] for i in sorted(records)] if records else []

    def _abandon(self) -> None:
        assert self._lock is not None and self._wake is not None
        with self._lock:
            self._closed = True
            tasks = [task for task in self._tasks.values() if task is not None]
        if tasks and self._on_loop is not None:
            try:
                for task in tasks:
                    self._on_loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:
                pass  # the loop is closed: its tasks are gone with it
        with self._lock:
            self._lock.wait_for(lambda: not self._tasks, _ABANDON_WAIT_S)
            for fd in self._wake:
                os.close(fd)
            self._wake = None
        while True:  # finished, even if their replies will not be sent
            try:
                call_id, outcome = self._finished.get_nowait()
            except queue.Empty:
                break
            if self._pending.pop(call_id, None) is not None:
                self._records[call_id] = outcome.record
        for call_id, call in self._pending.items():
            outcome = self._tools.refused(
                call.name,
                call.args,
                call.keywords,
                "CancelledError",
                f"{call.name}() was abandoned: the run ended while it was in flight",
            )
            self._records[call_id] = outcome.record
        self._pending.clear()


def _reply_frame(outcome: ToolOutcome, call_id: int) -> bytes:
    """The ``result`` frame answering call ``call_id`` (the reply dict is the outcome's
    own, made for this one call: marked in place, not copied)."""
    reply = outcome.reply
    reply["id"] = call_id
    return encode(reply)


def _limit_text(limits: SandboxLimits) -> str:
    return explain(ErrorCode.TOOL_CALL_LIMIT.value, limits.model_dump())
