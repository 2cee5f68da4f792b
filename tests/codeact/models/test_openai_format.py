"""Chat Completions wire format: message conversion, response and chunk parsing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from codeact.messages import ImageDataPart, ImageUrlPart, Message, TextPart, ToolCall
from codeact.models import ModelError, TextDelta, ThinkingDelta, ToolCallDelta, ToolSpec
from codeact.models.openai_format import (
    OpenAIStreamParser,
    finish_reason,
    parse_chat_completion,
    parse_usage,
    to_openai_messages,
    to_openai_tools,
)
from codeact.models.sse import SseEvent


def test_messages_of_every_role() -> None:
    doomed = Message.human("forget me")
    history = [
        Message.system("sys"),
        Message.human(
            [
                TextPart(text="look"),
                ImageUrlPart(url="https://x/y.png", detail="high"),
                ImageDataPart(media_type="image/jpeg", data="AAAA"),
            ]
        ),
        doomed,
        Message.remove(doomed.id()),
        Message.ai("plain"),
        Message.ai_with_thinking("answer", "hidden reasoning"),
        Message.ai_with_tool_calls(
            "",
            [
                ToolCall(id="c1", name="f", arguments={"a": 1}),
                ToolCall(id="c2", name="g", raw_arguments="{oops"),
            ],
        ),
        Message.tool_result("c1", "one"),
        Message.tool_error("c2", "bad json"),
    ]
    assert to_openai_messages(history) == [
        {"role": "system", "content": "sys"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "look"},
                {"type": "image_url", "image_url": {"url": "https://x/y.png", "detail": "high"}},
                {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,AAAA"}},
            ],
        },
        {"role": "assistant", "content": "plain"},
        {"role": "assistant", "content": "answer"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "f", "arguments": '{"a": 1}'},
                },
                {"id": "c2", "type": "function", "function": {"name": "g", "arguments": "{oops"}},
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "one"},
        {"role": "tool", "tool_call_id": "c2", "content": "bad json"},
    ]


def test_images_where_openai_does_not_accept_them() -> None:
    with pytest.raises(ValueError, match="system messages cannot contain images"):
        to_openai_messages([Message.system([ImageUrlPart(url="https://x")])])
    with pytest.raises(ValueError, match="assistant messages cannot contain images"):
        to_openai_messages([Message.ai([ImageUrlPart(url="https://x")])])
    with pytest.raises(ValueError, match="tool messages cannot contain images"):
        to_openai_messages([Message.tool_result("c", [ImageUrlPart(url="https://x")])])


def test_tools() -> None:
    spec = ToolSpec(name="add", description="Add.", parameters={"type": "object"})
    assert to_openai_tools([spec]) == [
        {
            "type": "function",
            "function": {"name": "add", "description": "Add.", "parameters": {"type": "object"}},
        }
    ]


def completion(
    message: dict[str, Any], finish: str | None = "stop", **extra: Any
) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        **extra,
    }


def test_parse_text_reply_with_usage_details() -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 20,
        "total_tokens": 120,
        "prompt_tokens_details": {"cached_tokens": 64, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 12, "accepted_prediction_tokens": 1},
    }
    ai = parse_chat_completion(
        "openai", completion({"role": "assistant", "content": "Hi"}, usage=usage)
    )
    assert ai.text() == "Hi"
    assert (ai.finish_reason, ai.raw_finish_reason) == ("stop", "stop")
    u = ai.usage()
    assert u is not None
    assert (u.input_tokens, u.output_tokens, u.total_tokens) == (100, 20, 120)
    assert (u.cache_read_tokens, u.reasoning_tokens) == (64, 12)
    assert u.details["completion_tokens_details.accepted_prediction_tokens"] == 1
    assert "prompt_tokens" not in u.details


def test_deepseek_cache_hits_and_reasoning_content() -> None:
    ai = parse_chat_completion(
        "openai-compatible",
        completion(
            {"role": "assistant", "content": "42", "reasoning_content": "think think"},
            usage={
                "prompt_tokens": 10,
                "completion_tokens": 5,
                "prompt_cache_hit_tokens": 8,
                "prompt_cache_miss_tokens": 2,
            },
        ),
    )
    assert ai.thinking() == "think think"
    assert ai.usage() is not None and ai.usage().cache_read_tokens == 8  # type: ignore[union-attr]


def test_vllm_reasoning_field_and_content_parts() -> None:
    ai = parse_chat_completion(
        "openai-compatible",
        completion(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
                "reasoning": "r",
            }
        ),
    )
    assert (ai.text(), ai.thinking()) == ("ab", "r")


def test_parse_tool_calls() -> None:
    ai = parse_chat_completion(
        "openai",
        completion(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "f", "arguments": '{"x": 1}'},
                    },
                    {
                        "id": "c2",
                        "type": "function",
                        "function": {"name": "g", "arguments": {"y": 2}},
                    },
                    {
                        "id": "c3",
                        "type": "function",
                        "function": {"name": "h", "arguments": "{bad"},
                    },
                    {"type": "function", "function": {"name": "k", "arguments": ""}},
                ],
            },
            finish="tool_calls",
        ),
    )
    calls = ai.tool_calls()
    assert [(c.id, c.name, c.arguments) for c in calls[:3]] == [
        ("c1", "f", {"x": 1}),
        ("c2", "g", {"y": 2}),
        ("c3", "h", {}),
    ]
    assert calls[2].raw_arguments == "{bad"
    assert calls[3].id.startswith("call_") and calls[3].arguments == {}
    assert ai.text() == "" and ai.finish_reason == "tool_call"


@pytest.mark.parametrize(
    ("raw", "normalised"),
    [
        ("stop", "stop"),
        ("length", "length"),
        ("tool_calls", "tool_call"),
        ("function_call", "tool_call"),
        ("content_filter", "content_filter"),
        ("error", "error"),
        ("something_new", None),
        (None, None),
    ],
)
def test_finish_reasons(raw: str | None, normalised: str | None) -> None:
    assert finish_reason(raw) == normalised
    ai = parse_chat_completion("openai", completion({"content": "x"}, finish=raw))
    assert (ai.finish_reason, ai.raw_finish_reason) == (normalised, raw)


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ([], "malformed_response"),
        ({"choices": []}, "malformed_response"),
        ({"choices": [{"index": 0}]}, "malformed_response"),
        ({"choices": [{"message": {"tool_calls": [{"function": {}}]}}]}, "malformed_response"),
        ({"error": {"message": "upstream overloaded", "code": 503}}, "server_error"),
        ({"error": {"message": "Rate limit", "type": "rate_limit_exceeded"}}, "rate_limited"),
    ],
)
def test_bad_responses(body: Any, code: str) -> None:
    with pytest.raises(ModelError) as info:
        parse_chat_completion("openai", body)
    assert info.value.code == code


def test_parse_usage_absent() -> None:
    assert parse_usage(None) is None
    assert parse_usage({"prompt_tokens": 3}) is not None


def feed_all(parser: OpenAIStreamParser, chunks: list[Any]) -> list[Any]:
    events: list[Any] = []
    for chunk in chunks:
        data = chunk if isinstance(chunk, str) else json.dumps(chunk)
        events.extend(parser.feed(SseEvent(data=data)))
    return events


def delta(d: dict[str, Any], finish: str | None = None, index: int = 0) -> dict[str, Any]:
    return {"choices": [{"index": index, "delta": d, "finish_reason": finish}]}


def test_stream_text_reasoning_and_separate_usage_chunk() -> None:
    parser = OpenAIStreamParser("openai")
    events = feed_all(
        parser,
        [
            delta({"role": "assistant", "content": ""}),
            delta({"reasoning_content": "Let me "}),
            delta({"reasoning_content": "see."}),
            delta({"content": "Hel"}),
            delta({"content": "lo"}, index=1),  # second choice: ignored
            delta({"content": "lo"}),
            delta({}, finish="stop"),
            {
                "choices": [],
                "usage": {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12},
            },
        ],
    )
    assert not parser.finished
    feed_all(parser, ["[DONE]"])
    assert parser.finished
    assert events == [
        ThinkingDelta(text="Let me "),
        ThinkingDelta(text="see."),
        TextDelta(text="Hel"),
        TextDelta(text="lo"),
    ]
    ai = parser.result()
    assert (ai.text(), ai.thinking(), ai.finish_reason) == ("Hello", "Let me see.", "stop")
    assert ai.usage() is not None and ai.usage().total_tokens == 12


def test_stream_usage_on_the_finish_chunk() -> None:
    parser = OpenAIStreamParser("openai-compatible")
    chunk = delta({"content": "x"}, finish="length")
    chunk["usage"] = {"prompt_tokens": 1, "completion_tokens": 1}
    feed_all(parser, [chunk, "[DONE]"])
    ai = parser.result()
    assert ai.finish_reason == "length"
    assert ai.usage() is not None and ai.usage().total_tokens == 2  # type: ignore[union-attr]


def test_stream_accumulates_multi_chunk_tool_calls() -> None:
    def tc(index: int, **fields: Any) -> dict[str, Any]:
        return delta({"tool_calls": [{"index": index, **fields}]})

    parser = OpenAIStreamParser("openai")
    events = feed_all(
        parser,
        [
            tc(0, id="call_a", type="function", function={"name": "search", "arguments": ""}),
            tc(0, function={"arguments": '{"qu'}),
            tc(1, id="call_b", type="function", function={"name": "fetch", "arguments": '{"url"'}),
            tc(0, function={"arguments": 'ery": "ca'}),
            tc(1, function={"arguments": ': "https://x"}'}),
            tc(0, function={"arguments": 'ts"}'}),
            delta({}, finish="tool_calls"),
            "[DONE]",
        ],
    )
    assert events[0] == ToolCallDelta(index=0, id="call_a", name="search", arguments="")
    assert events[1] == ToolCallDelta(index=0, arguments='{"qu')
    ai = parser.result()
    assert [(c.id, c.name, c.arguments) for c in ai.tool_calls()] == [
        ("call_a", "search", {"query": "cats"}),
        ("call_b", "fetch", {"url": "https://x"}),
    ]
    assert ai.finish_reason == "tool_call"


def test_stream_tool_calls_without_index() -> None:
    parser = OpenAIStreamParser("openai-compatible")
    feed_all(
        parser,
        [
            delta({"tool_calls": [{"id": "a", "function": {"name": "f", "arguments": '{"k":'}}]}),
            delta({"tool_calls": [{"function": {"arguments": " 1}"}}]}),
            delta({"tool_calls": [{"id": "b", "function": {"name": "g", "arguments": {"z": 0}}}]}),
            "[DONE]",
        ],
    )
    calls = parser.result().tool_calls()
    assert [(c.id, c.name, c.arguments) for c in calls] == [
        ("a", "f", {"k": 1}),
        ("b", "g", {"z": 0}),
    ]


def test_stream_error_event_is_classified() -> None:
    parser = OpenAIStreamParser("openai")
    feed_all(parser, [delta({"content": "par"})])
    with pytest.raises(ModelError) as info:
        feed_all(
            parser, [{"error": {"message": "The server had an error", "type": "server_error"}}]
        )
    assert info.value.code == "server_error"


def test_stream_error_object_without_error_key() -> None:
    parser = OpenAIStreamParser("openai-compatible")
    with pytest.raises(ModelError) as info:
        feed_all(
            parser,
            [{"object": "error", "message": "maximum context length is 2048", "code": 400}],
        )
    assert info.value.code == "context_length_exceeded"


def test_stream_garbage_is_malformed() -> None:
    parser = OpenAIStreamParser("openai")
    with pytest.raises(ModelError) as info:
        feed_all(parser, ["{not json"])
    assert info.value.code == "malformed_response"
    with pytest.raises(ModelError):
        feed_all(parser, ["[1, 2]"])
