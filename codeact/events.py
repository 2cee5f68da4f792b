"""AgentEvent: what a run reports as it goes, all JSON-serializable.

``Started``; per step ``ModelDelta`` (pieces of the reply as the model streams them,
from ``agent.stream()``), ``ModelReplied``, ``ScriptExecuted``, ``Transferred``;
``InteractionRequired`` when a person must approve something (answered with
``SubmitInteraction``); and one of ``Completed`` / ``Failed`` at the end.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

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
    """One decision a person must take before the run continues."""

    model_config = ConfigDict(frozen=True)

    id: str
    kind: Literal["script", "tool_call"]
    agent: str
    source: str | None = Field(None, description="The script, for kind 'script'.")
    tool: str | None = Field(None, description="The tool's name, for kind 'tool_call'.")
    arguments: dict[str, JsonValue] | None = None


class InteractionRequired(_Event):
    """The run waits for decisions on ``actions``; answer with SubmitInteraction."""

    type: Literal["interaction_required"] = "interaction_required"
    batch_id: str
    actions: list[PreparedAction]
    usage: UsageSummary


class Decision(BaseModel):
    """A person's answer on one PreparedAction."""

    model_config = ConfigDict(frozen=True)

    action_id: str
    proceed: bool
    reason: str | None = None


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
