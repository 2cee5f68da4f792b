"""codeact: agents that act by writing Python.

``Agent`` runs a model whose replies are Python scripts, executed in the ``sandbox``
package's confined workers. Model clients live in ``codeact.models``.

Names are loaded on first use, so that the ``codeact`` command can take charge of
Ctrl-C and SIGTERM before the heavy imports (``codeact/cli.py``).
"""

from __future__ import annotations

import logging
from importlib import import_module

__version__ = "0.1.0"

#: ``typing`` is not imported at run time: ``codeact``'s own start-up stays short (the
#: ``codeact`` command takes its signals only once this module has run).
TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any

    from codeact.agent import Agent
    from codeact.approval import Checkpoint, CheckpointRefused
    from codeact.context import RunContext
    from codeact.conversation import Conversation, ConversationState
    from codeact.errors import AgentRunFailed
    from codeact.events import (
        AgentEvent,
        Completed,
        Decision,
        Failed,
        FailureCode,
        InteractionRequired,
        ModelDelta,
        ModelReplied,
        PreparedAction,
        ScriptExecuted,
        Started,
        SubmitInteraction,
        Transferred,
    )
    from codeact.feedback import FeedbackConfig
    from codeact.history import keep_recent_observations
    from codeact.messages import Message
    from codeact.output import AgentOutput, RunFailure, ToolCallLog
    from codeact.stream import AgentStream
    from codeact.summary import UsageSummary
    from codeact.task import Task
    from codeact.tools import Tool, tool
    from codeact.usage import LlmUsage

_EXPORTS = {
    "Agent": "agent",
    "Checkpoint": "approval",
    "CheckpointRefused": "approval",
    "RunContext": "context",
    "Conversation": "conversation",
    "ConversationState": "conversation",
    "AgentRunFailed": "errors",
    "AgentEvent": "events",
    "Completed": "events",
    "Decision": "events",
    "Failed": "events",
    "FailureCode": "events",
    "InteractionRequired": "events",
    "ModelDelta": "events",
    "ModelReplied": "events",
    "PreparedAction": "events",
    "ScriptExecuted": "events",
    "Started": "events",
    "SubmitInteraction": "events",
    "Transferred": "events",
    "FeedbackConfig": "feedback",
    "keep_recent_observations": "history",
    "Message": "messages",
    "AgentOutput": "output",
    "RunFailure": "output",
    "ToolCallLog": "output",
    "AgentStream": "stream",
    "UsageSummary": "summary",
    "Task": "task",
    "Tool": "tools",
    "tool": "tools",
    "LlmUsage": "usage",
}

# Silent unless the application configures logging (``codeact run -v`` does).
logging.getLogger("codeact").addHandler(logging.NullHandler())

__all__ = [
    "Agent",
    "AgentEvent",
    "AgentOutput",
    "AgentRunFailed",
    "AgentStream",
    "Checkpoint",
    "CheckpointRefused",
    "Completed",
    "Conversation",
    "ConversationState",
    "Decision",
    "Failed",
    "FailureCode",
    "FeedbackConfig",
    "InteractionRequired",
    "LlmUsage",
    "Message",
    "ModelDelta",
    "ModelReplied",
    "PreparedAction",
    "RunContext",
    "RunFailure",
    "ScriptExecuted",
    "Started",
    "SubmitInteraction",
    "Task",
    "Tool",
    "ToolCallLog",
    "Transferred",
    "UsageSummary",
    "__version__",
    "keep_recent_observations",
    "tool",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'codeact' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
