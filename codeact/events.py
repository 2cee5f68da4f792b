"""AgentEvent: what a run reports as it goes, all JSON-serializable.

``Started``; per step ``ModelDelta`` (pieces of the reply as the model streams them,
from ``agent.stream()``), ``ModelReplied``, ``ScriptExecuted``, ``Transferred``;
``InteractionRequired`` when a person must approve something (answered with
``SubmitInteraction``); and one of ``Completed`` / ``Failed`` at the end.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, computed_field, model_validator

from codeact.digests import action_digest
from codeact.summary import UsageSummary
from sandbox import Execution


class FailureCode(StrEnum):
    """Why a run failed. Stable: callers and logs rely on these values."""

    MAX_STEPS_EXCEEDED = "max_steps_exceeded"
    CANCELLED = "cancelled"
    SANDBOX_FAILED = "sandbox_failed"
    TRANSFER_LOOP = "transfer_loop"
    INVALID_OUTPUT = "invalid_output"
    APPROVAL_REQUIRED = "approval_required"
    APPROVAL_TIMEOUT = "approval_timeout"
    INTERNAL_ERROR = "internal_error"
    MCP_CONNECTION_FAILED = "mcp_connection_failed"
    # Model failures keep the model client's code.
    RATE_LIMITED = "rate_limited"
    QUOTA_EXHAUSTED = "quota_exhausted"
    OVERLOADED = "overloaded"
    SERVER_ERROR = "server_error"
    TIMEOUT = "timeout"
    CONTEXT_LENGTH_EXCEEDED = "context_length_exceeded"
    AUTH = "auth"
    BAD_REQUEST = "bad_request"
    CONTENT_FILTER = "content_filter"
    STREAM_INTERRUPTED = "stream_interrupted"
    MALFORMED_RESPONSE = "malformed_response"
    CONNECTION_ERROR = "connection_error"


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True)


class Started(_Event):
    """The run began."""

    type: Literal["started"] = "started"
    run_id: str
    agent: str
    task: str


class ModelDelta(_Event):
    """A piece of the model's reply as it arrives; the step's ``ModelReplied`` follows
    its last piece, and the pieces of each kind joined are that reply's text."""

    type: Literal["model_delta"] = "model_delta"
    step: int
    agent: str
    kind: Literal["text", "thinking"]
    text: str


class ModelReplied(_Event):
    """The model answered (one step)."""

    type: Literal["model_replied"] = "model_replied"
    step: int
    agent: str
    content: str
    thinking: str | None = None
    code: str | None = Field(
        None,
        description="The script found in the reply, which runs next (after approval, if "
        "asked); None when the reply holds no code and the model is asked again.",
    )


class ScriptExecuted(_Event):
    """A script from the model's reply ran in the sandbox."""

    type: Literal["script_executed"] = "script_executed"
    step: int
    agent: str
    source: str
    execution: Execution
    feedback: str = Field(description="What the model is told about this run.")


class Transferred(_Event):
    """The run moved to another agent."""

    type: Literal["transferred"] = "transferred"
    step: int
    from_agent: str
    to_agent: str


class PreparedAction(BaseModel):
    """One decision a person must take before the run continues.

    ``digest`` is computed from exactly what would run (kind, source or tool and
    canonical arguments, agent, step, and ``state``: the digest of the session snapshot
    it runs on), never read from input: a decision approves the digest it names, so
    content changed after approval no longer matches.
    """

    model_config = ConfigDict(frozen=True)

    id: str
    kind: Literal["script", "tool_call"]
    agent: str
    step: int = Field(ge=0, description="The step whose script is, or made, the action.")
    source: str | None = Field(None, description="The script, for kind 'script'.")
    tool: str | None = Field(None, description="The tool's name, for kind 'tool_call'.")
    arguments: dict[str, JsonValue] | None = None
    state: str | None = Field(
        None,
        description="SHA-256 of the session snapshot the action runs on (None: no snapshot); "
        "a resume checks it against the checkpoint's snapshot.",
    )

    @model_validator(mode="after")
    def _one_shape(self) -> PreparedAction:
        if self.kind == "script" and (self.source is None or self.tool or self.arguments):
            raise ValueError("a script action has a source and no tool or arguments")
        if self.kind == "tool_call" and (self.tool is None or self.source is not None):
            raise ValueError("a tool_call action has a tool (and arguments) and no source")
        return self

    @computed_field  # type: ignore[prop-decorator]
    @property
    def digest(self) -> str:
        """SHA-256 of the action's content (see the class docstring)."""
        return action_digest(
            kind=self.kind, agent=self.agent, step=self.step, source=self.source,
            tool=self.tool, arguments=self.arguments, state=self.state,
        )  # fmt: skip


class InteractionRequired(_Event):
    """The run waits for decisions on ``actions``; answer with SubmitInteraction."""

    type: Literal["interaction_required"] = "interaction_required"
    batch_id: str
    actions: list[PreparedAction]
    usage: UsageSummary


class Decision(BaseModel):
    """A person's answer on one PreparedAction. An approval names the digest of the
    action it approves (``Decision.approve(action)`` fills both); a refusal need not."""

    model_config = ConfigDict(frozen=True)

    action_id: str
    proceed: bool
    reason: str | None = None
    digest: str | None = Field(None, description="PreparedAction.digest of what it approves.")

    @model_validator(mode="after")
    def _approval_names_its_digest(self) -> Decision:
        if self.proceed and not self.digest:
            raise ValueError(
                "an approval names the digest of the action it approves: "
                "Decision.approve(action), or digest=action.digest"
            )
        return self

    @classmethod
    def approve(cls, action: PreparedAction, reason: str | None = None) -> Decision:
        """Approve exactly ``action``'s content."""
        return cls(action_id=action.id, proceed=True, reason=reason, digest=action.digest)

    @classmethod
    def refuse(cls, action: PreparedAction, reason: str | None = None) -> Decision:
        """Refuse ``action``; ``reason`` reaches the model."""
        return cls(action_id=action.id, proceed=False, reason=reason)


class SubmitInteraction(BaseModel):
    """The answers to one InteractionRequired."""

    model_config = ConfigDict(frozen=True)

    batch_id: str
    decisions: list[Decision]


class Completed(_Event):
    """The run ended with a final result."""

    type: Literal["completed"] = "completed"
    result: JsonValue
    usage: UsageSummary


class Failed(_Event):
    """The run ended without a result; ``code`` is a FailureCode value."""

    type: Literal["failed"] = "failed"
    code: FailureCode
    message: str
    usage: UsageSummary


AgentEvent = Annotated[
    Started
    | ModelDelta
    | ModelReplied
    | ScriptExecuted
    | Transferred
    | InteractionRequired
    | Completed
    | Failed,
    Field(discriminator="type"),
]
