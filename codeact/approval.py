"""Human approval: the broker that pauses a run for decisions, and checkpoints.

When a script (``approval="scripts"``) or a tool call (``approval="tools"`` or a tool
with ``requires_approval``) needs a decision, the run emits ``InteractionRequired`` and
waits — outside every sandbox limit — until ``SubmitInteraction`` answers it. While it
waits, the run can be exported as a :class:`Checkpoint` (JSON) and resumed later,
possibly in another process. The live session travels as its snapshot
(``Session.snapshot``): the resumed run restores the variables, functions and imports
of earlier steps in a fresh session (the model is told what was not kept). A pending
script is run (or refused) on resume; a pending tool call is executed (or refused)
directly by the host and its result reported to the model, since the script that made
it no longer exists.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from codeact.errors import RunEnded
from codeact.events import (
    Decision,
    FailureCode,
    InteractionRequired,
    PreparedAction,
    SubmitInteraction,
)
from codeact.messages import Message
from codeact.output import ToolCallLog
from codeact.summary import UsageSummary


class Checkpoint(BaseModel):
    """A run paused for approval, as JSON. See the module docstring for what is lost."""

    model_config = ConfigDict(frozen=True)

    version: Literal[1] = 1
    run_id: str
    root_agent: str
    agent: str = Field(description="The agent in charge when the run paused.")
    messages: list[Message]
    steps: int
    agent_steps: int
    transfers: int
    usage: UsageSummary
    tool_calls: list[ToolCallLog]
    batch_id: str
    actions: list[PreparedAction]
    snapshot: bytes | None = Field(
        None,
        description="The session's state (Session.snapshot) when the run paused, restored "
        "on resume; None when there was none to keep.",
    )


class InteractionBroker:
    """Hands pending actions to whoever consumes the run, and their decisions back."""

    def __init__(self, emit: Callable[[InteractionRequired], None]) -> None:
        self._emit = emit
        self._pending: tuple[InteractionRequired, asyncio.Future[SubmitInteraction]] | None = None
        self._lock = asyncio.Lock()

    @property
    def pending(self) -> InteractionRequired | None:
        """The interaction the run is waiting for, if any."""
        return self._pending[0] if self._pending else None

    async def ask(self, actions: list[PreparedAction], usage: UsageSummary) -> dict[str, Decision]:
        """Emit one InteractionRequired and wait for its decisions (no timeout)."""
        async with self._lock:  # one batch at a time
            request = InteractionRequired(batch_id=uuid.uuid4().hex, actions=actions, usage=usage)
            future: asyncio.Future[SubmitInteraction] = asyncio.get_running_loop().create_future()
            self._pending = (request, future)
            self._emit(request)
            try:
                submission = await future
            finally:
                self._pending = None
        decisions = {d.action_id: d for d in submission.decisions}
        return {
            a.id: decisions.get(
                a.id, Decision(action_id=a.id, proceed=False, reason="no decision was given")
            )
            for a in actions
        }

    def submit(self, submission: SubmitInteraction) -> None:
        """Answer the pending interaction; raises ValueError when it does not match."""
        if self._pending is None:
            raise ValueError("the run is not waiting for an interaction")
        request, future = self._pending
        if submission.batch_id != request.batch_id:
            raise ValueError(
                f"batch {submission.batch_id!r} is not the pending one ({request.batch_id!r})"
            )
        known = {a.id for a in request.actions}
        unknown = [d.action_id for d in submission.decisions if d.action_id not in known]
        if unknown:
            raise ValueError(f"decisions for unknown actions: {', '.join(unknown)}")
        if not future.done():
            future.set_result(submission)

    def abort(self, code: FailureCode, message: str) -> None:
        """End the run instead of answering the pending interaction."""
        if self._pending is not None and not self._pending[1].done():
            self._pending[1].set_exception(RunEnded(code, message))


def new_action_id() -> str:
    """A fresh PreparedAction id."""
    return uuid.uuid4().hex[:12]
