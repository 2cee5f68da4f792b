"""AgentStream: a run in progress — its events, approvals, checkpoint and result."""

from __future__ import annotations

import asyncio
import inspect
import logging
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, cast

from codeact import telemetry
from codeact.approval import Checkpoint, resume_plan
from codeact.errors import AgentRunFailed, MCPConnectionError, RunEnded, describe_exception
from codeact.events import (
    AgentEvent,
    Completed,
    Decision,
    Failed,
    FailureCode,
    InteractionRequired,
    PreparedAction,
    Started,
    SubmitInteraction,
)
from codeact.feedback import resumed_note
from codeact.loop import AgentLoop, Continue
from codeact.loop_state import LoopState
from codeact.messages import Content, Message, System
from codeact.output import AgentOutput, OutputT, RunFailure, output_class
from codeact.run_state import RunState
from codeact.settle import settle
from codeact.task import task_text
from sandbox import AsyncSandbox, Sandbox, SandboxError

if TYPE_CHECKING:
    from codeact.agent import Agent, Approver
    from codeact.conversation import SessionLease

_END = object()
_log = logging.getLogger("codeact.loop")


class AgentStream(Generic[OutputT]):
    """``async for event in stream`` yields the run's events until it ends.

    While the run waits for an approval, answer with :meth:`submit` or export it with
    :meth:`checkpoint`. :meth:`cancel` ends the run with ``cancelled`` and kills its
    worker. :meth:`result` consumes the stream and returns the :class:`AgentOutput`.
    """

    def __init__(
        self, root: Agent[OutputT], loop: AgentLoop, task: Content, queue: asyncio.Queue[Any]
    ) -> None:
        self.root = root
        self._loop = loop
        self._ctx = loop.ctx
        #: The conversation's progress: the loop moves it, checkpoint() and output() read it.
        self._state = loop.state
        self._task = task
        #: Called with the output once the run has ended (a conversation takes it up).
        self.on_end: Callable[[AgentOutput[OutputT]], None] | None = None
        self._queue = queue
        self._runner: asyncio.Task[None] | None = None
        #: A resumed run's snapshot and its checked plan (each pending action, its decision).
        self._resume: tuple[bytes | None, list[tuple[PreparedAction, Decision]]] | None = None
        # A new run's first messages; the system prompt is rendered inside the run.
        self._history: list[Message] | None = None
        self._value: Any = None
        self._failure: RunFailure | None = None
        self._done = False
        self._running = False
        self._cleaning = False
        self._cancel_requested = False

    # -- construction ----------------------------------------------------------------
    @classmethod
    def _new(
        cls,
        root: Agent[OutputT],
        run_id: str,
        task: Content,
        state: LoopState,
        sandbox: Sandbox | AsyncSandbox | None,
        deps: Any = None,
        lease: SessionLease | None = None,
    ) -> AgentStream[OutputT]:
        queue: asyncio.Queue[Any] = asyncio.Queue()
        ctx = RunState(run_id, queue.put_nowait, shared_sandbox(root, sandbox), deps)
        return cls(root, AgentLoop(ctx, state, lease), task, queue)

    @classmethod
    def start(
        cls,
        root: Agent[OutputT],
        *,
        task: Content,
        history: list[Message],
        sandbox: Sandbox | AsyncSandbox | None = None,
        deps: Any = None,
        tokens: bool = True,
        session: SessionLease | None = None,
    ) -> AgentStream[OutputT]:
        """A new run of ``root`` on ``task`` after ``history``; ``tokens`` streams the
        model's replies as ModelDelta events; ``session`` is a conversation's."""
        stream = cls._new(
            root, uuid.uuid4().hex, task, LoopState(root), sandbox, deps, session
        )
        stream._ctx.stream_tokens = tokens
        stream._history = history
        return stream

    @classmethod
    def resume(
        cls,
        root: Agent[OutputT],
        checkpoint: Checkpoint,
        submission: SubmitInteraction,
        sandbox: Sandbox | AsyncSandbox | None = None,
        deps: Any = None,
        *,
        key: bytes | str | None = None,
    ) -> AgentStream[OutputT]:
        """Continue ``checkpoint`` with the decisions in ``submission`` (checked by
        :func:`~codeact.approval.resume_plan`; ``key`` verifies its signature)."""
        plan = resume_plan(checkpoint, submission, key)
        if checkpoint.root_agent != root.name:
            raise ValueError(f"the checkpoint belongs to agent {checkpoint.root_agent!r}")
        state = LoopState.resumed(_find_agent(root, checkpoint.agent), checkpoint)
        stream = cls._new(root, checkpoint.run_id, "", state, sandbox, deps)
        stream._ctx.stream_tokens = True
        stream._ctx.carry_over(checkpoint)
        stream._resume = (checkpoint.snapshot, plan)
        return stream

    # -- the run -----------------------------------------------------------------------
    def _ensure_started(self) -> None:
        if self._runner is None:
            self._runner = asyncio.get_running_loop().create_task(self._drive())

    async def _drive(self) -> None:
        """Run to the end, stop what the run started, then emit exactly one terminal
        event: every way out of the loop, a crash included, is a typed outcome."""
        self._running = True
        escaping: BaseException | None = None
        failure: tuple[FailureCode, str] | None = None
        try:
            try:
                failure = await self._run_loop()
            except BaseException as exc:  # KeyboardInterrupt, SystemExit: end, then re-raise
                failure, escaping = _internal_error(exc), exc
            cleanup_failure, _ = await settle(self._cleanup())
            if failure is None:
                failure = cleanup_failure
            if failure is None:
                self._ctx.emit(Completed(result=self._value, usage=self._ctx.usage))
                _log.info("run %s completed: %s", self._ctx.run_id, self._ctx.usage.one_line())
            else:
                self._fail(*failure)
                _log.info("run %s failed (%s): %s", self._ctx.run_id, failure[0], failure[1])
            if self.on_end is not None:
                try:
                    self.on_end(self.output())
                except Exception:  # the run's outcome stands; the hook's failure is logged
                    _log.exception("run %s: the end-of-run hook failed", self._ctx.run_id)
        finally:
            self._queue.put_nowait(_END)
        if escaping is not None:
            raise escaping

    async def _run_loop(self) -> tuple[FailureCode, str] | None:
        ctx = self._ctx
        try:
            if self._cancel_requested:
                raise asyncio.CancelledError
            if self._resume is None:
                text = task_text(self._task)
                ctx.emit(Started(run_id=ctx.run_id, agent=self.root.name, task=text))
            _log.info("run %s started: agent %s", ctx.run_id, self.root.name)
            await ctx.connect(self.root)
            with telemetry.agent_span(self.root.name, ctx.run_id, self.root.model) as span:
                try:
                    self._value = await self._conversation()
                except RunEnded as ended:
                    telemetry.record_failure(span, ended.code, ended.message)
                    raise
        except MCPConnectionError as exc:
            return FailureCode.MCP_CONNECTION_FAILED, str(exc)
        except RunEnded as ended:
            return ended.code, ended.message
        except asyncio.CancelledError:
            return FailureCode.CANCELLED, "the run was cancelled"
        except SandboxError as exc:
            return FailureCode.SANDBOX_FAILED, str(exc)
        except Exception as exc:
            return _internal_error(exc)
        return None

    async def _conversation(self) -> Any:
        loop = self._loop
        if self._resume is not None:
            return await self._continue_from_checkpoint(*self._resume)
        if self._history is not None:
            # One system prompt: this agent's own, whatever the history held.
            earlier = [m for m in self._history if not isinstance(m, System)]
            first = [loop.system_message(self.root), *earlier]
            self._state.messages = [*first, Message.human(self._task)]
        return await loop.run()

    async def _cleanup(self) -> tuple[FailureCode, str] | None:
        """End the session, stop the run's sandboxes; what failed, if anything."""
        self._cleaning = True
        failure: tuple[FailureCode, str] | None = None
        for close in (self._loop.close, self._ctx.close):
            try:
                await close()
            except Exception as exc:
                code = (
                    FailureCode.SANDBOX_FAILED
                    if isinstance(exc, (SandboxError, OSError))
                    else FailureCode.INTERNAL_ERROR
                )
                detail = f"closing the sandbox failed: {describe_exception(exc)}"
                failure = failure or (code, detail)
        return failure

    def _fail(self, code: FailureCode, message: str) -> None:
        self._failure = RunFailure(code=code, message=message)
        self._ctx.emit(Failed(code=code, message=message, usage=self._ctx.usage))

    async def _continue_from_checkpoint(
        self, snapshot: bytes | None, plan: list[tuple[PreparedAction, Decision]]
    ) -> Any:
        loop = self._loop
        if snapshot is not None:
            loop.session.restore_from(snapshot)
            await loop.session.open()
        note, kept = resumed_note(loop.session.restored)
        for action, decision in plan:
            if action.kind == "script" and action.source is not None:
                if decision.proceed:
                    outcome = await loop.execute(action.source, note=note, kept=kept)
                    if not isinstance(outcome, Continue):
                        return outcome
                else:
                    self._state.messages.append(
                        Message.human(
                            f"{note}\n"
                            f"Error: the user did not approve this script. Reason: "
                            f"{decision.reason or 'none given'}"
                        )
                    )
            else:
                text = await loop.run_approved_tool(action, decision.proceed, decision.reason)
                lost = (
                    "what it had done since the step before it is undone"
                    if kept
                    else "its variables are gone"
                )
                self._state.messages.append(
                    Message.human(
                        f"{note} The script that made this call was interrupted: {lost}.\n"
                        + text
                    )
                )
        return await loop.run()

    # -- consuming -----------------------------------------------------------------------
    def __aiter__(self) -> AgentStream[OutputT]:
        return self

    async def __anext__(self) -> AgentEvent:
        self._ensure_started()
        if self._done:
            raise StopAsyncIteration
        item = await self._queue.get()
        if item is _END:
            self._done = True
            raise StopAsyncIteration
        event: AgentEvent = item
        return event

    def submit(self, submission: SubmitInteraction) -> None:
        """Answer the pending InteractionRequired."""
        self._ctx.broker.submit(submission)

    @property
    def pending(self) -> InteractionRequired | None:
        """The interaction the run waits for, if any."""
        return self._ctx.broker.pending

    def checkpoint(self, *, key: bytes | str | None = None) -> Checkpoint:
        """The paused run as JSON-ready data (only while an interaction is pending),
        signed with the application's ``key`` when one is given."""
        pending = self.pending
        if pending is None:
            raise ValueError("a checkpoint can only be taken while the run waits for approval")
        if any(a.agent != self._state.agent.name for a in pending.actions):
            raise ValueError("the pending action belongs to a sub-agent; it cannot be resumed")
        checkpoint = self._state.checkpoint(self._ctx, self.root, pending)
        return checkpoint if key is None else checkpoint.signed(key)

    def cancel(self) -> None:
        """End the run with ``cancelled``; its worker is killed. Safe at any moment,
        repeatedly: a run not yet started ends before it starts, and a run already
        cleaning up is left to finish its clean-up."""
        if self._cancel_requested:
            return
        self._cancel_requested = True
        # A tool call waiting for approval blocks a sandbox thread: release it first.
        self._ctx.broker.abort(FailureCode.CANCELLED, "the run was cancelled")
        runner = self._runner
        if runner is not None and self._running and not self._cleaning and not runner.done():
            runner.cancel()

    async def aclose(self) -> None:
        """Cancel the run (if still going) and wait until it has cleaned up."""
        self.cancel()
        # A run never started still ends the normal way: one Failed(cancelled) event.
        self._ensure_started()
        runner = self._runner
        assert runner is not None
        await settle(asyncio.wait([runner]))
        error = None if runner.cancelled() else runner.exception()
        if error is not None and self._failure is None:
            # _drive reports every failure itself; this only guards against a bug there.
            self._failure = RunFailure(
                code=FailureCode.INTERNAL_ERROR, message=describe_exception(error)
            )

    def output(self) -> AgentOutput[OutputT]:
        """The run's output so far (complete once the stream has ended)."""
        cls = output_class(self.root.output_schema)
        output = self._state.output(self._ctx, self._value, self._failure, cls)
        return cast(AgentOutput[OutputT], output)

    async def _answer(self, approver: Approver, event: InteractionRequired) -> None:
        """Submit the approver's answer; an approver that fails ends the run."""
        try:
            answer = approver(event)
            if inspect.isawaitable(answer):
                answer = await answer
            self.submit(answer)
        except Exception as exc:
            self._ctx.broker.abort(
                FailureCode.INTERNAL_ERROR, f"the approver failed: {describe_exception(exc)}"
            )

    async def result(self, approver: Approver | None = None) -> AgentOutput[OutputT]:
        """Run to the end, answering approvals with ``approver``; raise if it failed."""
        try:
            async for event in self:
                if isinstance(event, InteractionRequired):
                    if approver is None:
                        self._ctx.broker.abort(
                            FailureCode.APPROVAL_REQUIRED,
                            "an action needs approval: pass approver= to run(), or use "
                            "stream() and submit()",
                        )
                        continue
                    await self._answer(approver, event)
        finally:
            await self.aclose()
        output = self.output()
        if output.failure is not None:
            raise AgentRunFailed(output)
        return output


def _internal_error(exc: BaseException) -> tuple[FailureCode, str]:
    return FailureCode.INTERNAL_ERROR, f"internal error: {describe_exception(exc)}"


def _find_agent(root: Agent[Any], name: str) -> Agent[Any]:
    seen: set[int] = set()
    pending = [root]
    while pending:
        agent = pending.pop()
        if agent.name == name:
            return agent
        if id(agent) in seen:
            continue
        seen.add(id(agent))
        pending.extend(agent.handoffs().values())
    raise ValueError(f"the checkpoint's agent {name!r} is not reachable from {root.name!r}")


def shared_sandbox(root: Agent[Any], sandbox: Sandbox | AsyncSandbox | None) -> AsyncSandbox | None:
    """The caller's sandbox for a run of ``root``; its policy must be the agent's."""
    if sandbox is None:
        return None
    shared = sandbox if isinstance(sandbox, AsyncSandbox) else AsyncSandbox.wrap(sandbox)
    if shared.policy.digest() != root.policy.digest():
        raise ValueError(
            f"the sandbox runs policy {shared.policy.name!r} ({shared.policy.digest()[:12]}), "
            f"agent {root.name!r} has {root.policy.name!r} ({root.policy.digest()[:12]})"
        )
    return shared
