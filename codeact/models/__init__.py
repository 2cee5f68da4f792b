"""Chat model clients spoken over httpx, plus test doubles.

Name a model by a spec string and call it::

    from codeact.models import model_from_string
    async with model_from_string("openai:gpt-4o-mini") as model:
        reply = await model.complete([Message.human("Hi")], max_tokens=200)
        async for event in model.stream([Message.human("Hi")]):
            ...  # TextDelta / ThinkingDelta / ToolCallDelta, then StreamEnd(message=Ai)

Specs: ``openai:MODEL``, ``anthropic:MODEL``, ``openai-compatible:MODEL@URL`` and
``scripted:PATH``. Keys and base URLs come from arguments or from ``OPENAI_API_KEY``,
``OPENAI_BASE_URL``, ``ANTHROPIC_API_KEY``, ``ANTHROPIC_BASE_URL``; a missing key fails
when the model is built (`MissingApiKeyError`).

Every failure is a `ModelError` with a stable ``code`` (`ModelErrorCode`); transient ones
are retried per the model's `RetryPolicy`.

Testing agents: use `ScriptedModel` / `FunctionModel`, and forbid real model calls
with ``CODEACT_BLOCK_MODEL_REQUESTS=1`` or `block_network_models()` (a call that blocks
from then on, or a ``with`` block). While blocked, HTTP model clients raise
`NetworkBlockedError` (code ``connection_error``) before sending anything.
"""

from codeact.messages import Ai, Message, ToolCall
from codeact.models.anthropic import AnthropicModel
from codeact.models.base import (
    CallOptions,
    Model,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolLike,
    ToolSpec,
    final_message,
)
from codeact.models.bounded import ResponseLimits
from codeact.models.errors import (
    RETRYABLE_CODES,
    MissingApiKeyError,
    ModelError,
    ModelErrorCode,
    ModelErrorData,
    classify_error,
)
from codeact.models.guard import (
    BLOCK_ENV_VAR,
    NetworkBlockedError,
    allow_network_models,
    block_network_models,
    network_models_blocked,
)
from codeact.models.http import HttpModel
from codeact.models.openai import OpenAIChatModel
from codeact.models.registry import model_from_string
from codeact.models.retry import RetryPolicy
from codeact.models.testing import (
    CallInfo,
    FunctionModel,
    ScriptedModel,
    ScriptedReply,
    ScriptExhaustedError,
    ScriptFileError,
)
from codeact.usage import LlmUsage

__all__ = [
    "BLOCK_ENV_VAR",
    "RETRYABLE_CODES",
    "Ai",
    "AnthropicModel",
    "CallInfo",
    "CallOptions",
    "FunctionModel",
    "HttpModel",
    "LlmUsage",
    "Message",
    "MissingApiKeyError",
    "Model",
    "ModelError",
    "ModelErrorCode",
    "ModelErrorData",
    "NetworkBlockedError",
    "OpenAIChatModel",
    "ResponseLimits",
    "RetryPolicy",
    "ScriptExhaustedError",
    "ScriptFileError",
    "ScriptedModel",
    "ScriptedReply",
    "StreamEnd",
    "StreamEvent",
    "TextDelta",
    "ThinkingDelta",
    "ToolCall",
    "ToolCallDelta",
    "ToolLike",
    "ToolSpec",
    "allow_network_models",
    "block_network_models",
    "classify_error",
    "final_message",
    "model_from_string",
    "network_models_blocked",
]
