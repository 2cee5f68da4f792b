"""No silent failure: a fault at any stage of a run ends it with exactly one Failed event.

Each case injects the fault for real — a model or tool that raises, or a stage of the
loop monkeypatched to raise — and checks the run's whole event stream, its output and
what ``run()`` raises.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

import pytest

from codeact import (
    Agent,
    AgentEvent,
    AgentRunFailed,
    Completed,
    Failed,
    FailureCode,
    ScriptExecuted,
    tool,
)
from codeact.agent import Approver
from codeact.messages import Message
from codeact.models import FunctionModel, ScriptedModel
from codeact.models.testing import CallInfo
from sandbox import AsyncSandbox, AsyncSession, SandboxError
from tests.codeact.loop_helpers import arun, py


class Boom(Exception):
    """The injected fault."""


def boom(*args: Any, **kwargs: Any) -> NoReturn:
    raise Boom("injected fault")


async def aboom(*args: Any, **kwargs: Any) -> NoReturn:
    raise Boom("injected fault")


def events_of(agent: Agent, task: str = "t", approver: Approver | None = None) -> list[Any]:
    """Every event of one run (approvals answered by ``approver``), and check that
    ``result()`` agrees with them."""

    async def main() -> list[AgentEvent]:
        stream = agent.stream(task)
        events: list[AgentEvent] = []
        async for event in stream:
            events.append(event)
            if event.type == "interaction_required" and approver is not None:
                try:
                    stream.submit(approver(event))  # type: ignore[arg-type]
                except Boom as exc:
                    stream._ctx.broker.abort(FailureCode.INTERNAL_ERROR, f"Boom: {exc}")
        failure = stream.output().failure
        if failure is None:
            assert isinstance(events[-1], Completed)
        else:
            with pytest.raises(AgentRunFailed) as info:
                await stream.result()
            assert info.value.code == failure.code
        return events

    return arun(main())


def only_terminal(events: list[Any]) -> Completed | Failed:
    terminal = [e for e in events if isinstance(e, (Completed, Failed))]
    assert len(terminal) == 1, events
    assert events[-1] is terminal[0]
    return terminal[0]


def assert_internal_error(events: list[Any], type_name: str, text: str) -> None:
    end = only_terminal(events)
    assert isinstance(end, Failed), end
    assert end.code == FailureCode.INTERNAL_ERROR == "internal_error"
    assert type_name in end.message and text in end.message, end.message


@pytest.mark.timeout(30)
def test_a_model_raising_a_plain_exception_fails_the_run() -> None:
    def fn(messages: list[Message], info: CallInfo) -> str:
        raise RuntimeError("x")

    agent = Agent("t", FunctionModel(fn))
    with pytest.raises(AgentRunFailed) as info:
        agent.run_sync("task")
    assert info.value.code == "internal_error"
    assert info.value.output.failure is not None
    assert info.value.output.failure.message == "internal error: RuntimeError: x"
    assert_internal_error(events_of(agent), "RuntimeError", "x")


@pytest.mark.timeout(30)
def test_a_function_model_returning_none_fails_the_run() -> None:
    agent = Agent("t", FunctionModel(lambda messages, info: None))  # type: ignore[arg-type,return-value]
    assert_internal_error(events_of(agent), "TypeError", "must return str or Ai, not NoneType")


class Unprintable(Exception):
    def __str__(self) -> str:
        raise ValueError("no text for you")


def unprintable_tool() -> None:
    """Fails with an exception that cannot be shown."""
    raise Unprintable()


@pytest.mark.timeout(60)
def test_a_tool_whose_exception_cannot_be_printed_never_ends_in_silence() -> None:
    model = ScriptedModel(
        [
            py("unprintable_tool()"),
            py("final_result('went on')"),
        ]
    )
    events = events_of(Agent("t", model, tools=[unprintable_tool]))
    # The tool's own failure reaches the script, named by its type (not the ValueError
    # its __str__ raises), and the run goes on to its final result.
    first = next(e for e in events if isinstance(e, ScriptExecuted))
    assert "Unprintable: (its message could not be shown)" in first.feedback, first.feedback
    assert "no text for you" not in first.feedback
    end = only_terminal(events)
    assert isinstance(end, Completed) and end.result == "went on", end


ONE_STEP = [py("final_result(1)")]
SCRIPTS = {"approval": "scripts"}


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("stage", "target", "replacement", "replies", "options"),
    [
        ("model call", "codeact.models.testing._RecordingModel._request", aboom, ONE_STEP, {}),
        ("extraction", "codeact.loop.extract_code", boom, ONE_STEP, {}),
        ("system prompt", "codeact.loop.system_prompt", boom, ONE_STEP, {}),
        ("sandbox start", "sandbox.host.aio.AsyncSandbox.start", aboom, ONE_STEP, {}),
        ("session start", "sandbox.host.aio.AsyncSession.start", aboom, ONE_STEP, {}),
        ("run", "sandbox.host.aio.AsyncSession.run", aboom, ONE_STEP, {}),
        ("feedback", "codeact.loop.render_feedback", boom, [py("x = 1")], {}),
        ("resumed note", "codeact.loop.render", boom, [py("final_result({})")], {}),
        (
            "output validation",
            "codeact.schema.OutputSchema.check",
            staticmethod(boom),
            ONE_STEP,
            {"output_schema": {"type": "integer"}},
        ),
        ("transfer", "codeact.loop.AgentLoop._transfer", aboom, [py("transfer_to_agent('b')")], {}),
        ("approval", "codeact.approval.InteractionBroker.ask", aboom, ONE_STEP, SCRIPTS),
        ("close", "sandbox.host.aio.AsyncSandbox.close", aboom, ONE_STEP, {}),
    ],
)
def test_a_fault_at_any_stage_ends_the_run_with_one_failed_event(
    monkeypatch: pytest.MonkeyPatch,
    stage: str,
    target: str,
    replacement: Callable[..., Any],
    replies: list[str],
    options: dict[str, Any],
) -> None:
    if stage == "resumed note":
        # render() runs for the schema correction: ask for an int, return a dict.
        options = {"output_schema": {"type": "integer"}}
    if stage == "close":
        real_close = AsyncSandbox.close

        async def close_then_fail(self: AsyncSandbox) -> NoReturn:
            await real_close(self)
            raise Boom("injected fault")

        replacement = close_then_fail
    monkeypatch.setattr(target, replacement)
    other = Agent("b", ScriptedModel(ONE_STEP))
    agent = Agent("a", ScriptedModel(replies), transfer_targets=[other], **options)
    assert_internal_error(events_of(agent), "Boom", "injected fault")


@pytest.mark.timeout(60)
def test_an_approver_that_raises_fails_the_run() -> None:
    agent = Agent("a", ScriptedModel(ONE_STEP), approval="scripts")
    assert_internal_error(events_of(agent, approver=boom), "Boom", "injected fault")

    async def main() -> None:
        again = Agent("a", ScriptedModel(ONE_STEP), approval="scripts")
        with pytest.raises(AgentRunFailed) as info:
            await again.run("t", approver=boom)
        assert info.value.code == "internal_error"
        assert "the approver failed: Boom: injected fault" in str(info.value)

    arun(main())


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("error", "name"),
    [
        (SandboxError("the sandbox is closed"), "the sandbox is closed"),
        (BrokenPipeError(32, "Broken pipe"), "BrokenPipeError"),
        (TimeoutError(), "TimeoutError"),
    ],
)
def test_sandbox_machinery_failures_are_sandbox_failed(
    monkeypatch: pytest.MonkeyPatch, error: Exception, name: str
) -> None:
    async def fail(self: AsyncSession, source: str) -> NoReturn:
        raise error

    monkeypatch.setattr(AsyncSession, "run", fail)
    end = only_terminal(events_of(Agent("a", ScriptedModel(ONE_STEP))))
    assert isinstance(end, Failed) and end.code == FailureCode.SANDBOX_FAILED
    assert name in end.message


@pytest.mark.timeout(120)
def test_runs_after_the_zygote_was_killed_end_in_typed_outcomes() -> None:
    import os
    import signal

    from sandbox import Sandbox

    policy = Agent("a", ScriptedModel([])).policy
    with Sandbox(policy, spares=2) as sandbox:
        zygote = sandbox.health().zygote_pid
        assert zygote is not None
        os.kill(zygote, signal.SIGKILL)
        ends = []
        for _ in range(4):
            agent = Agent("a", ScriptedModel([py("final_result(1)")] * 3))

            async def main(agent: Agent = agent) -> list[AgentEvent]:
                events: list[AgentEvent] = []
                async for event in agent.stream("t", sandbox=sandbox):
                    events.append(event)
                return events

            end = only_terminal(arun(main()))
            if isinstance(end, Failed):
                assert end.code == FailureCode.SANDBOX_FAILED, end
            else:
                assert end.result == 1
            ends.append(end)
        # The zygote was replaced: the runs after the first are served again.
        assert all(isinstance(end, Completed) for end in ends[1:]), ends
        assert sandbox.health().zygote_restarts >= 1


def test_the_loop_task_never_ends_with_an_exception(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("codeact.loop.extract_code", boom)

    async def main() -> None:
        stream = Agent("a", ScriptedModel(ONE_STEP)).stream("t")
        async for _ in stream:
            pass
        await stream.aclose()
        runner = stream._runner
        assert runner is not None and runner.done() and runner.exception() is None

    arun(main())


def gated_agent(calls: list[float]) -> Agent:
    def charge(amount: float) -> float:
        """Charge the card."""
        calls.append(amount)
        return amount

    model = ScriptedModel(
        [py("try:\n    charge(3)\nexcept Exception:\n    pass\nfinal_result('went on')")] * 2
    )
    return Agent("a", model, tools=[tool(charge, requires_approval=True)])


@pytest.mark.timeout(60)
def test_a_tool_approval_nobody_can_give_ends_the_run() -> None:
    calls: list[float] = []
    with pytest.raises(AgentRunFailed) as info:
        gated_agent(calls).run_sync("t")
    assert info.value.code == "approval_required" and calls == []
    assert info.value.output.value is None


@pytest.mark.timeout(60)
def test_an_approver_failing_on_a_tool_call_ends_the_run() -> None:
    calls: list[float] = []
    end = only_terminal(events_of(gated_agent(calls), approver=boom))
    assert isinstance(end, Failed) and end.code == FailureCode.INTERNAL_ERROR
    assert "Boom: injected fault" in end.message and calls == []

    async def main() -> None:
        with pytest.raises(AgentRunFailed) as info:
            await gated_agent(calls).run("t", approver=boom)
        assert info.value.code == "internal_error"
        assert "the approver failed: Boom: injected fault" in str(info.value)

    arun(main())
    assert calls == []


@pytest.mark.timeout(60)
def test_a_policy_the_sandbox_cannot_start_is_sandbox_failed(tmp_path: Any) -> None:
    from sandbox import Mount, SandboxPolicy

    gone = Mount(sandbox_path="/data", host_path=str(tmp_path / "gone"))
    policy = SandboxPolicy.preset("default").with_mounts(gone)
    with pytest.raises(AgentRunFailed) as info:
        Agent("a", ScriptedModel(ONE_STEP), policy=policy).run_sync("t")
    assert info.value.code == "sandbox_failed" and "does not exist" in str(info.value)
