"""The run loop: prompt → model reply → extract code → run in the sandbox → feedback.

:class:`AgentLoop` drives one conversation: it moves a
:class:`~codeact.loop_state.LoopState` forward, owns a sandbox session for the agent in
charge, swaps agent (and session) on a transfer, and returns the final result or raises
:class:`~codeact.errors.RunEnded`.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue, TypeAdapter, ValidationError

from codeact import telemetry
from codeact.approval import prepare_script, prepare_tool_call
from codeact.context import RunContext, bind_context, takes_context
from codeact.errors import RunEnded, describe_exception
from codeact.events import (
    Decision,
    FailureCode,
    ModelReplied,
    PreparedAction,
    ScriptExecuted,
    Transferred,
)
from codeact.extract import extract_code
from codeact.feedback import feedback_id, render_feedback, with_images
from codeact.loop_session import LoopSession
from codeact.loop_state import LoopState
from codeact.messages import Ai, Message, resolve_history
from codeact.model_call import ask_model
from codeact.models.errors import ModelError
from codeact.output import ToolCallLog
from codeact.prompting import render, system_prompt
from codeact.run_state import RunState
from codeact.schema import OutputSchema
from codeact.settle import settle
from codeact.summary import plural
from codeact.tools import Tool
from sandbox import (
    Execution,
    PolicyError,
    SandboxError,
    ScriptImage,
)

if TYPE_CHECKING:
    from opentelemetry.trace import Span

    from codeact.agent import Agent
    from codeact.conversation import SessionLease

_log = logging.getLogger("codeact.loop")


class AgentLoop:
    """One conversation, from the first model call to a final result."""

    def __init__(self, ctx: RunState, state: LoopState, lease: SessionLease | None = None) -> None:
        self.ctx = ctx
        self.state = state
        #: The session of the agent in charge (a conversation's ``lease`` when its agent).
        self.session = LoopSession(self, lease)
        self._schema_retries = 0
        #: The span of the script running now: the parent of its tool calls' spans.
        self._script_span: Span | None = None

    @property
    def agent(self) -> Agent[Any]:
        """The agent in charge now."""
        return self.state.agent

    # -- sessions ------------------------------------------------------------------
    def system_message(self, agent: Agent[Any]) -> Message:
        """The rendered system prompt of ``agent``."""
        return Message.system(
            system_prompt(
                agent.templates,
                agent_name=agent.name,
                instructions=agent.instructions,
                tools={name: t.fn for name, t in self._visible_tools(agent).items()},
                sub_agents={a.name: a.description for a in agent.sub_agents},
                transfer_targets={a.name: a.description for a in agent.handoffs().values()},
                policy=agent.policy,
            )
        )

    def _visible_tools(self, agent: Agent[Any]) -> dict[str, Tool]:
        """The tools as the script and the prompt see them (without a RunContext)."""
        tools = self.ctx.tools_of(agent)
        return {
            name: (
                Tool(bind_context(t.fn, lambda: self._run_context(agent)), name,
                     t.requires_approval, t.timeout_s, t.description)
                if takes_context(t.fn)
                else t
            )
            for name, t in tools.items()
        }

    def _run_context(self, agent: Agent[Any]) -> RunContext[Any]:
        return RunContext(deps=self.ctx.deps, run_id=self.ctx.run_id, agent_name=agent.name)

    async def keep_state(self) -> None:
        """Snapshot the session (if there is one) for a checkpoint taken from now on."""
        self.state.snapshot = await self.session.snapshot()

    def session_tools(
        self, agent: Agent[Any]
    ) -> tuple[dict[str, Callable[..., Any]], dict[str, float | None], bool]:
        """The functions a session of ``agent`` offers its scripts (bound to this run),
        their timeouts, and whether a gate must approve their calls."""
        specs = self._visible_tools(agent)
        tools: dict[str, Callable[..., Any]] = {
            n: telemetry.traced_tool(n, t.fn, lambda: self._script_span) for n, t in specs.items()
        }
        timeouts: dict[str, float | None] = {
            n: t.timeout_s for n, t in specs.items() if t.timeout_s is not None
        }
        for sub in agent.sub_agents:
            tools[sub.name] = telemetry.traced_tool(
                sub.name, self._sub_agent_tool(sub), lambda: self._script_span
            )
            timeouts[sub.name] = None
        return tools, timeouts, self._gated(agent)

    def _gated(self, agent: Agent[Any]) -> bool:
        """Whether some tool call of ``agent``'s scripts needs approval."""
        tools = self.ctx.tools_of(agent).values()
        return agent.approval == "tools" or any(t.requires_approval for t in tools)

    async def close(self) -> None:
        """End the current sandbox session (a conversation's stays open)."""
        await self.session.close()

    def _sub_agent_tool(self, sub: Agent[Any]) -> Callable[..., Any]:
        async def call_agent(task: str) -> JsonValue:
            loop = AgentLoop(self.ctx, LoopState(sub))
            loop.state.messages = [loop.system_message(sub), Message.human(task)]
            try:
                return await loop.run_traced()
            except RunEnded as ended:
                raise RuntimeError(
                    f"agent {sub.name!r} failed ({ended.code}): {ended.message}"
                ) from None
            finally:
                await settle(loop.close())

        call_agent.__name__ = sub.name
        call_agent.__doc__ = sub.description
        return call_agent

    async def gate(self, name: str, arguments: dict[str, Any]) -> str | None:
        """Ask for approval of a tool call when it needs one: None to proceed, else why
        it was refused."""
        agent = self.agent
        spec = self.ctx.tools_of(agent).get(name)
        if agent.approval != "tools" and not (spec and spec.requires_approval):
            return None
        if self.ctx.ended is not None:  # a later call of the same script: no new request
            return f"the run ended ({self.ctx.ended.code}): {self.ctx.ended.message}"
        action = prepare_tool_call(
            agent.name, self.state.steps, name, arguments, self.state.snapshot
        )
        try:
            decision = (await self._ask(action))[action.id]
        except RunEnded as ended:
            self.ctx.ended = self.ctx.ended or ended
            return f"the run ended ({ended.code}): {ended.message}"
        return None if decision.proceed else (decision.reason or "rejected")

    async def _ask(self, action: PreparedAction) -> dict[str, Decision]:
        """Wait for the decision on ``action``, within the agent's approval timeout."""
        timeout_s = self.agent.approval_timeout_s
        return await self.ctx.broker.ask([action], self.ctx.usage, timeout_s)

    # -- the loop ------------------------------------------------------------------
    async def run_traced(self) -> JsonValue:
        """:meth:`run` inside an ``invoke_agent`` span."""
        with telemetry.agent_span(self.agent.name, self.ctx.run_id, self.agent.model) as span:
            try:
                return await self.run()
            except RunEnded as ended:
                telemetry.record_failure(span, ended.code, ended.message)
                raise

    async def run(self) -> JsonValue:
        """Drive the conversation until a final result; raises RunEnded otherwise."""
        state = self.state
        while True:
            if state.agent_steps >= state.agent.max_steps:
                raise RunEnded(
                    FailureCode.MAX_STEPS_EXCEEDED,
                    f"{state.agent.name} took {plural(state.agent_steps, 'step')} without a "
                    f"final result (max_steps={state.agent.max_steps})",
                )
            with telemetry.step_span(state.steps + 1, state.agent.name):
                outcome = await self._step()
            if not isinstance(outcome, Continue):
                return outcome

    async def _step(self) -> JsonValue | Continue:
        reply = await self._ask_model()
        source = extract_code(reply.text(), self.agent.code_blocks)
        self.ctx.emit(
            ModelReplied(
                step=self.state.steps,
                agent=self.agent.name,
                content=reply.text(),
                thinking=reply.thinking(),
                code=source,
            )
        )
        if source is None:
            self._tell(self.agent.templates["no_code"].strip())
            return CONTINUE
        if self.agent.approval == "scripts" and not await self._script_approved(source):
            return CONTINUE
        return await self.execute(source)

    async def _ask_model(self) -> Ai:
        state, agent = self.state, self.agent
        state.steps += 1
        state.agent_steps += 1
        history = resolve_history(state.messages)
        if agent.history_processor is not None:
            history = agent.history_processor(history)
        with telemetry.chat_span(
            agent.model, agent.max_tokens, agent.temperature, history
        ) as span:
            try:
                emit = self.ctx.emit if self.ctx.stream_tokens else None
                reply = await ask_model(agent, history, step=state.steps, emit=emit)
            except ModelError as exc:
                telemetry.record_failure(span, exc.code.value, str(exc))
                raise RunEnded(FailureCode(exc.code.value), str(exc)) from None
            telemetry.record_reply(span, reply)
        state.messages.append(reply)
        self.ctx.usage = self.ctx.usage.with_request(reply.usage())
        return reply

    def _tell(self, text: str, images: list[ScriptImage] | None = None) -> None:
        content = with_images(text, images or [], visible=self.agent.model.vision)
        self.state.messages.append(Message.human(content, id=feedback_id()))

    async def _script_approved(self, source: str) -> bool:
        await self.keep_state()
        action = prepare_script(self.agent.name, self.state.steps, source, self.state.snapshot)
        decision = (await self._ask(action))[action.id]
        if not decision.proceed:
            self._tell(
                render(
                    self.agent.templates["rejected"],
                    kind="script",
                    reason=decision.reason or "none given",
                ).strip()
            )
        return decision.proceed

    async def execute(
        self, source: str, *, note: str = "", kept: bool = False
    ) -> JsonValue | Continue:
        """Run one script and act on its output: the final value, or CONTINUE. ``note``
        opens the feedback (on resume; ``kept``: the variables were restored)."""
        try:
            session = await self.session.open()
            if self._gated(self.agent):
                await self.keep_state()  # a checkpoint during a tool approval keeps it
            with telemetry.script_span(self.agent.policy, source) as span:
                self._script_span = span
                try:
                    execution = await session.run(source)
                finally:
                    self._script_span = None
                telemetry.record_execution(span, execution)
        except PolicyError as exc:  # found only when the sandbox starts: a missing mount
            raise RunEnded(FailureCode.SANDBOX_FAILED, f"the sandbox cannot start: {exc}") from None
        except SandboxError as exc:
            raise RunEnded(FailureCode.SANDBOX_FAILED, str(exc)) from None
        except OSError as exc:
            # A broken channel or a bounded wait that ran out: the machinery failed.
            raise RunEnded(FailureCode.SANDBOX_FAILED, describe_exception(exc)) from None
        if self.ctx.ended is not None:
            raise self.ctx.ended
        _log.debug(
            "run %s step %d (%s): script %s, %s, %.3f s CPU, %d tool call(s)",
            self.ctx.run_id, self.state.steps, self.agent.name, execution.error_code or "ran",
            execution.output.type, execution.cpu_s, len(execution.tool_calls),
        )
        self._record(execution)
        output = execution.output
        if output.type == "final_result":
            problem = OutputSchema.check(self.agent.output_schema, output.value)
            if problem is None:
                self._executed(source, execution, "(final result)")
                return output.value
            return self._schema_problem(source, execution, problem)
        if output.type == "transfer_to_agent":
            return await self._transfer(source, execution, output.agent_name)
        feedback = render_feedback(execution, self.agent.feedback, self.agent.templates)
        if kept and not execution.worker_restarted:
            feedback = f"{note}\n\n{feedback}"
        elif execution.worker_restarted or note:
            detail = note or "The previous step stopped its worker."
            restarted = render(self.agent.templates["resumed"], detail=detail).strip()
            feedback = f"{restarted}\n\n{feedback}"
        self._executed(source, execution, feedback)
        self._tell(feedback, execution.images)
        return CONTINUE

    def _record(self, execution: Execution) -> None:
        self.ctx.usage = self.ctx.usage.with_execution(execution)
        for call in execution.tool_calls:
            self.ctx.tool_calls.append(
                ToolCallLog(**call.model_dump(), step=self.state.steps, agent=self.agent.name)
            )

    def _executed(self, source: str, execution: Execution, feedback: str) -> None:
        self.ctx.emit(
            ScriptExecuted(
                step=self.state.steps,
                agent=self.agent.name,
                source=source,
                execution=execution,
                feedback=feedback,
            )
        )

    def _schema_problem(self, source: str, execution: Execution, problem: str) -> Continue:
        self._schema_retries += 1
        if self._schema_retries > self.agent.max_output_retries:
            raise RunEnded(
                FailureCode.INVALID_OUTPUT,
                f"the final result does not match the output schema: {problem}",
            )
        schema = json.dumps(OutputSchema.json_schema(self.agent.output_schema))
        text = render(self.agent.templates["invalid_output"], errors=problem, schema=schema).strip()
        self._executed(source, execution, text)
        self._tell(text)
        return CONTINUE

    async def _transfer(self, source: str, execution: Execution, name: str) -> Continue:
        targets = self.agent.handoffs()
        target = targets.get(name)
        if target is None:
            valid = ", ".join(targets) or "(none: this agent cannot transfer)"
            text = render(self.agent.templates["unknown_agent"], name=name, valid=valid).strip()
            self._executed(source, execution, text)
            self._tell(text)
            return CONTINUE
        self.state.transfers += 1
        if self.state.transfers > self.agent.max_transfers:
            raise RunEnded(
                FailureCode.TRANSFER_LOOP,
                f"more than {self.agent.max_transfers} transfers in one run "
                f"(last: {self.agent.name} -> {name})",
            )
        self._executed(source, execution, f"(transferred to {name})")
        self.ctx.emit(Transferred(step=self.state.steps, from_agent=self.agent.name, to_agent=name))
        await self.close()
        previous, self.state.agent, self.state.agent_steps = self.agent.name, target, 0
        self.state.messages[0] = self.system_message(target)
        self._tell(
            render(
                target.templates["transferred"], agent_name=target.name, from_agent=previous
            ).strip()
        )
        return CONTINUE

    async def run_approved_tool(
        self, action: PreparedAction, proceed: bool, reason: str | None
    ) -> str:
        """On resume: carry out (or refuse) a pending tool call outside any script."""
        if not proceed:
            return render(
                self.agent.templates["rejected"], kind="tool call", reason=reason or "none given"
            ).strip()
        spec = self._visible_tools(self.agent).get(action.tool or "")
        if spec is None:
            return f"Error: the tool {action.tool!r} no longer exists."
        try:
            result = spec.fn(**(action.arguments or {}))
            if asyncio.iscoroutine(result):
                result = await result
            text = json.dumps(TypeAdapter(Any).dump_python(result, mode="json"))
        except (ValidationError, Exception) as exc:
            return f"Error: the approved call {action.tool}() failed: {type(exc).__name__}: {exc}"
        return f"The approved call {action.tool}({json.dumps(action.arguments)}) returned: {text}"


class Continue:
    """What :meth:`AgentLoop.execute` returns when the conversation goes on."""

    def __repr__(self) -> str:
        return "<continue>"


CONTINUE = Continue()
