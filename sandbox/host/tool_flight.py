"""The host's side of one run's tool calls: ids checked, calls answered as they finish.

The worker numbers its calls 1, 2, 3… in each run (``tool_channel.py``); anything else
(an id reused, skipped or never issued) is a protocol violation that ends the worker.
No call blocks the run loop (``run_machine.py``): each is started and its reply goes
out when it finishes, bearing its id — a plain call's (the script waits for it) as
much as a ``concurrent`` one's (made inside the script's event loop, several in flight
at once). A plain call of a sync tool runs on one of the sandbox's tool threads, which
posts its outcome to the flight; everything else (async tools, calls a gate must
approve, calls in flight together) is a task on the tools' event loop, sync tools
there too on a tool thread once their session has a slot (``tool_slots.py``). Only a
sync tool without a timeout, called plainly from a sync run, runs in the run's own
thread: nothing could stop it anyway, and it saves the thread hop.

At most :func:`~sandbox.protocol.in_flight_cap` calls may be in flight; one more ends
the run with ``tool_call_limit``, as does a call beyond the policy's ``tool_calls``.
Each call's timeout is kept here too: a plain sync call past it is answered with a
``TimeoutError`` and left to hang in its thread (counted against its session's
hung-call budget); a task past it by :data:`_OVERDUE_S` (its event loop is blocked, so
it cannot time itself out) likewise.

When the run ends with calls still in flight (killed, timed out, crashed), they are
cancelled and recorded as abandoned. Records are kept in id order — the order in which
the script made the calls — whatever order they finished in.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import math
import queue
import threading
import time
from collections.abc import Callable

from sandbox.execution import ErrorCode, ToolCallRecord
from sandbox.host.frames import Call
from sandbox.host.tool_tasks import LoopCalls
from sandbox.host.tool_threads import ToolThreads
from sandbox.host.tools import ToolOutcome, ToolSet
from sandbox.limits_text import explain
from sandbox.policy import Limits as SandboxLimits
from sandbox.protocol import encode

#: How long the end of a run waits for abandoned calls' tasks on another thread's loop.
_ABANDON_WAIT_S = 2.0


class CallRefused(Exception):
    """A call the run may not make: the run ends with ``code``."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Flight(LoopCalls):
    """One run's tool calls: the ones answered, the ones in flight.

    ``notify`` is called, from whatever thread finished a call, once its reply is ready
    for :meth:`replies`; ``inline`` lets a plain call of a sync tool without a timeout
    run in the caller's thread (a sync run's).
    """

    # Made for every run: slots make its attributes cheaper to set and read.
    __slots__ = (
        "_busy_since", "_cap", "_closed", "_due", "_finished", "_inline", "_last_id",
        "_launches", "_limits", "_lock", "_loop", "_notify", "_parked", "_pending",
        "_records", "_send", "_tasks", "_threads", "_tools", "tool_time",
    )

    def __init__(
        self,
        tools: ToolSet,
        limits: SandboxLimits,
        cap: int,
        threads: Callable[[], ToolThreads],
        loop: Callable[[], asyncio.AbstractEventLoop],
        notify: Callable[[], None],
        *,
        inline: bool,
    ) -> None:
        self._tools = tools
        self._limits = limits
        self._cap = cap
        self._threads = threads
        self._loop = loop
        self._notify = notify
        self._inline = inline
        self._records: dict[int, ToolCallRecord] = {}
        self._last_id = 0
        #: Time spent waiting for tools, not counted against the script.
        self.tool_time = 0.0
        self._busy_since: float | None = None
        self._pending: dict[int, Call] = {}
        # id -> (when the host gives up on it, its timeout, what gives it up or None)
        self._due: dict[int, tuple[float, float, Callable[[], None] | None]] = {}
        self._parked: dict[int, float] = {}  # id -> timeout, of sync calls awaiting a slot
        self._tasks: dict[int, asyncio.Task[ToolOutcome] | None] = {}
        self._finished: queue.SimpleQueue[tuple[int, ToolOutcome]] = _NO_OUTCOMES
        self._on_loop: asyncio.AbstractEventLoop | None = None
        # A plain Lock: most runs make no call, and a Condition (an RLock inside) cost a
        # measurable share of a trivial run; tasks wait on one made when needed.
        self._lock = threading.Lock()
        self._tasks_done: threading.Condition | None = None
        self._closed = False
        self._send: Callable[[bytes], bool] | None = None
        self._launches: list[Callable[[], None]] = []

    def launch(self) -> None:
        """Hand the calls taken since the last launch to their tool threads (the run
        loop calls this just before it waits)."""
        launches = self._launches
        while launches:
            launches.pop(0)()

    def answer_with(self, send: Callable[[bytes], bool]) -> None:
        """Let a tool thread send a plain call's reply itself (``send`` returns True
        if part of it waits for the driver): the reply goes out without a wake-up of
        the run loop, which learns of it from the worker's next frame."""
        self._send = send

    @property
    def busy(self) -> bool:
        """Whether calls are in flight."""
        return bool(self._pending)

    def paused(self, now: float) -> float:
        """Seconds of this run spent waiting for tools, up to ``now``."""
        since = self._busy_since  # read first: see _idle_if_done
        if since is None:
            return self.tool_time
        return self.tool_time + now - since

    def next_due(self) -> float | None:
        """When the earliest call in flight runs out of time (``perf_counter``)."""
        if not self._due:
            return None
        return min(due for due, _, _ in list(self._due.values()))

    def take(self, call: Call) -> bytes | None:
        """Serve ``call``: the reply frame if it was answered at once, else None (its
        reply comes from :meth:`replies`). Raises ``ValueError`` for a protocol
        violation, :class:`CallRefused` beyond a limit."""
        if call.id != self._last_id + 1:
            raise ValueError(
                f"protocol violation: tool call id {call.id} after {self._last_id} "
                "(ids count up from 1 in each run)"
            )
        self._last_id = call.id
        if call.id > self._limits.tool_calls:
            raise CallRefused(ErrorCode.TOOL_CALL_LIMIT, _limit_text(self._limits))
        if call.concurrent and len(self._pending) >= self._cap:
            raise CallRefused(
                ErrorCode.TOOL_CALL_LIMIT,
                f"Tool call limit reached: {len(self._pending) + 1} tool calls in flight "
                f"at once; at most {self._cap} may be.",
            )
        route = self._tools.route(call.name, self._limits.tool_timeout_s)
        if call.concurrent or route == "task":
            self._start_task(call)
        elif route == "inline" and self._inline:
            return self._answer_inline(call)
        else:
            self._start_thread(call)
        return None

    def _answer_inline(self, call: Call) -> bytes:
        outcome = self._tools.invoke(
            call.name, call.args, call.keywords, max_result_bytes=self._limits.result_bytes
        )
        self._records[call.id] = outcome.record
        self.tool_time += outcome.elapsed_s
        return _reply_frame(outcome, call.id)

    def _enter(self, call: Call) -> None:
        if self._finished is _NO_OUTCOMES:
            self._finished = queue.SimpleQueue()
        if self._busy_since is None:
            self._busy_since = time.perf_counter()
        self._pending[call.id] = call

    def _start_thread(self, call: Call) -> None:
        """A plain sync call on a tool thread; the thread posts its outcome."""
        self._enter(call)
        timeout = self._tools.timeout_of(call.name, self._limits.tool_timeout_s)
        started = self._tools.start_in_thread(
            call.name,
            call.args,
            call.keywords,
            threads=self._threads(),
            max_result_bytes=self._limits.result_bytes,
            finished=functools.partial(self._answer, call.id),
        )
        if isinstance(started, ToolOutcome):  # refused before it ran: no thread to spare
            self._finish(call.id, started)
            return
        self._launches.append(started.launch)
        # Kept without a timeout too (never due): a run that ends gives it up.
        due = math.inf if timeout is None else time.perf_counter() + timeout
        self._due[call.id] = (due, timeout or 0.0, started.give_up)

    def _answer(self, call_id: int, outcome: ToolOutcome) -> None:
        """From the tool thread of a plain call: the reply straight to the worker."""
        send = self._send
        waiting = answered = False
        if send is not None:
            with self._lock:
                if not self._closed and self._pending.pop(call_id, None) is not None:
                    answered = True
                    self._due.pop(call_id, None)
                    self._records[call_id] = outcome.record
                    self._idle_if_done()
                    waiting = send(_reply_frame(outcome, call_id))
        if not answered:
            self._finish(call_id, outcome)  # given up on, or the run is over
        elif waiting:
            self._notify()

    def _idle_if_done(self) -> None:
        """Under the lock: no call in flight any more ends the busy period (the tool
        time is added before the period ends: a reader never sees too little)."""
        since = self._busy_since
        if not self._pending and since is not None:
            self.tool_time += time.perf_counter() - since
            self._busy_since = None

    def _finish(self, call_id: int, outcome: ToolOutcome) -> None:
        """From any thread: ``call_id`` has its outcome."""
        self._finished.put((call_id, outcome))
        if not self._closed:  # else the run is over: recorded, no reply goes out
            self._notify()

    def replies(self) -> list[bytes]:
        """The reply frames of the calls that have finished, or ran out of time."""
        if not self._pending:
            return []
        frames = []
        while True:
            try:
                call_id, outcome = self._finished.get_nowait()
            except queue.Empty:
                break
            with self._lock:
                if self._pending.pop(call_id, None) is None:
                    continue  # given up on as overdue already
            self._due.pop(call_id, None)
            self._parked.pop(call_id, None)
            self._records[call_id] = outcome.record
            frames.append(_reply_frame(outcome, call_id))
        if self._due:
            frames.extend(self._overdue())
        with self._lock:
            self._idle_if_done()
        return frames

    def _overdue(self) -> list[bytes]:
        """Replies for calls past their time: a plain sync call past its timeout (left
        to hang in its thread), or a task whose event loop is blocked (an async tool
        that never yields), so that it cannot end itself."""
        now = time.perf_counter()
        # list(): one GIL-atomic copy, as the loop's thread moves calls between the two.
        due = list(self._due.items())
        late = [(i, t, give_up) for i, (d, t, give_up) in due if d <= now]
        if not late:
            return []
        frames = []
        blocked = False
        for call_id, timeout, give_up in late:
            if give_up is not None:
                give_up()  # still running in its thread: it hangs there
            else:
                blocked = True
            frames.extend(self._give_up(call_id, f"did not finish within {timeout:g} s"))
        if blocked:  # then calls waiting for a slot on the blocked loop will not start
            unstarted = "did not start: the host's event loop is blocked"
            for call_id in list(self._parked):
                frames.extend(self._give_up(call_id, unstarted))
        return frames

    def _give_up(self, call_id: int, problem: str) -> list[bytes]:
        with self._lock:
            call = self._pending.pop(call_id, None)
        self._due.pop(call_id, None)
        self._parked.pop(call_id, None)
        if call is None:
            return []
        outcome = self._tools.refused(
            call.name, call.args, call.keywords, "TimeoutError", f"{call.name}() {problem}"
        )
        self._records[call_id] = outcome.record
        with self._lock:
            task = self._tasks.get(call_id)
        if task is not None and self._on_loop is not None:
            with contextlib.suppress(RuntimeError):
                self._on_loop.call_soon_threadsafe(task.cancel)
        return [_reply_frame(outcome, call_id)]

    def close(self) -> list[ToolCallRecord]:
        """End the run's calls: cancel those in flight, record them as abandoned; the
        records of every call, in the order the script made them."""
        self._launches.clear()  # never handed over: their slots go back with _abandon
        with self._lock:
            closing, self._closed = not self._closed, True
        if closing and self._pending:
            self._abandon()
        since = self._busy_since
        if since is not None:
            self.tool_time += time.perf_counter() - since
            self._busy_since = None
        records = self._records
        return [records[i] for i in sorted(records)] if records else []

    def _abandon(self) -> None:
        with self._lock:
            tasks = [task for task in self._tasks.values() if task is not None]
        for _, _, give_up in list(self._due.values()):
            if give_up is not None:
                give_up()  # a plain sync call still running: it hangs in its thread
        loop = self._on_loop
        if tasks and loop is not None:
            here = _running_loop() is loop
            try:
                for task in tasks:
                    if here:
                        task.cancel()
                    else:
                        loop.call_soon_threadsafe(task.cancel)
            except RuntimeError:
                pass  # the loop is closed: its tasks are gone with it
            if not here and self._tasks_done is not None:
                # Another thread's loop: let the cancelled tasks finish (a tool's own
                # cleanup) before the run returns. On this loop they finish after it.
                with self._tasks_done:
                    self._tasks_done.wait_for(lambda: not self._tasks, _ABANDON_WAIT_S)
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
        self._due.clear()


#: Stands for a run's finished calls until its first call: never holds anything.
_NO_OUTCOMES: queue.SimpleQueue[tuple[int, ToolOutcome]] = queue.SimpleQueue()


def _running_loop() -> asyncio.AbstractEventLoop | None:
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def _reply_frame(outcome: ToolOutcome, call_id: int) -> bytes:
    """The ``result`` frame answering call ``call_id`` (the reply dict is the outcome's
    own, made for this one call: marked in place, not copied)."""
    reply = outcome.reply
    reply["id"] = call_id
    return encode(reply)


def _limit_text(limits: SandboxLimits) -> str:
    return explain(ErrorCode.TOOL_CALL_LIMIT.value, limits.model_dump())
