"""Host tools: ordinary callables turned into validated endpoints for scripts.

A script calls ``lookup_price("wand")``; the worker sends the JSON arguments to the
host, where the call's arguments are validated against the function's signature
(pydantic), the function called — a sync tool on a tool thread
(:meth:`ToolSet.start_in_thread`, or in the run's thread when it has no timeout:
:meth:`ToolSet.invoke`), an async one, or any call a gate approves, on an event loop
(:meth:`ToolSet.invoke_async`) — and the result converted to JSON. The run's
``tool_flight.py`` keeps each call's timeout. Whatever goes wrong comes back as an
exception type name and a message that the worker raises inside the script.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import inspect
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any

import pydantic
import pydantic_core

from sandbox.errors import ToolDefinitionError
from sandbox.execution import ToolCallRecord
from sandbox.host.tool_failures import (
    ToolFailed,
    contained,
    describe,
    describe_validation,
    not_approved,
    over_budget,
    result_json,
    run_contained,
    timed_out,
)
from sandbox.host.tool_slots import Slot, ToolSlots
from sandbox.host.tool_threads import ToolBudgetExhausted, ToolThreads
from sandbox.host.tool_validation import validated
from sandbox.protocol import Op, ResultFrame, ToolFailure, ToolValue, name_refusal


def _check_size(name: str, result: Any, max_result_bytes: int) -> None:
    try:
        size = len(pydantic_core.to_json(result))
    except pydantic_core.PydanticSerializationError:
        # A lone surrogate: strict UTF-8 cannot carry it to the worker.
        raise ValueError(
            f"{name}() returned text that is not valid Unicode (a lone surrogate)"
        ) from None
    if size > max_result_bytes:
        raise ValueError(f"{name}() returned {size} bytes of JSON; the limit is {max_result_bytes}")


@dataclass(frozen=True)
class ToolOutcome:
    """The host's answer to one call, plus its record and the host time it took."""

    reply: ResultFrame
    record: ToolCallRecord
    elapsed_s: float


@dataclass(frozen=True)
class ThreadedCall:
    """A plain sync call ready for a tool thread. ``launch`` hands it over — the run
    loop does so just before it waits, so that the thread does not wake to find the
    interpreter still busy and wait for it a second time; ``give_up`` lets it go past
    its timeout (a call still running hangs in its thread, keeping its slot)."""

    launch: Callable[[], None]
    give_up: Callable[[], None]


#: Asked before each call (name, bound arguments); returns None to proceed or the reason
#: for refusing. Awaited without any timeout: a person may be deciding.
ToolGate = Callable[[str, dict[str, Any]], Coroutine[Any, Any, str | None]]


class ToolSet:
    """The tools of one session, validated once when the session starts."""

    def __init__(
        self,
        tools: Mapping[str, Callable[..., Any]] | None,
        *,
        gate: ToolGate | None = None,
        timeouts: Mapping[str, float | None] | None = None,
    ) -> None:
        self._gate = gate
        self._timeouts = dict(timeouts or {})
        self._tools: dict[str, Callable[..., Any]] = {}
        self._signatures: dict[str, inspect.Signature | None] = {}
        self._is_async: dict[str, bool] = {}
        for name, fn in (tools or {}).items():
            problem = name_refusal("tool", name)
            if problem is not None:
                raise ToolDefinitionError(problem)
            if not callable(fn):
                raise ToolDefinitionError(f"tool {name!r} is not callable")
            try:
                self._signatures[name] = inspect.signature(fn)
            except (TypeError, ValueError):
                self._signatures[name] = None
            self._is_async[name] = inspect.iscoroutinefunction(fn) or (
                inspect.iscoroutinefunction(type(fn).__call__)
            )
            self._tools[name] = validated(fn)

        self._slots = ToolSlots()

    @property
    def names(self) -> list[str]:
        """The tool names, as the script sees them."""
        return list(self._tools)

    def timeout_of(self, name: str, default: float) -> float | None:
        """The seconds a call of ``name`` may take, or None without a limit; None too
        with a gate, which is awaited without one."""
        return None if self._gate is not None else self._timeouts.get(name, default)

    def route(self, name: str, default_timeout: float) -> str:
        """Where a plain call of ``name`` runs: ``task`` on the tools' event loop (an
        async tool, or any call with a gate), ``inline`` (a sync tool without a
        timeout: nothing could stop it anyway) or ``thread``, a tool thread."""
        if self._gate is not None or self._is_async.get(name, False):
            return "task"
        if name in self._tools and self._timeouts.get(name, default_timeout) is None:
            return "inline"
        return "thread"

    def start_in_thread(
        self,
        name: str,
        args: list[Any],
        kwargs: dict[str, Any],
        *,
        threads: ToolThreads,
        max_result_bytes: int,
        finished: Callable[[ToolOutcome], None],
    ) -> ThreadedCall | ToolOutcome:
        """A plain call of a sync tool, ready for a tool thread and holding one of its
        session's slots (``finished`` gets the outcome, from that thread), or the
        outcome of a call that cannot start."""
        entered, arguments, fn, _ = self._begin(name, args, kwargs, 0.0)
        times = (entered, entered)
        failure: Exception
        if fn is None:
            failure = NameError(f"no tool named {name!r}")
            return self._conclude(name, arguments, times, None, failure, max_result_bytes)
        try:
            slot = self._slots.take(threads.max_hung_per_session)
        except ToolBudgetExhausted as exc:
            failure = over_budget(name, exc)
            return self._conclude(name, arguments, times, None, failure, max_result_bytes)
        tool = fn
        launched: list[concurrent.futures.Future[Any]] = []

        def call() -> None:
            started = time.perf_counter()
            value: Any = None
            problem: Exception | None = None
            try:
                value = run_contained(tool, args, kwargs)
            except Exception as exc:
                problem = exc
            outcome = self._conclude(
                name, arguments, (entered, started), value, problem, max_result_bytes
            )
            # Free before answering: the script's next call may come at once.
            self._slots.release(slot)
            finished(outcome)

        def launch() -> None:
            try:
                future = threads.submit(call)
            except ToolBudgetExhausted as exc:
                self._slots.release(slot)
                refused = over_budget(name, exc)
                finished(self._conclude(name, arguments, times, None, refused, max_result_bytes))
                return
            self._slots.bind(slot, future)
            launched.append(future)

        def give_up() -> None:
            if launched:
                self._let_go(launched[0], slot)
            else:
                self._slots.release(slot)

        return ThreadedCall(launch, give_up)

    def _arguments(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        signature = self._signatures.get(name)
        if signature is not None:
            try:
                bound = signature.bind(*args, **kwargs)
                return {
                    k: (list(v) if isinstance(v, tuple) else v) for k, v in bound.arguments.items()
                }
            except TypeError:
                pass
        return {"args": args, "kwargs": kwargs} if kwargs else {"args": args}

    def invoke(
        self, name: str, args: list[Any], kwargs: dict[str, Any], *, max_result_bytes: int
    ) -> ToolOutcome:
        """Run a plain call of a sync tool without a timeout here, in the caller's
        thread (``route`` says ``inline``); never raises for anything the tool or the
        script did."""
        entered, arguments, fn, _ = self._begin(name, args, kwargs, 0.0)
        value: Any = None
        failure: Exception | None = None
        try:
            if fn is None:
                raise NameError(f"no tool named {name!r}")
            value = run_contained(fn, args, kwargs)
        except Exception as exc:
            failure = exc
        return self._conclude(name, arguments, (entered, entered), value, failure, max_result_bytes)

    def _begin(
        self, name: str, args: list[Any], kwargs: dict[str, Any], timeout: float
    ) -> tuple[float, dict[str, Any], Callable[..., Any] | None, float | None]:
        """When a call came in, its arguments as recorded, its tool and its timeout."""
        entered = time.perf_counter()
        arguments = self._arguments(name, args, kwargs)
        return entered, arguments, self._tools.get(name), self._timeouts.get(name, timeout)

    async def invoke_async(
        self,
        name: str,
        args: list[Any],
        kwargs: dict[str, Any],
        *,
        timeout: float,
        threads: ToolThreads,
        max_result_bytes: int,
        running: Callable[[bool], None] | None = None,
    ) -> ToolOutcome:
        """:meth:`invoke` on the running event loop, for calls in flight together: an
        async tool is awaited here, a sync one runs on a tool thread once its session
        has a slot (``tool_slots.py``; ``running`` is told False if it must wait, True
        when it starts, its timeout with it). Cancelling the task abandons the call (a
        sync tool still running then counts as hung)."""
        entered, arguments, fn, timeout_s = self._begin(name, args, kwargs, timeout)
        started = entered
        value: Any = None
        failure: Exception | None = None
        try:
            if fn is None:
                raise NameError(f"no tool named {name!r}")
            if self._gate is not None:
                refusal = await contained(self._gate(name, arguments))
                if refusal is not None:
                    raise not_approved(name, refusal)
                started = time.perf_counter()
            value = await self._call_async(name, fn, args, kwargs, timeout_s, threads, running)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                raise  # abandoned by the host
            failure = ToolFailed("CancelledError", f"{name}() was cancelled")
        except Exception as exc:
            failure = exc
        return self._conclude(name, arguments, (entered, started), value, failure, max_result_bytes)

    async def _call_async(
        self,
        name: str,
        fn: Callable[..., Any],
        args: list[Any],
        kwargs: dict[str, Any],
        timeout_s: float | None,
        threads: ToolThreads,
        running: Callable[[bool], None] | None,
    ) -> Any:
        if self._is_async[name]:
            try:
                return await asyncio.wait_for(contained(fn(*args, **kwargs)), timeout_s)
            except TimeoutError:
                raise timed_out(name, timeout_s) from None
        try:
            slot = await self._slots.wait(threads.max_hung_per_session, running)
        except ToolBudgetExhausted as exc:
            raise over_budget(name, exc) from None
        if running is not None:
            running(True)
        future = self._submit(name, lambda: run_contained(fn, args, kwargs), threads, slot)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), timeout_s)
        except (TimeoutError, asyncio.CancelledError) as exc:
            self._let_go(future, slot)
            if isinstance(exc, TimeoutError):
                raise timed_out(name, timeout_s) from None
            raise

    def refused(
        self, name: str, args: list[Any], kwargs: dict[str, Any], kind: str, message: str
    ) -> ToolOutcome:
        """The outcome of a call that did not run (or was abandoned): ``kind: message``."""
        now = time.perf_counter()
        return self._failure(name, self._arguments(name, args, kwargs), now, now, kind, message)

    def _conclude(
        self,
        name: str,
        arguments: dict[str, Any],
        times: tuple[float, float],
        value: Any,
        failure: Exception | None,
        max_result_bytes: int,
    ) -> ToolOutcome:
        """The outcome of a call that returned ``value`` or raised ``failure``."""
        entered, started = times
        try:
            if failure is not None:
                raise failure
            result = result_json(name, value)
            _check_size(name, result, max_result_bytes)
        except pydantic.ValidationError as exc:
            return self._failure(
                name, arguments, started, entered, "TypeError", describe_validation(name, exc)
            )
        except ToolFailed as exc:
            return self._failure(name, arguments, started, entered, exc.kind, exc.text)
        except Exception as exc:
            return self._failure(
                name, arguments, started, entered, type(exc).__name__, describe(exc)
            )
        # Every field is the host's own and JSON already (arguments parsed from a frame,
        # the result converted above): no validation pass.
        record = ToolCallRecord.model_construct(
            name=name,
            arguments=arguments,
            ok=True,
            duration_s=time.perf_counter() - started,
            result=result,
            error=None,
        )
        # The call's id is the flight's to set (tool_flight.py), as it sends the answer.
        reply: ToolValue = {"op": Op.RESULT, "id": 0, "ok": True, "value": result}
        return ToolOutcome(reply, record, time.perf_counter() - entered)

    def _submit(
        self, name: str, call: Callable[[], Any], threads: ToolThreads, slot: Slot
    ) -> concurrent.futures.Future[Any]:
        """Start a sync call on a tool thread, holding ``slot`` until the thread is done."""
        try:
            future = threads.submit(call)
        except ToolBudgetExhausted as exc:
            self._slots.release(slot)
            raise over_budget(name, exc) from None
        self._slots.bind(slot, future)
        return future

    def _let_go(self, future: concurrent.futures.Future[Any], slot: Slot) -> None:
        """Stop waiting for a sync call; one still running in its thread keeps its slot
        (and its thread) as a hung call until it returns."""
        if not future.cancel():
            self._slots.hang(slot)

    @staticmethod
    def _failure(
        name: str,
        arguments: dict[str, Any],
        started: float,
        entered: float,
        kind: str,
        message: str,
    ) -> ToolOutcome:
        # The channel is strict UTF-8: a lone surrogate in a message becomes "?".
        message = message[:4000].encode("utf-8", "replace").decode()
        kind = kind.encode("utf-8", "replace").decode()
        record = ToolCallRecord(
            name=name,
            arguments=arguments,
            ok=False,
            duration_s=time.perf_counter() - started,
            error=f"{kind}: {message}",
        )
        reply: ToolFailure = {
            "op": Op.RESULT, "id": 0, "ok": False, "error_type": kind, "message": message
        }
        return ToolOutcome(reply, record, time.perf_counter() - entered)
