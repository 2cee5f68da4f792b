"""LoopState: where one conversation stands — the agent in charge, its messages, the counts.

The loop (:class:`~codeact.loop.AgentLoop`) moves it forward; the stream
(:class:`~codeact.stream.AgentStream`) reads the same object to export a checkpoint or
build the run's output, and a resumed run starts from the one a checkpoint carried.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import JsonValue

from codeact.approval import Checkpoint
from codeact.messages import Message
from codeact.output import AgentOutput, RunFailure

if TYPE_CHECKING:
    from codeact.agent import Agent
    from codeact.events import InteractionRequired
    from codeact.run_state import RunState


@dataclass
class LoopState:
    """One conversation's progress (a sub-agent's call has its own)."""

    agent: Agent[Any]
    messages: list[Message] = field(default_factory=list)
    #: Model calls of the whole conversation, and of the agent in charge since it took over.
    steps: int = 0
    agent_steps: int = 0
    transfers: int = 0
    #: The session's state as of the latest pause for approval (Session.snapshot),
    #: which a checkpoint carries.
    snapshot: bytes | None = None

    @classmethod
    def resumed(cls, agent: Agent[Any], checkpoint: Checkpoint) -> LoopState:
        """The state ``checkpoint`` was taken in, with ``agent`` in charge."""
        return cls(
            agent,
            list(checkpoint.messages),
            checkpoint.steps,
            checkpoint.agent_steps,
            checkpoint.transfers,
            checkpoint.snapshot,
        )

    def checkpoint(
        self, run: RunState, root: Agent[Any], pending: InteractionRequired
    ) -> Checkpoint:
        """This state and ``run``'s totals as a checkpoint, paused on ``pending``."""
        return Checkpoint(
            run_id=run.run_id,
            root_agent=root.name,
            agent=self.agent.name,
            messages=list(self.messages),
            steps=self.steps,
            agent_steps=self.agent_steps,
            transfers=self.transfers,
            usage=run.usage,
            tool_calls=list(run.tool_calls),
            batch_id=pending.batch_id,
            actions=list(pending.actions),
            snapshot=self.snapshot,
        )

    def output(
        self,
        run: RunState,
        value: JsonValue,
        failure: RunFailure | None,
        cls: type[AgentOutput[Any]] = AgentOutput,
    ) -> AgentOutput[Any]:
        """The run's output as of now, as ``cls`` (parametrized with the output type)."""
        return cls(
            run_id=run.run_id,
            agent=self.agent.name,
            value=value,
            messages=list(self.messages),
            tool_calls=list(run.tool_calls),
            usage=run.usage,
            steps=self.steps,
            failure=failure,
        )
