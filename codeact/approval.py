"""Human approval: the broker that pauses a run for decisions, and checkpoints.

When a script (``approval="scripts"``) or a tool call (``approval="tools"`` or a tool
with ``requires_approval``) needs a decision, the run emits ``InteractionRequired`` and
waits — outside every sandbox limit, for at most ``approval_timeout_s`` when the agent
sets one — until ``SubmitInteraction`` answers it. Each approval names the digest of
the action it approves (:attr:`PreparedAction.digest`, computed from the content).

While it waits, the run can be exported as a :class:`Checkpoint` (JSON) and resumed
later, possibly in another process. Whoever can write the stored checkpoint could
change what it would run, so :func:`resume_plan` recomputes each action's digest from
the checkpoint's content and runs it only when an approval names that digest; it
refuses duplicate action ids, decisions on actions the checkpoint does not hold, and,
given the application's key, a checkpoint that is unsigned or whose signature does not
match (:meth:`Checkpoint.signed`). The live session travels as its snapshot
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
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from codeact.digests import sign, signature_matches, state_digest
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


class CheckpointRefused(ValueError):
    """A checkpoint that cannot be resumed as it is; the message says why."""


class Checkpoint(BaseModel):
    """A run paused for approval, as JSON. See the module docstring for what is lost
    and for what resuming checks."""

    model_config = ConfigDict(frozen=True)

    version: Literal[2] = 2
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
    signature: str | None = Field(
        None, description="HMAC-SHA256 of the rest under the application's key, if signed."
    )

    def _signed_content(self) -> Any:
        return self.model_dump(mode="json", exclude={"signature"})

    def signed(self, key: bytes | str) -> Checkpoint:
        """This checkpoint with its signature under ``key`` (at least 16 bytes)."""
        return self.model_copy(update={"signature": sign(key, self._signed_content())})

    def verify(self, key: bytes | str) -> None:
        """`CheckpointRefused` unless this checkpoint is signed with ``key``, unaltered."""
        if self.signature is None:
            raise CheckpointRefused("the checkpoint is not signed, and a key was given")
        if not signature_matches(key, self._signed_content(), self.signature):
            raise CheckpointRefused(
                "the checkpoint's signature does not match: it was altered after it was "
                "signed, or signed with another key"
            )


def prepare_script(agent: str, step: int, source: str, snapshot: bytes | None) -> PreparedAction:
    """A pending script of ``agent`` at ``step``, to run on the session ``snapshot``."""
    return PreparedAction(
        id=new_action_id(), kind="script", agent=agent, step=step, source=source,
        state=state_digest(snapshot),
    )  # fmt: skip


def prepare_tool_call(
    agent: str, step: int, tool: str, arguments: dict[str, JsonValue], snapshot: bytes | None
) -> PreparedAction:
    """A pending call of ``tool`` made by the script of ``agent`` at ``step``; the
    session, on resume, is rebuilt from ``snapshot``."""
    return PreparedAction(
        id=new_action_id(), kind="tool_call", agent=agent, step=step, tool=tool,
        arguments=arguments, state=state_digest(snapshot),
    )  # fmt: skip


def decisions_by_action(
    actions: list[PreparedAction], decisions: list[Decision], where: str
) -> dict[str, Decision]:
    """``decisions`` by action id, checked against ``actions``: `ValueError` for a
    duplicate action id or decision, a decision on an action ``where`` does not hold,
    or an approval that names another digest than its action's."""
    by_id = {a.id: a for a in actions}
    if len(by_id) != len(actions):
        raise CheckpointRefused(f"{where} holds two actions with one id")
    answered: dict[str, Decision] = {}
    for decision in decisions:
        action = by_id.get(decision.action_id)
        if action is None:
            raise ValueError(f"a decision on action {decision.action_id!r}, which {where} "
                             "does not hold")  # fmt: skip
        if decision.action_id in answered:
            raise ValueError(f"two decisions on action {decision.action_id!r}")
        if decision.proceed and decision.digest != action.digest:
            raise ValueError(
                f"the approval of action {action.id!r} names digest {decision.digest!r}, but "
                f"{where} holds a {action.kind.replace('_', ' ')} whose digest is "
                f"{action.digest!r}: what was approved is not what would run"
            )
        answered[decision.action_id] = decision
    return {
        a.id: answered.get(a.id) or Decision.refuse(a, "no decision was given") for a in actions
    }


def resume_plan(
    checkpoint: Checkpoint, submission: SubmitInteraction, key: bytes | str | None = None
) -> list[tuple[PreparedAction, Decision]]:
    """Each pending action of ``checkpoint`` with its decision; `CheckpointRefused` (a
    `ValueError`) when the checkpoint or the decisions cannot be trusted as they are."""
    if key is not None:
        checkpoint.verify(key)
    if submission.batch_id != checkpoint.batch_id:
        raise CheckpointRefused("the submission answers another batch than the checkpoint's")
    foreign = [a.id for a in checkpoint.actions if a.agent != checkpoint.agent]
    if foreign:
        raise CheckpointRefused(
            f"the checkpoint's actions {', '.join(foreign)} belong to another agent than "
            f"{checkpoint.agent!r}, the one in charge"
        )
    state = state_digest(checkpoint.snapshot)
    stale = [a.id for a in checkpoint.actions if a.state != state]
    if stale:
        raise CheckpointRefused(
            f"the checkpoint's session snapshot is not the one its actions {', '.join(stale)} "
            "were prepared on: the state they would run on was changed"
        )
    try:
        decisions = decisions_by_action(checkpoint.actions, submission.decisions, "the checkpoint")
    except CheckpointRefused:
        raise
    except ValueError as exc:
        raise CheckpointRefused(str(exc)) from None
    return [(action, decisions[action.id]) for action in checkpoint.actions]


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

    async def ask(
        self, actions: list[PreparedAction], usage: UsageSummary, timeout_s: float | None = None
    ) -> dict[str, Decision]:
        """Emit one InteractionRequired and wait for its decisions: `RunEnded`
        (``approval_timeout``) when none came within ``timeout_s`` (None: no limit)."""
        async with self._lock:  # one batch at a time
            request = InteractionRequired(batch_id=uuid.uuid4().hex, actions=actions, usage=usage)
            future: asyncio.Future[SubmitInteraction] = asyncio.get_running_loop().create_future()
            self._pending = (request, future)
            self._emit(request)
            try:
                submission = await asyncio.wait_for(future, timeout_s)
            except TimeoutError:
                what = " and ".join(sorted({a.kind.replace("_", " ") for a in actions}))
                raise RunEnded(
                    FailureCode.APPROVAL_TIMEOUT,
                    f"no decision on the pending {what} within {timeout_s:g} s "
                    "(approval_timeout_s)",
                ) from None
            finally:
                self._pending = None
        return decisions_by_action(actions, submission.decisions, "the interaction")

    def submit(self, submission: SubmitInteraction) -> None:
        """Answer the pending interaction; raises ValueError when it does not match."""
        if self._pending is None:
            raise ValueError("the run is not waiting for an interaction")
        request, future = self._pending
        if submission.batch_id != request.batch_id:
            raise ValueError(
                f"batch {submission.batch_id!r} is not the pending one ({request.batch_id!r})"
            )
        decisions_by_action(request.actions, submission.decisions, "the interaction")
        if not future.done():
            future.set_result(submission)

    def abort(self, code: FailureCode, message: str) -> None:
        """End the run instead of answering the pending interaction."""
        if self._pending is not None and not self._pending[1].done():
            self._pending[1].set_exception(RunEnded(code, message))


def new_action_id() -> str:
    """A fresh PreparedAction id."""
    return uuid.uuid4().hex[:12]
