"""A run's variables survive a checkpoint, and a conversation survives its process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from codeact import (
    Agent,
    Checkpoint,
    ConversationState,
    Decision,
    InteractionRequired,
    SubmitInteraction,
    tool,
)
from codeact.models import ScriptedModel
from tests.codeact.loop_helpers import arun, py

pytestmark = pytest.mark.timeout(120)
sent: list[str] = []


def send(to: str) -> str:
    """Send a note."""
    sent.append(to)
    return f"sent to {to}"


def _paused(agent: Agent) -> Checkpoint:
    async def main() -> Checkpoint:
        stream = agent.stream("go")
        async for event in stream:
            if isinstance(event, InteractionRequired):
                checkpoint = stream.checkpoint()
                await stream.aclose()
                return Checkpoint.model_validate_json(checkpoint.model_dump_json())
        raise AssertionError("the run never paused")

    return arun(main())


def test_a_tool_approval_checkpoint_keeps_the_steps_before() -> None:
    sent.clear()
    gated = tool(send, requires_approval=True)
    first = Agent(
        "mailer",
        ScriptedModel(
            [py("who = ['ann', 'bo']\ndef greet(n):\n    return 'hi ' + n"), py("r = send(who[0])")]
        ),
        tools=[gated],
    )
    checkpoint = _paused(first)
    assert checkpoint.snapshot is not None
    assert {"who", "greet"} <= set(json.loads(checkpoint.snapshot)["variables"])
    second = Agent(
        "mailer", ScriptedModel([py("final_result([greet(who[1]), len(who)])")]), tools=[gated]
    )
    decision = Decision.approve(checkpoint.actions[0])
    stream = second.resume(
        checkpoint, SubmitInteraction(batch_id=checkpoint.batch_id, decisions=[decision])
    )
    out = arun(stream.result())
    assert out.value == ["hi bo", 2] and sent == ["ann"]
    told = second.model.calls[0][-1].text()  # type: ignore[attr-defined]
    assert "were restored" in told and "interrupted" in told


def test_a_checkpoint_without_a_session_has_no_snapshot() -> None:
    agent = Agent("a", ScriptedModel([py("final_result(1)")]), approval="scripts")
    assert _paused(agent).snapshot is None


SAVE = """
import json, sys
from codeact import Agent
from codeact.models import ScriptedModel
fence = "`" * 3
model = ScriptedModel([f"{fence}python\\nrows = [3, 4]\\nfinal_result(sum(rows))\\n{fence}"])
with Agent("analyst", model).conversation() as conv:
    conv.run_sync("Sum the rows")
    sys.stdout.write(conv.save_sync().model_dump_json())
"""

REOPEN = """
import sys
from codeact import Agent, ConversationState
from codeact.models import ScriptedModel
fence = "`" * 3
state = ConversationState.model_validate_json(sys.stdin.read())
model = ScriptedModel([f"{fence}python\\nrows.append(5)\\nfinal_result(rows)\\n{fence}"])
with Agent("analyst", model).conversation(state=state) as conv:
    out = conv.run_sync("Add a row")
    roles = [m.role for m in model.calls[0]]
    print(out.value, conv.turns, conv.usage.requests, roles)
"""


def test_a_conversation_saved_in_one_process_goes_on_in_another(tmp_path: Path) -> None:
    saved = subprocess.run(
        [sys.executable, "-c", SAVE], capture_output=True, text=True, timeout=100
    )
    assert saved.returncode == 0, saved.stderr[-2000:]
    state = ConversationState.model_validate_json(saved.stdout)
    assert state.turns == 1 and state.snapshot is not None
    reopened = subprocess.run(
        [sys.executable, "-c", REOPEN],
        input=saved.stdout,
        capture_output=True,
        text=True,
        timeout=100,
    )
    assert reopened.returncode == 0, reopened.stderr[-2000:]
    assert reopened.stdout.strip() == ("[3, 4, 5] 2 2 ['system', 'human', 'ai', 'human']")


def test_a_saved_conversation_belongs_to_its_agent() -> None:
    with Agent("a", ScriptedModel([])).conversation() as conv:
        state = conv.save_sync()
    with pytest.raises(ValueError, match="belongs to agent 'a'"):
        Agent("b", ScriptedModel([])).conversation(state=state)
