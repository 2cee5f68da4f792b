"""The Anthropic Messages wire format: request messages, responses, stream events.

System messages become the top-level ``system``; tool results travel as
``tool_result`` blocks in user turns; consecutive turns of one role are merged, since
the API expects user and assistant turns to alternate. Thinking blocks are sent back
exactly as received (text plus signature, or redacted data) — the API verifies them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from codeact.messages import (
    Ai,
    Content,
    FinishReason,
    Human,
    ImageDataPart,
    ImageUrlPart,
    Message,
    System,
    TextPart,
    ThinkingBlock,
    ToolCall,
    ToolResult,
    resolve_history,
)
from codeact.models.base import StreamEvent, TextDelta, ThinkingDelta, ToolCallDelta, ToolSpec
from codeact.models.errors import ModelError, ModelErrorCode, classify_error
from codeact.models.sse import SseEvent
from codeact.models.wire import as_int, as_mapping, decode_event_json, malformed
from codeact.usage import LlmUsage, flatten_counters

__all__ = [
    "CONTEXT_EXCEEDED_STOP",
    "AnthropicStreamParser",
    "parse_message",
    "parse_usage",
    "stop_reason",
    "to_anthropic_messages",
    "to_anthropic_tools",
]

CONTEXT_EXCEEDED_STOP = "model_context_window_exceeded"

_STOP: Mapping[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_call",
    "refusal": "content_filter",
    CONTEXT_EXCEEDED_STOP: "length",
}
_DATA_URL = re.compile(r"^data:(image/[\w.+-]+);base64,(.+)$", re.DOTALL)


def stop_reason(raw: str | None) -> FinishReason | None:
    """Normalise a ``stop_reason`` (unknown values give None; the raw is kept)."""
    return _STOP.get(raw) if raw else None


# --- requests ------------------------------------------------------------------------


def _blocks(content: Content, *, images: bool, role: str) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    out: list[dict[str, Any]] = []
    for part in content:
        if isinstance(part, TextPart):
            out.append({"type": "text", "text": part.text})
            continue
        if not images:
            raise ValueError(f"Anthropic messages format: {role} content cannot contain images")
        if isinstance(part, ImageDataPart):
            source = {"type": "base64", "media_type": part.media_type, "data": part.data}
        else:
            assert isinstance(part, ImageUrlPart)
            inline = _DATA_URL.match(part.url)
            source = (
                {"type": "base64", "media_type": inline.group(1), "data": inline.group(2)}
                if inline
                else {"type": "url", "url": part.url}
            )
        out.append({"type": "image", "source": source})
    return out


def _assistant_blocks(msg: Ai) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for block in msg.thinking_blocks:
        if block.redacted_data is not None:
            out.append({"type": "redacted_thinking", "data": block.redacted_data})
        elif block.signature is not None:
            out.append({"type": "thinking", "thinking": block.text, "signature": block.signature})
        # Unsigned reasoning (from other providers) would be rejected: left out.
    out.extend(b for b in _blocks(msg.content, images=False, role="assistant") if b.get("text"))
    for call in msg.tool_calls():
        out.append({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments})
    return out


def to_anthropic_messages(
    messages: Sequence[Message],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``(system_blocks, messages)`` for a history (after applying `Remove` markers)."""
    system: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []

    def add(role: str, blocks: list[dict[str, Any]]) -> None:
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})

    for msg in resolve_history(messages):
        if isinstance(msg, System):
            system.extend(_blocks(msg.content, images=False, role="system"))
        elif isinstance(msg, Human):
            add("user", _blocks(msg.content, images=True, role="user"))
        elif isinstance(msg, Ai):
            blocks = _assistant_blocks(msg)
            if blocks:  # an empty assistant turn is rejected by the API
                add("assistant", blocks)
        elif isinstance(msg, ToolResult):
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": msg.tool_call_id,
                "content": msg.content
                if isinstance(msg.content, str)
                else _blocks(msg.content, images=True, role="tool"),
            }
            if msg.status == "error":
                result["is_error"] = True
            add("user", [result])
    return system, turns


_EPHEMERAL = {"type": "ephemeral"}
#: Blocks the API does not let carry a cache breakpoint.
_UNMARKABLE = frozenset({"thinking", "redacted_thinking"})


def mark_cache_breakpoints(system: list[dict[str, Any]], turns: list[dict[str, Any]]) -> None:
    """Prompt caching: a breakpoint after the system prompt and after the newest block.

    An agent resends its whole conversation every step; with these two breakpoints each
    request reads everything up to the previous step's end from the cache and writes
    the new part (two of the four breakpoints the API allows).
    """
    if system:
        system[-1]["cache_control"] = dict(_EPHEMERAL)
    for block in reversed(turns[-1]["content"] if turns else []):
        if block.get("type") not in _UNMARKABLE:
            block["cache_control"] = dict(_EPHEMERAL)
            break


def to_anthropic_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Messages API ``tools`` entries."""
    return [
        {"name": t.name, "description": t.description, "input_schema": t.parameters} for t in tools
    ]


# --- responses -----------------------------------------------------------------------


def parse_usage(raw: Any) -> LlmUsage | None:
    """Normalise Anthropic usage; ``input_tokens`` there excludes cache traffic, so it is
    added back to match the all-prompt-tokens meaning of `LlmUsage.input_tokens`."""
    if not isinstance(raw, Mapping):
        return None
    read = as_int(raw.get("cache_read_input_tokens"))
    write = as_int(raw.get("cache_creation_input_tokens"))
    return LlmUsage(
        input_tokens=as_int(raw.get("input_tokens")) + read + write,
        output_tokens=as_int(raw.get("output_tokens")),
        cache_read_tokens=read,
        cache_write_tokens=write,
        details=flatten_counters(raw),
    )


def _context_exceeded(provider: str, partial: Ai) -> ModelError:
    return ModelError(
        ModelErrorCode.CONTEXT_LENGTH_EXCEEDED,
        f"{provider}: the model's context window was exhausted ({CONTEXT_EXCEEDED_STOP})",
        provider=provider,
        provider_code=CONTEXT_EXCEEDED_STOP,
        partial=partial,
    )


def _assemble(
    texts: list[str],
    thinking: list[ThinkingBlock],
    calls: list[ToolCall],
    usage: LlmUsage | None,
    raw_stop: str | None,
) -> Ai:
    return Ai(
        content="".join(texts),
        tool_calls=calls,
        usage=usage,
        thinking_blocks=thinking,
        finish_reason=stop_reason(raw_stop),
        raw_finish_reason=raw_stop,
    )


def parse_message(provider: str, data: Any) -> Ai:
    """Parse a non-streaming Messages response."""
    if not isinstance(data, Mapping):
        raise malformed(provider, "response is not a JSON object")
    if data.get("type") == "error":
        raise classify_error(None, data, provider=provider)
    content = data.get("content")
    if not isinstance(content, list):
        raise malformed(provider, "response has no content list")
    texts: list[str] = []
    thinking: list[ThinkingBlock] = []
    calls: list[ToolCall] = []
    for block in content:
        kind = as_mapping(block).get("type")
        if kind == "text":
            texts.append(str(block.get("text", "")))
        elif kind == "thinking":
            thinking.append(
                ThinkingBlock(text=str(block.get("thinking", "")), signature=block.get("signature"))
            )
        elif kind == "redacted_thinking":
            thinking.append(ThinkingBlock(redacted_data=str(block.get("data", ""))))
        elif kind == "tool_use":
            if not isinstance(block.get("id"), str) or not isinstance(block.get("name"), str):
                raise malformed(provider, f"tool_use block without id/name: {json.dumps(block)}")
            calls.append(
                ToolCall(
                    id=block["id"],
                    name=block["name"],
                    arguments=dict(as_mapping(block.get("input"))),
                )
            )
        # Other block kinds (server tool results, citations…) carry nothing we model.
    raw_stop = data.get("stop_reason") if isinstance(data.get("stop_reason"), str) else None
    ai = _assemble(texts, thinking, calls, parse_usage(data.get("usage")), raw_stop)
    if raw_stop == CONTEXT_EXCEEDED_STOP:
        raise _context_exceeded(provider, ai)
    return ai


# --- streams -------------------------------------------------------------------------


@dataclass
class _Block:
    kind: str
    text: list[str] = field(default_factory=list)
    signature: str | None = None
    data: str | None = None
    call_id: str = ""
    name: str = ""
    tool_index: int = -1
    initial_input: dict[str, Any] = field(default_factory=dict)


class AnthropicStreamParser:
    """Accumulates Messages stream events into deltas and a final `Ai`."""

    def __init__(self, provider: str) -> None:
        self._provider = provider
        self._blocks: dict[int, _Block] = {}
        self._usage_raw: dict[str, Any] = {}
        self._stop: str | None = None
        self._done = False
        self._tool_count = 0

    @property
    def finished(self) -> bool:
        return self._done

    def feed(self, event: SseEvent) -> list[StreamEvent]:
        data = decode_event_json(self._provider, event.data)
        kind = data.get("type") or event.event
        if kind == "error":
            raise classify_error(None, data, provider=self._provider)
        if kind == "message_start":
            self._usage_raw.update(as_mapping(as_mapping(data.get("message")).get("usage")))
        elif kind == "content_block_start":
            return self._start_block(data)
        elif kind == "content_block_delta":
            return self._delta(data)
        elif kind == "message_delta":
            delta = as_mapping(data.get("delta"))
            if isinstance(delta.get("stop_reason"), str):
                self._stop = delta["stop_reason"]
            # Usage here is cumulative: later values replace earlier ones.
            self._usage_raw.update(as_mapping(data.get("usage")))
        elif kind == "message_stop":
            self._done = True
            if self._stop == CONTEXT_EXCEEDED_STOP:
                raise _context_exceeded(self._provider, self.result())
        # ping, content_block_stop and unknown future events need no action.
        return []

    def _index(self, data: Mapping[str, Any]) -> int:
        index = data.get("index")
        if not isinstance(index, int):
            raise malformed(self._provider, f"content block event without index: {dict(data)}")
        return index

    def _start_block(self, data: Mapping[str, Any]) -> list[StreamEvent]:
        index = self._index(data)
        raw = as_mapping(data.get("content_block"))
        block = _Block(kind=str(raw.get("type", "")))
        self._blocks[index] = block
        if block.kind == "text" and raw.get("text"):
            block.text.append(str(raw["text"]))
            return [TextDelta(text=str(raw["text"]))]
        if block.kind == "thinking":
            block.signature = raw.get("signature") or None
            if raw.get("thinking"):
                block.text.append(str(raw["thinking"]))
                return [ThinkingDelta(text=str(raw["thinking"]))]
        if block.kind == "redacted_thinking":
            block.data = str(raw.get("data", ""))
        if block.kind == "tool_use":
            block.call_id = str(raw.get("id", ""))
            block.name = str(raw.get("name", ""))
            block.initial_input = dict(as_mapping(raw.get("input")))
            block.tool_index = self._tool_count
            self._tool_count += 1
            return [ToolCallDelta(index=block.tool_index, id=block.call_id, name=block.name)]
        return []

    def _delta(self, data: Mapping[str, Any]) -> list[StreamEvent]:
        index = self._index(data)
        block = self._blocks.get(index)
        if block is None:
            raise malformed(self._provider, f"delta for content block {index} before its start")
        delta = as_mapping(data.get("delta"))
        kind = delta.get("type")
        if kind == "text_delta":
            text = str(delta.get("text", ""))
            block.text.append(text)
            return [TextDelta(text=text)] if text else []
        if kind == "thinking_delta":
            text = str(delta.get("thinking", ""))
            block.text.append(text)
            return [ThinkingDelta(text=text)] if text else []
        if kind == "signature_delta":
            block.signature = (block.signature or "") + str(delta.get("signature", ""))
        elif kind == "input_json_delta":
            fragment = str(delta.get("partial_json", ""))
            block.text.append(fragment)
            if fragment:
                return [ToolCallDelta(index=block.tool_index, arguments=fragment)]
        return []

    def result(self) -> Ai:
        texts: list[str] = []
        thinking: list[ThinkingBlock] = []
        calls: list[ToolCall] = []
        for index in sorted(self._blocks):
            block = self._blocks[index]
            if block.kind == "text":
                texts.append("".join(block.text))
            elif block.kind == "thinking":
                thinking.append(ThinkingBlock(text="".join(block.text), signature=block.signature))
            elif block.kind == "redacted_thinking":
                thinking.append(ThinkingBlock(redacted_data=block.data or ""))
            elif block.kind == "tool_use":
                raw_args = "".join(block.text)
                if raw_args.strip():
                    calls.append(ToolCall.from_json_arguments(block.call_id, block.name, raw_args))
                else:
                    calls.append(
                        ToolCall(id=block.call_id, name=block.name, arguments=block.initial_input)
                    )
        usage = parse_usage(self._usage_raw) if self._usage_raw else None
        return _assemble(texts, thinking, calls, usage, self._stop)
