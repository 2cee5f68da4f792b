"""The OpenAI Chat Completions wire format: request messages, responses, stream chunks.

Covers the dialects of OpenAI-compatible servers: reasoning text arrives as
``reasoning_content`` (DeepSeek) or ``reasoning`` (vLLM, OpenRouter); usage may come on
the finish chunk or on a final chunk with empty ``choices``; DeepSeek reports cache
hits as ``prompt_cache_hit_tokens``.
"""

from __future__ import annotations

import json
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
from codeact.models.errors import classify_error
from codeact.models.sse import SseEvent
from codeact.models.wire import as_int, as_mapping, decode_event_json, malformed, new_tool_call_id
from codeact.usage import LlmUsage, flatten_counters

__all__ = [
    "OpenAIStreamParser",
    "finish_reason",
    "parse_chat_completion",
    "parse_usage",
    "to_openai_messages",
    "to_openai_tools",
]

_FINISH: Mapping[str, FinishReason] = {
    "stop": "stop",
    "eos": "stop",
    "length": "length",
    "tool_calls": "tool_call",
    "function_call": "tool_call",
    "content_filter": "content_filter",
    "error": "error",
    "abort": "error",
}


def finish_reason(raw: str | None) -> FinishReason | None:
    """Normalise a ``finish_reason`` value (unknown values give None; the raw is kept)."""
    return _FINISH.get(raw) if raw else None


# --- requests ------------------------------------------------------------------------


def _parts(content: Content, *, role: str, images: bool) -> str | list[dict[str, Any]]:
    if isinstance(content, str):
        return content
    out: list[dict[str, Any]] = []
    for part in content:
        if isinstance(part, TextPart):
            out.append({"type": "text", "text": part.text})
            continue
        if not images:
            raise ValueError(f"OpenAI chat format: {role} messages cannot contain images")
        if isinstance(part, ImageUrlPart):
            image: dict[str, Any] = {"url": part.url}
            if part.detail is not None:
                image["detail"] = part.detail
        else:
            assert isinstance(part, ImageDataPart)
            image = {"url": f"data:{part.media_type};base64,{part.data}"}
        out.append({"type": "image_url", "image_url": image})
    return out


def to_openai_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Chat Completions ``messages`` for a history (after applying `Remove` markers)."""
    out: list[dict[str, Any]] = []
    for msg in resolve_history(messages):
        if isinstance(msg, System):
            out.append(
                {"role": "system", "content": _parts(msg.content, role="system", images=False)}
            )
        elif isinstance(msg, Human):
            out.append({"role": "user", "content": _parts(msg.content, role="user", images=True)})
        elif isinstance(msg, Ai):
            _parts(msg.content, role="assistant", images=False)  # rejects images
            entry: dict[str, Any] = {"role": "assistant", "content": msg.text()}
            calls = msg.tool_calls()
            if calls:
                # Assistant turns that only call tools carry null content on the wire.
                entry["content"] = msg.text() or None
                entry["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": call.arguments_json()},
                    }
                    for call in calls
                ]
            out.append(entry)
        elif isinstance(msg, ToolResult):
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": msg.tool_call_id,
                    "content": _parts(msg.content, role="tool", images=False),
                }
            )
    return out


def to_openai_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Chat Completions ``tools`` entries."""
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.parameters},
        }
        for t in tools
    ]


# --- responses -----------------------------------------------------------------------


def parse_usage(raw: Any) -> LlmUsage | None:
    """Normalise a Chat Completions ``usage`` object (None if absent)."""
    if not isinstance(raw, Mapping):
        return None
    prompt = as_mapping(raw.get("prompt_tokens_details"))
    completion = as_mapping(raw.get("completion_tokens_details"))
    cached = as_int(prompt.get("cached_tokens")) or as_int(raw.get("prompt_cache_hit_tokens"))
    main = {"prompt_tokens", "completion_tokens", "total_tokens"}
    return LlmUsage(
        input_tokens=as_int(raw.get("prompt_tokens")),
        output_tokens=as_int(raw.get("completion_tokens")),
        total_tokens=as_int(raw.get("total_tokens")),
        cache_read_tokens=cached,
        reasoning_tokens=as_int(completion.get("reasoning_tokens")),
        details={k: v for k, v in flatten_counters(raw).items() if k not in main},
    )


def _text_of(value: Any) -> str:
    """Message content as text: a string, null, or a list of text parts."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(
            str(p.get("text", ""))
            for p in value
            if isinstance(p, Mapping) and p.get("type") == "text"
        )
    return ""


def _reasoning_of(obj: Mapping[str, Any]) -> str:
    for key in ("reasoning_content", "reasoning"):
        value = obj.get(key)
        if isinstance(value, str) and value:
            return value
    return ""


def _tool_call(provider: str, raw: Any) -> ToolCall:
    fn = as_mapping(as_mapping(raw).get("function"))
    name = fn.get("name")
    if not isinstance(name, str) or not name:
        raise malformed(provider, f"tool call without a function name: {json.dumps(raw)[:200]}")
    call_id = as_mapping(raw).get("id")
    call_id = call_id if isinstance(call_id, str) and call_id else new_tool_call_id()
    args = fn.get("arguments")
    if isinstance(args, Mapping):
        # Some servers (Ollama) send an object instead of JSON text.
        return ToolCall(id=call_id, name=name, arguments=dict(args))
    return ToolCall.from_json_arguments(call_id, name, args if isinstance(args, str) else "")


def parse_chat_completion(provider: str, data: Any) -> Ai:
    """Parse a non-streaming Chat Completions response."""
    if not isinstance(data, Mapping):
        raise malformed(provider, "response is not a JSON object")
    if data.get("error") and not data.get("choices"):
        # OpenRouter and some proxies report failures with status 200.
        raise classify_error(None, data, provider=provider)
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], Mapping):
        raise malformed(provider, "response has no choices")
    message = choices[0].get("message")
    if not isinstance(message, Mapping):
        raise malformed(provider, "response choice has no message")
    raw_finish = choices[0].get("finish_reason")
    raw_finish = raw_finish if isinstance(raw_finish, str) else None
    reasoning = _reasoning_of(message)
    return Ai(
        content=_text_of(message.get("content")),
        tool_calls=[_tool_call(provider, tc) for tc in message.get("tool_calls") or []],
        usage=parse_usage(data.get("usage")),
        thinking=reasoning or None,
        thinking_blocks=[ThinkingBlock(text=reasoning)] if reasoning else [],
        finish_reason=finish_reason(raw_finish),
        raw_finish_reason=raw_finish,
    )


# --- streams -------------------------------------------------------------------------


@dataclass
class _ToolAcc:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class OpenAIStreamParser:
    """Accumulates ``chat.completion.chunk`` events into deltas and a final `Ai`."""

    def __init__(self, provider: str) -> None:
        self._provider = provider
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._tools: dict[int, _ToolAcc] = {}
        self._finish: str | None = None
        self._usage: LlmUsage | None = None
        self._done = False

    @property
    def finished(self) -> bool:
        return self._done

    def feed(self, event: SseEvent) -> list[StreamEvent]:
        data = event.data.strip()
        if data == "[DONE]":
            self._done = True
            return []
        if not data:
            return []
        chunk = decode_event_json(self._provider, data)
        if chunk.get("error") or chunk.get("object") == "error" or event.event == "error":
            raise classify_error(None, chunk, provider=self._provider)
        usage = parse_usage(chunk.get("usage"))
        if usage is not None:
            self._usage = usage
        events: list[StreamEvent] = []
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, Mapping) or choice.get("index", 0) != 0:
                continue  # only the first choice is ever requested
            delta = as_mapping(choice.get("delta"))
            reasoning = _reasoning_of(delta)
            if reasoning:
                self._thinking.append(reasoning)
                events.append(ThinkingDelta(text=reasoning))
            text = _text_of(delta.get("content"))
            if text:
                self._text.append(text)
                events.append(TextDelta(text=text))
            for raw in delta.get("tool_calls") or []:
                events.append(self._tool_fragment(as_mapping(raw)))
            if isinstance(choice.get("finish_reason"), str):
                self._finish = choice["finish_reason"]
        return events

    def _tool_fragment(self, raw: Mapping[str, Any]) -> ToolCallDelta:
        call_id = raw.get("id") if isinstance(raw.get("id"), str) else None
        index = raw.get("index")
        if not isinstance(index, int):
            # No index: a new id starts a new call, otherwise it continues the last one.
            known = {acc.id for acc in self._tools.values()}
            index = (
                len(self._tools)
                if (call_id and call_id not in known) or not self._tools
                else max(self._tools)
            )
        acc = self._tools.setdefault(index, _ToolAcc())
        if call_id and not acc.id:
            acc.id = call_id
        fn = as_mapping(raw.get("function"))
        name = fn.get("name") if isinstance(fn.get("name"), str) else None
        if name and name != acc.name:
            # Names normally arrive once; servers that split them send fragments.
            acc.name += name
        args = fn.get("arguments")
        fragment = (
            json.dumps(args) if isinstance(args, Mapping) else args if isinstance(args, str) else ""
        )
        acc.arguments.append(fragment)
        return ToolCallDelta(index=index, id=call_id, name=name, arguments=fragment)

    def result(self) -> Ai:
        calls = []
        for index in sorted(self._tools):
            acc = self._tools[index]
            if not acc.name:
                raise malformed(self._provider, f"streamed tool call {index} has no function name")
            calls.append(
                ToolCall.from_json_arguments(
                    acc.id or new_tool_call_id(), acc.name, "".join(acc.arguments)
                )
            )
        thinking = "".join(self._thinking)
        return Ai(
            content="".join(self._text),
            tool_calls=calls,
            usage=self._usage,
            thinking=thinking or None,
            thinking_blocks=[ThinkingBlock(text=thinking)] if thinking else [],
            finish_reason=finish_reason(self._finish),
            raw_finish_reason=self._finish,
        )
