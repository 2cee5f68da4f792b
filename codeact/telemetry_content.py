"""Messages and values as the GenAI semantic conventions record them on spans.

``gen_ai.input.messages`` and ``gen_ai.output.messages`` are JSON arrays of messages,
each ``{"role": ..., "parts": [...]}`` with parts such as ``{"type": "text",
"content": ...}``, ``{"type": "tool_call", "id", "name", "arguments"}`` and
``{"type": "tool_call_response", "id", "response"}``; ``gen_ai.system_instructions``
is the system messages' parts. Only :mod:`codeact.telemetry` records them, and only when
content capture is on.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pydantic_core

if TYPE_CHECKING:
    from codeact.messages import Ai, Message

#: The conventions' role for each of our message roles.
_ROLES = {"human": "user", "system": "system", "ai": "assistant", "tool": "tool"}


def _role(message: Message) -> str:
    return str(getattr(message, "role", ""))


def _parts(message: Message) -> list[dict[str, Any]]:
    parts: list[dict[str, Any]] = []
    thinking = message.thinking()
    if thinking:
        parts.append({"type": "reasoning", "content": thinking})
    text = message.text()
    if _role(message) == "tool":
        call_id = getattr(message, "tool_call_id", "")
        return [{"type": "tool_call_response", "id": call_id, "response": text}]
    if text:
        parts.append({"type": "text", "content": text})
    for call in message.tool_calls():
        parts.append(
            {"type": "tool_call", "id": call.id, "name": call.name, "arguments": call.arguments}
        )
    return parts


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def messages_json(messages: Sequence[Message]) -> str:
    """The conversation sent to the model (system messages aside), as JSON."""
    return _dumps(
        [
            {"role": _ROLES.get(_role(m), _role(m)), "parts": _parts(m)}
            for m in messages
            if _role(m) != "system"
        ]
    )


def system_json(messages: Sequence[Message]) -> str | None:
    """The system messages' parts, as JSON; None without any."""
    parts = [part for m in messages if _role(m) == "system" for part in _parts(m)]
    return _dumps(parts) if parts else None


def output_json(reply: Ai) -> str:
    """The model's reply, with its finish reason, as JSON."""
    message: dict[str, Any] = {"role": "assistant", "parts": _parts(reply)}
    if reply.finish_reason:
        message["finish_reason"] = reply.finish_reason
    return _dumps([message])


def value_json(value: Any) -> str:
    """A tool's arguments or result as JSON (pydantic's conversion; repr otherwise)."""
    try:
        return _dumps(pydantic_core.to_jsonable_python(value))
    except (pydantic_core.PydanticSerializationError, TypeError, ValueError):
        return _dumps(repr(value))
