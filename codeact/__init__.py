"""codeact: agents that act by writing Python.

``Agent`` runs a model whose replies are Python scripts, executed in the ``sandbox``
package's confined workers. Model clients live in ``codeact.models``.
"""

import logging

__version__ = "0.1.0"

from codeact.agent import Agent
from codeact.approval import Checkpoint, CheckpointRefused
from codeact.context import RunContext
from codeact.errors import AgentRunFailed
from codeact.events import (
    AgentEvent,
    Completed,
    Decision,
    Failed,
    FailureCode,
    InteractionRequired,
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
from codeact.tools import Tool, tool
from codeact.usage import LlmUsage

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
    "Decision",
    "Failed",
    "FailureCode",
    "FeedbackConfig",
    "InteractionRequired",
    "LlmUsage",
    "Message",
    "ModelReplied",
    "PreparedAction",
    "RunContext",
    "RunFailure",
    "ScriptExecuted",
    "Started",
    "SubmitInteraction",
    "Tool",
    "ToolCallLog",
    "Transferred",
    "UsageSummary",
    "__version__",
    "keep_recent_observations",
    "tool",
]
