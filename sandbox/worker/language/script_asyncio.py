"""``asyncio`` for scripts: coroutines, tasks, ``gather``, ``sleep``, queues and locks
on an event loop of the sandbox's own.

The loop is asyncio's ``BaseEventLoop`` with no selector: a script has no sockets or
pipes to wait on, only timers and the tasks it creates, so waiting is sleeping until
the next timer (the worker's seccomp filter allows neither ``epoll`` nor the
self-pipe's ``socketpair``). A loop with nothing left to wait for raises instead of
sleeping forever.

Out of reach: the loop itself (``get_event_loop``, ``get_running_loop``, a task's or
future's ``get_loop`` — the loop runs callbacks in executors, i.e. threads, and
creates subprocesses and connections), ``to_thread``, ``run_in_executor``,
``create_subprocess_*``, ``open_connection``/``start_server``, a task's
``get_stack``/``print_stack`` (frames) and ``get_coro``; coroutine and generator
frames (``cr_frame``, ``ag_frame``, ``gi_frame``) are refused by the compiler.

Tool calls made while the loop runs are awaitables (``await search(q)``), sent to the
host at once (``tool_channel.py``): ``gather`` over tools has them all in flight, and
the loop waits for their replies where it would sleep.

Worker side: standard library only.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

#: Members of the script's ``asyncio``.
MEMBERS = (
    "gather",
    "sleep",
    "wait_for",
    "wait",
    "as_completed",
    "create_task",
    "shield",
    "timeout",
    "TaskGroup",
    "Queue",
    "PriorityQueue",
    "LifoQueue",
    "QueueEmpty",
    "QueueFull",
    "Lock",
    "Event",
    "Condition",
    "Semaphore",
    "BoundedSemaphore",
    "Barrier",
    "CancelledError",
    "TimeoutError",
    "InvalidStateError",
    "iscoroutine",
    "iscoroutinefunction",
    "ALL_COMPLETED",
    "FIRST_COMPLETED",
    "FIRST_EXCEPTION",
)


class _Replies(Protocol):
    """What the loop needs of the worker's tool channel."""

    def in_flight(self) -> bool: ...
    def wait(self, timeout: float | None) -> None: ...
    def forget(self) -> None: ...


#: The worker's tool channel (None: tool calls are answered one at a time).
_channel: _Replies | None = None


def attach_channel(channel: _Replies | None) -> None:
    """Route the replies to tool calls in flight through ``channel``."""
    global _channel
    _channel = channel


class _Sleeper:
    """The selector of :class:`ScriptLoop`: no I/O to select, only time to pass and
    replies to tool calls in flight to take."""

    def select(self, timeout: float | None) -> list[Any]:
        channel = _channel
        if channel is not None and channel.in_flight():
            channel.wait(timeout)
            return []
        if timeout is None:
            raise RuntimeError(
                "the event loop has nothing left to wait for: every task awaits "
                "something no task will do"
            )
        if timeout > 0:
            time.sleep(timeout)
        return []

    def close(self) -> None:
        """Nothing to release."""


class ScriptLoop(asyncio.BaseEventLoop):
    """An event loop without I/O: timers and tasks only."""

    def __init__(self) -> None:
        super().__init__()
        self._selector = _Sleeper()

    def _process_events(self, event_list: list[Any]) -> None:
        pass

    def _write_to_self(self) -> None:
        pass

    def default_exception_handler(self, context: dict[str, Any]) -> None:
        """An exception nobody awaited: one line in the script's output, as a script
        would see it (asyncio's own report prints the runtime's tracebacks and paths)."""
        exc = context.get("exception")
        what = context.get("message") or "Unhandled exception in the event loop"
        if isinstance(what, str) and what.startswith("Exception in callback"):
            what = "Exception in a callback"
        detail = f"{type(exc).__name__}: {exc}" if exc is not None else ""
        print(f"{what}: {detail}" if detail else what, file=sys.stderr)


def in_script_loop() -> bool:
    """Whether the running event loop is a script's (tool calls are then awaitables)."""
    return isinstance(asyncio._get_running_loop(), ScriptLoop)


def run(main: Any, *, debug: bool | None = None) -> Any:
    """``asyncio.run``: run ``main`` (a coroutine) on a new script loop, then close it."""
    if asyncio._get_running_loop() is not None:
        raise RuntimeError("asyncio.run() cannot be called from a running event loop")
    if not asyncio.iscoroutine(main):
        raise ValueError(f"a coroutine was expected, got {main!r}")
    loop = ScriptLoop()
    try:
        return loop.run_until_complete(main)
    finally:
        try:
            _cancel_all(loop)
        finally:
            loop.close()
            if _channel is not None:
                _channel.forget()  # their futures belong to the closed loop


def run_top_level(coroutine: Coroutine[Any, Any, Any]) -> Any:
    """Run a script compiled with top-level ``await`` (its code is a coroutine)."""
    return run(coroutine)


def _cancel_all(loop: ScriptLoop) -> None:
    tasks = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in tasks:
        task.cancel()
    if tasks:
        loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))


async def resolved(value: Any) -> Any:
    """An awaitable that gives ``value`` (a tool's result inside the loop)."""
    return value


async def reply_of(
    future: asyncio.Future[dict[str, Any]], convert: Callable[[dict[str, Any]], Any]
) -> Any:
    """An awaitable that gives a tool call's value once its reply has come."""
    return convert(await future)


def members() -> dict[str, Any]:
    """The script's ``asyncio``: the listed members and the sandbox's ``run``."""
    found = {name: getattr(asyncio, name) for name in MEMBERS if hasattr(asyncio, name)}
    found["run"] = run
    return found
