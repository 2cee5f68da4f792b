"""LoopState: one object the loop moves and the stream reads; a checkpoint round-trips it."""

from __future__ import annotations

from codeact import Agent, Message
from codeact.approval import Checkpoint
from codeact.events import FailureCode, InteractionRequired, PreparedAction
from codeact.loop_state import LoopState
from codeact.models import ScriptedModel
from codeact.output import RunFailure
from codeact.run_state import RunState
from codeact.summary import UsageSummary


def test_a_checkpoint_carries_the_state_and_the_runs_totals_and_resumes_it() -> None:
    helper = Agent("helper", ScriptedModel([]))
    root = Agent("root", ScriptedModel([]), transfer_targets=[helper])
    run = RunState("run-1", lambda _: None)
    run.usage = UsageSummary(requests=3, input_tokens=40)
    state = LoopState(helper, [Message.system("s"), Message.human("t")], 5, 2, 1)
    action = PreparedAction(id="a1", kind="script", agent="helper", step=5, source="x = 1")
    pending = InteractionRequired(batch_id="b1", actions=[action], usage=run.usage)

    checkpoint = Checkpoint.model_validate_json(
        state.checkpoint(run, root, pending).model_dump_json()
    )
    who = (checkpoint.run_id, checkpoint.root_agent, checkpoint.agent)
    assert who == ("run-1", "root", "helper")
    assert (checkpoint.steps, checkpoint.agent_steps, checkpoint.transfers) == (5, 2, 1)
    paused = (checkpoint.batch_id, checkpoint.actions, checkpoint.usage)
    assert paused == ("b1", [action], run.usage)
    assert LoopState.resumed(helper, checkpoint) == state

    resumed_run = RunState("run-1", lambda _: None)
    resumed_run.carry_over(checkpoint)
    assert resumed_run.usage == run.usage and resumed_run.tool_calls == []


def test_the_output_is_read_from_the_same_state_the_loop_moved() -> None:
    agent = Agent("a", ScriptedModel([]))
    run = RunState("run-2", lambda _: None)
    state = LoopState(agent)
    state.messages.append(Message.human("t"))
    state.steps = 4
    failure = RunFailure(code=FailureCode.CANCELLED, message="stopped")
    output = state.output(run, None, failure)
    assert (output.run_id, output.agent, output.steps, output.failure) == ("run-2", "a", 4, failure)
    assert [m.text() for m in output.messages] == ["t"]
    state.messages.append(Message.human("later"))
    assert len(output.messages) == 1  # a copy: the run going on does not change it
