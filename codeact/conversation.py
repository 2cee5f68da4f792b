"""Conversation: turns of one agent that share their messages and one sandbox session.

``conv = agent.conversation(sandbox=sb)`` (a context manager, ``with`` or ``async
with``); each ``await conv.run(task)`` or ``conv.run_sync(task)`` continues the same
history — one system prompt — and runs its scripts in the same session, so the
variables, functions and imports of earlier turns are still defined. ``conv.save()``
exports it (messages, usage and the session's :meth:`~sandbox.Session.snapshot`) as
JSON; ``agent.conversation(state=saved)`` reopens it, in this process or another.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
import threading
from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Generic, Literal, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from codeact.messages import Message
from codeact.output import AgentOutput, OutputT
from codeact.settle import settle, uncancellable
from codeact.summary import UsageSummary
from sandbox import AsyncSandbox, AsyncSession, RestoreReport, Sandbox

if TYPE_CHECKING:
    from codeact.agent import Agent, Approver
    from codeact.loop import AgentLoop
    from codeact.stream import AgentStream
    from codeact.task import Task

T = TypeVar("T")


class ConversationState(BaseModel):
    """A saved conversation, as JSON: reopen it with ``agent.conversation(state=...)``."""

    model_config = ConfigDict(frozen=True)

    version: Literal[1] = 1
    agent: str = Field(description="The agent the conversation belongs to.")
    messages: list[Message]
    usage: UsageSummary
    turns: int
    snapshot: bytes | None = Field(
        None, description="The session's variables (Session.snapshot), restored on reopening."
    )


class SessionLease:
    """The sandbox session a conversation keeps for its agent across turns.

    The session is made once, with tools that route each call to the turn running now
    (its deps, its approvals, its sub-agent runs).
    """

    def __init__(self, agent: Agent[Any], restore: bytes | None = None) -> None:
        self.agent = agent
        self.session: AsyncSession | None = None
        self._restore = restore
        self._loop: AgentLoop | None = None
        self._tools: dict[str, Callable[..., Any]] = {}

    async def open(self, loop: AgentLoop) -> AsyncSession:
        """The session, for the turn ``loop`` runs (made at the first turn)."""
        self._loop = loop
        tools, timeouts, gated = loop.session_tools(self.agent)
        self._tools = tools
        if self.session is None:
            sandbox = await loop.ctx.sandbox(self.agent.policy)
            routed = {name: self._routed(name, fn) for name, fn in tools.items()}
            session = sandbox.session(
                routed,
                gate=self._gate if gated else None,
                tool_timeouts=timeouts,
                restore=self._restore,
            )
            self.session = session
            await uncancellable(session.start())
            self._restore = None
        return self.session

    def _routed(self, name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        if inspect.iscoroutinefunction(fn):

            @functools.wraps(fn)
            async def call_async(*args: Any, **kwargs: Any) -> Any:
                return await self._tools[name](*args, **kwargs)

            return call_async

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> Any:
            return self._tools[name](*args, **kwargs)

        return call

    async def _gate(self, name: str, arguments: dict[str, Any]) -> str | None:
        assert self._loop is not None
        return await self._loop.gate(name, arguments)

    async def snapshot(self) -> bytes | None:
        """The session's variables, or what a reopened conversation would restore."""
        if self.session is None:
            return self._restore
        return bytes(await self.session.snapshot())

    async def close(self) -> None:
        session, self.session = self.session, None
        if session is not None:
            await session.close()


class Conversation(Generic[OutputT]):
    """Turns of one agent sharing their history and sandbox session (see the module
    docstring). One turn at a time; ``usage`` sums every turn, ``outputs`` keeps each."""

    def __init__(
        self,
        agent: Agent[OutputT],
        *,
        sandbox: Sandbox | AsyncSandbox | None = None,
        deps: Any = None,
        state: ConversationState | None = None,
    ) -> None:
        if state is not None and state.agent != agent.name:
            raise ValueError(f"the saved conversation belongs to agent {state.agent!r}")
        self.agent = agent
        self.deps = deps
        self._given = sandbox
        self._own: AsyncSandbox | None = None
        self._lease = SessionLease(agent, state.snapshot if state else None)
        #: The history so far, one system prompt first.
        self.messages: list[Message] = list(state.messages) if state else []
        #: Each turn's output, in order (turns reopened from a saved state not included).
        self.outputs: list[AgentOutput[OutputT]] = []
        self._earlier = state.usage if state else UsageSummary()
        self._earlier_turns = state.turns if state else 0
        self._busy = False
        self._closed = False
        self._home: asyncio.AbstractEventLoop | None = None
        self._thread: _LoopThread | None = None

    # -- turns -------------------------------------------------------------------------
    @property
    def usage(self) -> UsageSummary:
        """The usage of every turn, summed."""
        total = self._earlier
        for output in self.outputs:
            total = total + output.usage
        return total

    @property
    def restored(self) -> RestoreReport | None:
        """What the session rebuilt of a saved conversation's snapshot, once it has."""
        session = self._lease.session
        return session.restored if session is not None else None

    @property
    def turns(self) -> int:
        """Turns taken so far (a reopened conversation's earlier ones included)."""
        return self._earlier_turns + len(self.outputs)

    def stream(self, task: Task) -> AgentStream[OutputT]:
        """The next turn as an event stream (``ModelDelta`` included), like
        ``agent.stream``; the conversation takes up its messages when it ends."""
        return self._turn(task, tokens=True)

    async def run(self, task: Task, *, approver: Approver | None = None) -> AgentOutput[OutputT]:
        """Run the next turn to its end (raises ``AgentRunFailed`` as ``agent.run``
        does; the turn's messages stay in the history either way)."""
        return await self._turn(task, tokens=False).result(approver)

    def run_sync(self, task: Task, *, approver: Approver | None = None) -> AgentOutput[OutputT]:
        """:meth:`run` for synchronous code (on an event loop the conversation keeps)."""
        if self._thread is None:
            self._thread = _LoopThread()
        return self._thread.call(self.run(task, approver=approver))

    def _turn(self, task: Task, *, tokens: bool) -> AgentStream[OutputT]:
        if self._closed:
            raise RuntimeError("the conversation is closed")
        if self._busy:
            raise RuntimeError("the conversation is running a turn: one turn at a time")
        loop = asyncio.get_running_loop()
        if self._home is None:
            self._home = loop
        elif self._home is not loop:
            raise RuntimeError(
                "a conversation's turns run on one event loop (its session's tools run "
                "there): use either run_sync() or await run() for all of its turns"
            )
        if self._given is None and self._own is None:
            self._own = AsyncSandbox(self.agent.policy, spares=1)
        stream = self.agent._start(
            task,
            self.messages,
            self._given if self._given is not None else self._own,
            self.deps,
            tokens=tokens,
            session=self._lease,
        )
        self._busy = True
        stream.on_end = self._ended
        return stream

    def _ended(self, output: AgentOutput[OutputT]) -> None:
        self._busy = False
        if output.messages:  # a turn that failed before it began leaves the history be
            self.messages = list(output.messages)
        self.outputs.append(output)

    # -- saving ------------------------------------------------------------------------
    async def save(self) -> ConversationState:
        """The conversation as JSON-ready data, the session's variables included."""
        if self._busy:
            raise RuntimeError("a conversation can be saved between turns, not during one")
        return ConversationState(
            agent=self.agent.name,
            messages=list(self.messages),
            usage=self.usage,
            turns=self.turns,
            snapshot=await self._lease.snapshot(),
        )

    def save_sync(self) -> ConversationState:
        """:meth:`save` for synchronous code."""
        if self._thread is None:
            self._thread = _LoopThread()
        return self._thread.call(self.save())

    # -- lifecycle ---------------------------------------------------------------------
    async def aclose(self) -> None:
        """End the session and stop the sandbox the conversation started."""
        self._closed = True
        own, self._own = self._own, None
        await settle(self._lease.close())
        if own is not None:
            await settle(own.close())

    def close(self) -> None:
        """:meth:`aclose` for synchronous code."""
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.call(self.aclose())
            thread.stop()
        elif not self._closed:
            run_blocking(self.aclose())

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _LoopThread:
    """An event loop in a thread of its own, for a conversation driven synchronously."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="codeact-conversation", daemon=True
        )
        self._thread.start()

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        future = asyncio.run_coroutine_threadsafe(coro, self._loop)
        try:
            return future.result()
        except BaseException:
            future.cancel()
            raise

    def stop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()


def run_blocking(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to its end from synchronous code: in this thread, or — where an
    event loop is already running (a notebook, an async framework) — in a helper one."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1, "codeact-run") as pool:
        return pool.submit(asyncio.run, coro).result()
