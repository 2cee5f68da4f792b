"""Anthropic Messages wire format: conversion, response and stream event parsing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from codeact.messages import (
    Ai,
    ImageDataPart,
    ImageUrlPart,
    Message,
    TextPart,
    ThinkingBlock,
    ToolCall,
)
from codeact.models import ModelError, TextDelta, ThinkingDelta, ToolCallDelta, ToolSpec
from codeact.models.anthropic_format import (
    AnthropicStreamParser,
    mark_cache_breakpoints,
    parse_message,
    stop_reason,
    to_anthropic_messages,
    to_anthropic_tools,
)
from codeact.models.sse import SseEvent


def test_conversion_of_a_full_history() -> None:
    doomed = Message.human("gone")
    signed = Ai(
        content="Let me check.",
        thinking_blocks=[
            ThinkingBlock(text="I should search.", signature="sig=="),
            ThinkingBlock(redacted_data="ENCRYPTED"),
        ],
        tool_calls=[
            ToolCall(id="tu1", name="search", arguments={"q": "x"}),
            ToolCall(id="tu2", name="open", arguments={}),
        ],
    )
    history = [
        Message.system("Rule one."),
        Message.human([TextPart(text="see"), ImageDataPart(media_type="image/png", data="QUJD")]),
        doomed,
        Message.remove(doomed.id()),
        Message.human(
            [ImageUrlPart(url="https://x/a.png"), ImageUrlPart(url="data:image/gif;base64,R0lG")]
        ),
        signed,
        Message.tool_result("tu1", "3 results"),
        Message.tool_error("tu2", "no such page"),
        Message.ai_with_thinking("unsigned reasoning is dropped", "private"),
        Message.ai(""),
        Message.system("Rule two."),
        Message.human("next"),
    ]
    system, turns = to_anthropic_messages(history)
    assert system == [{"type": "text", "text": "Rule one."}, {"type": "text", "text": "Rule two."}]
    assert turns == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "see"},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/png", "data": "QUJD"},
                },
                {"type": "image", "source": {"type": "url", "url": "https://x/a.png"}},
                {
                    "type": "image",
                    "source": {"type": "base64", "media_type": "image/gif", "data": "R0lG"},
                },
            ],
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "I should search.", "signature": "sig=="},
                {"type": "redacted_thinking", "data": "ENCRYPTED"},
                {"type": "text", "text": "Let me check."},
                {"type": "tool_use", "id": "tu1", "name": "search", "input": {"q": "x"}},
                {"type": "tool_use", "id": "tu2", "name": "open", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "tu1", "content": "3 results"},
                {
                    "type": "tool_result",
                    "tool_use_id": "tu2",
                    "content": "no such page",
                    "is_error": True,
                },
            ],
        },
        {
            "role": "assistant",
            "content": [{"type": "text", "text": "unsigned reasoning is dropped"}],
        },
        {"role": "user", "content": [{"type": "text", "text": "next"}]},
    ]


def test_images_in_system_are_rejected() -> None:
    with pytest.raises(ValueError, match="system content cannot contain images"):
        to_anthropic_messages([Message.system([ImageUrlPart(url="https://x")])])


def test_tools() -> None:
    spec = ToolSpec(name="t", description="d", parameters={"type": "object", "required": []})
    assert to_anthropic_tools([spec]) == [
        {"name": "t", "description": "d", "input_schema": {"type": "object", "required": []}}
    ]


RESPONSE = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "claude-sonnet-4-5",
    "content": [
        {"type": "thinking", "thinking": "Hmm.", "signature": "s1"},
        {"type": "redacted_thinking", "data": "R"},
        {"type": "text", "text": "Answer "},
        {"type": "text", "text": "here."},
        {"type": "tool_use", "id": "tu", "name": "calc", "input": {"e": "1+1"}},
        {"type": "server_tool_use", "id": "s", "name": "web_search", "input": {}},
    ],
    "stop_reason": "tool_use",
    "stop_sequence": None,
    "usage": {
        "input_tokens": 10,
        "cache_creation_input_tokens": 20,
        "cache_read_input_tokens": 30,
        "output_tokens": 5,
        "service_tier": "standard",
        "server_tool_use": {"web_search_requests": 1},
    },
}


def test_parse_message() -> None:
    ai = parse_message("anthropic", RESPONSE)
    assert ai.text() == "Answer here."
    assert ai.thinking() == "Hmm."
    assert ai.thinking_blocks == [
        ThinkingBlock(text="Hmm.", signature="s1"),
        ThinkingBlock(redacted_data="R"),
    ]
    assert [(c.id, c.name, c.arguments) for c in ai.tool_calls()] == [("tu", "calc", {"e": "1+1"})]
    assert (ai.finish_reason, ai.raw_finish_reason) == ("tool_call", "tool_use")
    usage = ai.usage()
    assert usage is not None
    assert (usage.input_tokens, usage.cache_write_tokens, usage.cache_read_tokens) == (60, 20, 30)
    assert usage.output_tokens == 5 and usage.total_tokens == 65
    assert usage.details["server_tool_use.web_search_requests"] == 1


def test_thinking_round_trips_into_the_next_request() -> None:
    ai = parse_message("anthropic", RESPONSE)
    _, turns = to_anthropic_messages([Message.human("q"), ai])
    assert turns[1]["content"][:2] == [
        {"type": "thinking", "thinking": "Hmm.", "signature": "s1"},
        {"type": "redacted_thinking", "data": "R"},
    ]


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("tool_use", "tool_call"),
        ("refusal", "content_filter"),
        ("pause_turn", None),
    ],
)
def test_stop_reasons(raw: str, normalised: str | None) -> None:
    assert stop_reason(raw) == normalised
    ai = parse_message("anthropic", {**RESPONSE, "stop_reason": raw})
    assert (ai.finish_reason, ai.raw_finish_reason) == (normalised, raw)


def test_context_window_stop_reason_is_an_error_with_partial_reply() -> None:
    with pytest.raises(ModelError) as info:
        parse_message("anthropic", {**RESPONSE, "stop_reason": "model_context_window_exceeded"})
    assert info.value.code == "context_length_exceeded"
    assert info.value.partial is not None and info.value.partial.text() == "Answer here."


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            "overloaded",
        ),
        ({"type": "message"}, "malformed_response"),
        ("text", "malformed_response"),
        ({"content": [{"type": "tool_use", "input": {}}]}, "malformed_response"),
    ],
)
def test_bad_responses(body: Any, code: str) -> None:
    with pytest.raises(ModelError) as info:
        parse_message("anthropic", body)
    assert info.value.code == code


def ev(kind: str, **data: Any) -> SseEvent:
    return SseEvent(event=kind, data=json.dumps({"type": kind, **data}))


STREAM = [
    ev(
        "message_start",
        message={
            "id": "m",
            "type": "message",
            "role": "assistant",
            "content": [],
            "usage": {"input_tokens": 12, "cache_read_input_tokens": 100, "output_tokens": 1},
        },
    ),
    ev("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""}),
    ev("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "Think "}),
    ev("content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "hard."}),
    ev("content_block_delta", index=0, delta={"type": "signature_delta", "signature": "SIG"}),
    ev("content_block_stop", index=0),
    ev("ping"),
    ev("content_block_start", index=1, content_block={"type": "text", "text": ""}),
    ev("content_block_delta", index=1, delta={"type": "text_delta", "text": "Result: "}),
    ev("content_block_delta", index=1, delta={"type": "text_delta", "text": "ok"}),
    ev("content_block_stop", index=1),
    ev(
        "content_block_start",
        index=2,
        content_block={"type": "tool_use", "id": "toolu_1", "name": "calc", "input": {}},
    ),
    ev("content_block_delta", index=2, delta={"type": "input_json_delta", "partial_json": ""}),
    ev(
        "content_block_delta",
        index=2,
        delta={"type": "input_json_delta", "partial_json": '{"expr": '},
    ),
    ev(
        "content_block_delta", index=2, delta={"type": "input_json_delta", "partial_json": '"2*3"}'}
    ),
    ev("content_block_stop", index=2),
    ev(
        "content_block_start",
        index=3,
        content_block={"type": "tool_use", "id": "toolu_2", "name": "noop", "input": {}},
    ),
    ev("content_block_stop", index=3),
    ev(
        "message_delta",
        delta={"stop_reason": "tool_use", "stop_sequence": None},
        usage={"output_tokens": 40},
    ),
    ev("message_delta", delta={}, usage={"output_tokens": 42}),
    ev("message_stop"),
]


def test_stream_events() -> None:
    parser = AnthropicStreamParser("anthropic")
    events: list[Any] = []
    for event in STREAM[:-1]:
        events.extend(parser.feed(event))
    assert not parser.finished
    parser.feed(STREAM[-1])
    assert parser.finished
    assert events == [
        ThinkingDelta(text="Think "),
        ThinkingDelta(text="hard."),
        TextDelta(text="Result: "),
        TextDelta(text="ok"),
        ToolCallDelta(index=0, id="toolu_1", name="calc"),
        ToolCallDelta(index=0, arguments='{"expr": '),
        ToolCallDelta(index=0, arguments='"2*3"}'),
        ToolCallDelta(index=1, id="toolu_2", name="noop"),
    ]
    ai = parser.result()
    assert ai.text() == "Result: ok"
    assert ai.thinking_blocks == [ThinkingBlock(text="Think hard.", signature="SIG")]
    assert [(c.id, c.arguments) for c in ai.tool_calls()] == [
        ("toolu_1", {"expr": "2*3"}),
        ("toolu_2", {}),
    ]
    assert ai.finish_reason == "tool_call"
    usage = ai.usage()
    assert usage is not None
    assert (usage.input_tokens, usage.cache_read_tokens, usage.output_tokens) == (112, 100, 42)


def test_stream_error_event() -> None:
    parser = AnthropicStreamParser("anthropic")
    parser.feed(STREAM[0])
    with pytest.raises(ModelError) as info:
        parser.feed(ev("error", error={"type": "overloaded_error", "message": "Overloaded"}))
    assert info.value.code == "overloaded" and info.value.status is None


def test_stream_context_window_stop() -> None:
    parser = AnthropicStreamParser("anthropic")
    for event in STREAM[7:10]:
        parser.feed(event)
    parser.feed(ev("message_delta", delta={"stop_reason": "model_context_window_exceeded"}))
    with pytest.raises(ModelError) as info:
        parser.feed(ev("message_stop"))
    assert info.value.code == "context_length_exceeded"
    assert info.value.partial is not None and info.value.partial.text() == "Result: ok"


def test_stream_protocol_violations_are_malformed() -> None:
    parser = AnthropicStreamParser("anthropic")
    with pytest.raises(ModelError, match="before its start"):
        parser.feed(ev("content_block_delta", index=5, delta={"type": "text_delta", "text": "x"}))
    with pytest.raises(ModelError, match="without index"):
        parser.feed(ev("content_block_start", content_block={"type": "text"}))
    with pytest.raises(ModelError) as info:
        parser.feed(SseEvent(event="message_start", data="{truncated"))
    assert info.value.code == "malformed_response"


def test_unknown_events_are_ignored() -> None:
    parser = AnthropicStreamParser("anthropic")
    assert parser.feed(ev("brand_new_event", payload=1)) == []


def test_cache_breakpoints_skip_blocks_that_cannot_carry_one() -> None:
    turns: list[dict[str, Any]] = [
        {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "thinking"}]}
    ]
    mark_cache_breakpoints([], turns)
    assert turns[0]["content"][0]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in turns[0]["content"][1]
    mark_cache_breakpoints([], [])  # nothing to mark: no error
