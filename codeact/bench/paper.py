"""One sample under ``--protocol paper``: the CodeAct paper's M3ToolEval harness.

One user message (`paper_format.build_prompt`), then up to 10 model turns at 512
tokens and temperature 0. Each reply is trimmed and read: an ``Answer:`` is graded —
right ends the sample, wrong gets the paper's "incorrect" message; an ``Action:`` runs
— in ``code`` mode as Python in one sandbox session per sample (variables persist; the
observation is what it printed), in ``json`` / ``text`` mode as one direct tool call.
For a single-tool task an action whose result already equals the expected output ends
the sample as correct, as in the paper.
"""

from __future__ import annotations

import asyncio
import inspect
import time
import uuid
from collections.abc import Callable
from typing import Any

from codeact.bench.limited import LimitedModel
from codeact.bench.paper_format import (
    as_observation,
    build_prompt,
    classify,
    clip,
    parse_json_action,
    parse_text_action,
    protocol,
    trim,
)
from codeact.bench.sample import Outcome, SamplePlan, crashed, grade_output
from codeact.bench.seeded import SeededSandbox
from codeact.bench.suite import BenchTask, Suite
from codeact.events import FailureCode
from codeact.messages import Ai, Message
from codeact.models.errors import ModelError
from codeact.output import AgentOutput, RunFailure, ToolCallLog
from codeact.summary import UsageSummary
from sandbox import AsyncSession, Sandbox, SandboxError


def tool_infos(suite: Suite, task: BenchTask) -> list[dict[str, str]]:
    """What the prompt lists: the task's ``metadata["tools"]``, or each tool's docstring
    and signature; the signature shown is the one the tool really has."""
    functions = suite.tools(task)
    listed = task.metadata.get("tools")
    infos: dict[str, dict[str, str]] = {}
    if isinstance(listed, list):
        for item in listed:
            if isinstance(item, dict):
                infos[str(item["name"])] = {k: str(v) for k, v in item.items()}
    for name, fn in functions.items():
        real = f"{name}{inspect.signature(fn)}"
        doc = (inspect.getdoc(fn) or "").split("\n")[0]
        info = infos.setdefault(name, {"name": name, "description": doc, "signature": real})
        info["signature"] = real
    return [infos[name] for name in functions if name in infos]


class _Actions:
    """Runs the actions of one sample, in the mode it was planned for."""

    def __init__(
        self, mode: str, tools: dict[str, Callable[..., Any]], session: AsyncSession | None
    ):
        self.mode, self.tools, self.session = mode, tools, session
        self.usage = UsageSummary()
        self.calls: list[ToolCallLog] = []

    async def run(self, action: str, step: int) -> tuple[str, Any]:
        """The observation text, and the value checked for single-tool early success."""
        if self.mode == "code":
            assert self.session is not None
            execution = await self.session.run(action)
            self.usage = self.usage.with_execution(execution)
            self.calls += [
                ToolCallLog(**call.model_dump(), step=step, agent="paper")
                for call in execution.tool_calls
            ]
            text = execution.stdout
            if execution.output.type == "error":
                text += str(getattr(execution.output, "message", ""))
            value = as_observation(text)
            return clip(value), value
        return await self._call(action)

    async def _call(self, action: str) -> tuple[str, Any]:
        feedback = protocol()["feedback"]
        parse = parse_json_action if self.mode == "json" else parse_text_action
        key = "json_action_invalid" if self.mode == "json" else "text_action_invalid"
        try:
            name, args = parse(action)
        except (ValueError, TypeError) as exc:
            return feedback[key].format(error=exc), None
        fn = self.tools.get(name)
        if fn is None:
            return feedback["unknown_tool"].format(name=name), None
        self.usage = self.usage.model_copy(update={"tool_calls": self.usage.tool_calls + 1})
        try:
            # In a thread: a slow tool must not hold up the other samples' event loop.
            result = await asyncio.to_thread(fn, *args)
        except Exception:
            return feedback["tool_failed"].format(name=name, args=args), None
        return clip(result), result


async def run_paper_sample(
    suite: Suite, plan: SamplePlan, model: LimitedModel, sandbox: Sandbox
) -> Outcome:
    """One attempt of `plan` under the paper's protocol."""
    started = time.monotonic()
    try:
        tools = dict(suite.tools(plan.task))
        session = None
        if plan.action_mode == "code":
            session = SeededSandbox(sandbox, plan.seed).session(tools)
            await session.start()
        try:
            output = await _converse(suite, plan, model, _Actions(plan.action_mode, tools, session))
        finally:
            if session is not None:
                await session.close()
    except SandboxError as exc:
        output = _output(
            [], UsageSummary(), [], RunFailure(code=FailureCode.SANDBOX_FAILED, message=str(exc))
        )
    except Exception as exc:
        return crashed(exc, started)
    return grade_output(suite, plan.task, output, started)


def _output(messages: list[Message], usage: UsageSummary, calls: list[ToolCallLog],
            failure: RunFailure | None, value: Any = None) -> AgentOutput:  # fmt: skip
    steps = sum(1 for m in messages if getattr(m, "role", "") == "ai")
    return AgentOutput(
        run_id=uuid.uuid4().hex, agent="paper", value=value, messages=messages,
        tool_calls=calls, usage=usage, steps=steps, failure=failure,
    )  # fmt: skip


async def _converse(
    suite: Suite, plan: SamplePlan, model: LimitedModel, actions: _Actions
) -> AgentOutput:
    p = protocol()
    settings, feedback = p["settings"], p["feedback"]
    task = plan.task
    messages: list[Message] = [
        Message.human(build_prompt(plan.action_mode, task.input, tool_infos(suite, task)))
    ]
    usage = UsageSummary()
    single_tool = bool(task.metadata.get("is_single_tool_task"))
    for step in range(1, settings["max_turns"] + 1):
        try:
            reply = await model.complete(
                messages, max_tokens=settings["max_tokens"], temperature=settings["temperature"]
            )
        except ModelError as exc:
            failure = RunFailure(code=FailureCode(exc.code.value), message=str(exc))
            return _output(messages, usage + actions.usage, actions.calls, failure)
        usage = usage.with_request(reply.usage())
        text = trim(reply.text())
        messages.append(Ai(content=text, usage=reply.usage()))
        parsed = classify(text)
        if parsed.kind == "answer":
            if suite.grader(task, parsed.content):
                return _output(messages, usage + actions.usage, actions.calls, None, parsed.content)
            answer = feedback["wrong_answer"]
        elif parsed.kind == "action":
            answer, value = await actions.run(parsed.content, step)
            if single_tool and value is not None and suite.grader(task, value):
                return _output(messages, usage + actions.usage, actions.calls, None, _json(value))
        else:
            answer = parsed.content
        if parsed.reminder:
            answer += feedback["extra_reminder_prefix"] + parsed.reminder
        messages.append(Message.human(answer))
    failure = RunFailure(
        code=FailureCode.MAX_STEPS_EXCEEDED,
        message=f"no correct answer within {settings['max_turns']} turns",
    )
    return _output(messages, usage + actions.usage, actions.calls, failure, _last_answer(messages))


def _json(value: Any) -> Any:
    import json

    return json.loads(json.dumps(value, default=str))


def _last_answer(messages: list[Message]) -> str | None:
    for message in reversed(messages):
        if getattr(message, "role", "") == "ai" and "Answer:" in message.text():
            return classify(message.text()).content
    return None
