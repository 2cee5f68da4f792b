"""Human approval of scripts and tool calls; checkpoints and resume."""

from __future__ import annotations

import asyncio

import pytest

from codeact import (
    Agent,
    AgentRunFailed,
    Checkpoint,
    Decision,
    InteractionRequired,
    SubmitInteraction,
    tool,
)
from codeact.models import ScriptedModel
from tests.codeact.loop_helpers import arun, py

sent: list[str] = []


def send_email(to: str, body: str) -> str:
    """Send an email."""
    sent.append(to)
    return f"sent to {to}"


def answer(
    event: InteractionRequired, proceed: bool, reason: str | None = None
) -> SubmitInteraction:
    return SubmitInteraction(
        batch_id=event.batch_id,
        decisions=[
            Decision.approve(a) if proceed else Decision.refuse(a, reason) for a in event.actions
        ],
    )


def test_script_approval_granted() -> None:
    agent = Agent("a", ScriptedModel([py("final_result(2 + 2)")]), approval="scripts")
    seen: list[InteractionRequired] = []

    def approver(event: InteractionRequired) -> SubmitInteraction:
        seen.append(event)
        return answer(event, True)

    assert agent.run_sync("t", approver=approver).value == 4
    [event] = seen
    assert event.actions[0].kind == "script" and event.actions[0].source == "final_result(2 + 2)"


def test_script_rejected_is_reported_to_the_model() -> None:
    model = ScriptedModel([py("final_result('risky')"), py("final_result('safe')")])
    agent = Agent("a", model, approval="scripts")
    calls = iter([False, True])
    out = agent.run_sync("t", approver=lambda e: answer(e, next(calls), "too risky"))
    assert out.value == "safe"
    assert "did not approve this script. Reason: too risky" in model.calls[1][-1].text()


def test_tool_approval_waits_outside_the_limits() -> None:
    sent.clear()
    agent = Agent(
        "a",
        ScriptedModel(
            [
                py(
                    "r = []\nfor who in ['ann', 'bob']:\n    try:\n"
                    "        r.append(send_email(who, 'hi'))\n"
                    "    except PermissionError as e:\n        r.append(str(e))\nfinal_result(r)"
                )
            ]
        ),
        tools=[tool(send_email, requires_approval=True)],
        policy="strict",
    )  # 1 s CPU, 2 s wall, 10 s tool timeout per call

    async def approver(event: InteractionRequired) -> SubmitInteraction:
        await asyncio.sleep(2.5)  # longer than the wall limit
        action = event.actions[0]
        assert action.kind == "tool_call" and action.tool == "send_email"
        return answer(event, action.arguments == {"to": "ann", "body": "hi"}, "not bob")

    out = agent.run_sync("mail", approver=approver)
    assert out.value == ["sent to ann", "send_email() was not approved: not bob"]
    assert sent == ["ann"]


def test_approval_needed_without_an_approver_fails_clearly() -> None:
    agent = Agent("a", ScriptedModel([py("final_result(1)")]), approval="scripts")
    with pytest.raises(AgentRunFailed) as info:
        agent.run_sync("t")
    assert info.value.code == "approval_required" and "approver=" in str(info.value)


def test_submit_rejects_mismatched_batches() -> None:
    agent = Agent("a", ScriptedModel([py("final_result(1)")]), approval="scripts")

    async def main() -> None:
        stream = agent.stream("t")
        async for event in stream:
            if isinstance(event, InteractionRequired):
                with pytest.raises(ValueError, match="not the pending one"):
                    stream.submit(SubmitInteraction(batch_id="nope", decisions=[]))
                stream.submit(answer(event, True))
        assert stream.output().value == 1

    arun(main())


def _checkpoint_at(agent: Agent, interaction: int) -> Checkpoint:
    """Approve the interactions before number ``interaction``, then checkpoint and stop."""

    async def main() -> Checkpoint:
        stream = agent.stream("email ann")
        seen = 0
        async for event in stream:
            if isinstance(event, InteractionRequired):
                seen += 1
                if seen == interaction:
                    checkpoint = stream.checkpoint()
                    await stream.aclose()
                    return Checkpoint.model_validate_json(checkpoint.model_dump_json())
                stream.submit(answer(event, True))
        raise AssertionError("no interaction")

    return arun(main())


def test_checkpoint_and_resume_a_script_in_a_new_run() -> None:
    first = Agent("mailer", ScriptedModel([py("y = 5"), py("x = y + 1")]), approval="scripts")
    checkpoint = _checkpoint_at(first, 2)
    assert checkpoint.actions[0].source == "x = y + 1" and checkpoint.steps == 2
    # Resumed later, with a new Agent object (as another process would build it): the
    # pending script runs in a fresh session, where the checkpoint's snapshot rebuilt y.
    second = Agent("mailer", ScriptedModel([py("final_result(x)")]), approval="scripts")
    stream = second.resume(
        checkpoint,
        SubmitInteraction(
            batch_id=checkpoint.batch_id,
            decisions=[Decision.approve(checkpoint.actions[0])],
        ),
    )
    out = arun(stream.result(lambda e: answer(e, True)))
    assert out.value == 6
    assert out.run_id == checkpoint.run_id and out.steps == 3
    told = second.model.calls[0][-1].text()  # type: ignore[attr-defined]
    assert "resumed from a checkpoint" in told and "were restored" in told


def test_checkpoint_and_resume_a_tool_call() -> None:
    sent.clear()
    agent = Agent(
        "mailer",
        ScriptedModel([py("send_email('ann', 'hi')")]),
        tools=[tool(send_email, requires_approval=True)],
    )
    checkpoint = _checkpoint_at(agent, 1)
    assert sent == [] and checkpoint.actions[0].arguments == {"to": "ann", "body": "hi"}
    resumed = Agent(
        "mailer",
        ScriptedModel([py("final_result('done')")]),
        tools=[tool(send_email, requires_approval=True)],
    )
    stream = resumed.resume(
        checkpoint,
        SubmitInteraction(
            batch_id=checkpoint.batch_id,
            decisions=[Decision.approve(checkpoint.actions[0])],
        ),
    )
    out = arun(stream.result())
    assert out.value == "done" and sent == ["ann"]
    told = resumed.model.calls[0][-1].text()  # type: ignore[attr-defined]
    assert (
        'The approved call send_email({"to": "ann", "body": "hi"}) returned: "sent to ann"' in told
    )


def test_checkpoint_only_while_waiting() -> None:
    agent = Agent("a", ScriptedModel([py("final_result(1)")]))

    async def main() -> None:
        stream = agent.stream("t")
        with pytest.raises(ValueError, match="only be taken while"):
            stream.checkpoint()
        await stream.result()

    arun(main())
