"""Integration: the real clients against a loopback HTTP server with real chunk boundaries."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from codeact.messages import Message
from codeact.models import (
    AnthropicModel,
    ModelError,
    OpenAIChatModel,
    RetryPolicy,
    StreamEnd,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)

pytestmark = pytest.mark.timeout(30)

HISTORY = [Message.system("Be brief."), Message.human("Say hello.")]


def oa_chunk(delta: dict[str, Any], finish: str | None = None, **extra: Any) -> str:
    body = {
        "id": "c",
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        **extra,
    }
    return f"data: {json.dumps(body)}\n\n"


OA_USAGE = (
    'data: {"id": "c", "choices": [], "usage": {"prompt_tokens": 8, "completion_tokens": 3}}\n\n'
)
OA_DONE = "data: [DONE]\n\n"
OA_HELLO = [
    oa_chunk({"role": "assistant", "content": ""}),
    oa_chunk({"content": "Hel"}),
    oa_chunk({"content": "lo!"}),
    oa_chunk({}, "stop"),
    OA_USAGE,
    OA_DONE,
]


def an_event(kind: str, **data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **data})}\n\n"


def openai(loopback: Any, **kw: Any) -> OpenAIChatModel:
    kw.setdefault("retry", RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02))
    return OpenAIChatModel(
        "local-model", provider="openai-compatible", base_url=f"{loopback.url}/v1", env={}, **kw
    )


def anthropic(loopback: Any, **kw: Any) -> AnthropicModel:
    kw.setdefault("retry", RetryPolicy(max_attempts=3, initial_delay=0.01, max_delay=0.02))
    return AnthropicModel("claude-test", api_key="ak", base_url=loopback.url, **kw)


async def collect(model: Any, **kw: Any) -> list[Any]:
    async with model:
        return [e async for e in model.stream(HISTORY, **kw)]


def test_openai_stream_arrives_incrementally(loopback: Any, sse_action: Callable[..., Any]) -> None:
    first_seen = threading.Event()
    loopback.push(sse_action(OA_HELLO, wait_before={2: first_seen}))

    async def go() -> list[Any]:
        got = []
        async with openai(loopback) as model:
            async for event in model.stream(HISTORY, max_tokens=20):
                got.append(event)
                # The server holds back the rest until the first delta reached us:
                # the client must not buffer the response.
                first_seen.set()
        return got

    events = asyncio.run(go())
    assert events[:2] == [TextDelta(text="Hel"), TextDelta(text="lo!")]
    final = events[-1]
    assert isinstance(final, StreamEnd) and final.message.text() == "Hello!"
    assert final.message.usage() is not None and final.message.usage().total_tokens == 11  # type: ignore[union-attr]
    request = loopback.requests[0]
    assert request.path == "/v1/chat/completions"
    assert request.body["stream"] is True and request.body["max_tokens"] == 20
    assert "authorization" not in request.headers


def test_events_split_mid_line_are_reassembled(
    loopback: Any, sse_action: Callable[..., Any]
) -> None:
    tool = oa_chunk(
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "run", "arguments": '{"code": "pri'},
                }
            ]
        }
    )
    more = oa_chunk({"tool_calls": [{"index": 0, "function": {"arguments": 'nt(1)"}'}}]})
    loopback.push(
        sse_action([tool, more, oa_chunk({}, "tool_calls"), OA_DONE], split=True, gap=0.005)
    )
    events = asyncio.run(collect(openai(loopback)))
    assert [type(e) for e in events] == [ToolCallDelta, ToolCallDelta, StreamEnd]
    assert events[-1].message.tool_calls()[0].arguments == {"code": "print(1)"}


def test_slow_first_token_within_the_read_timeout(
    loopback: Any, sse_action: Callable[..., Any]
) -> None:
    loopback.push(sse_action(OA_HELLO, first_delay=0.4))
    events = asyncio.run(collect(openai(loopback, timeout=httpx.Timeout(5.0, read=2.0))))
    assert events[-1].message.text() == "Hello!"
    assert len(loopback.requests) == 1


def test_first_token_slower_than_read_timeout_is_retried(
    loopback: Any, sse_action: Callable[..., Any]
) -> None:
    loopback.push(sse_action(OA_HELLO, first_delay=1.0), sse_action(OA_HELLO))
    events = asyncio.run(collect(openai(loopback, timeout=httpx.Timeout(5.0, read=0.2))))
    assert events[-1].message.text() == "Hello!"
    assert len(loopback.requests) == 2


def test_read_timeout_everywhere_gives_timeout(
    loopback: Any, sse_action: Callable[..., Any]
) -> None:
    loopback.push(*[sse_action(OA_HELLO, first_delay=1.0)] * 2)
    policy = RetryPolicy(max_attempts=2, initial_delay=0.01)
    with pytest.raises(ModelError) as info:
        asyncio.run(collect(openai(loopback, timeout=httpx.Timeout(5.0, read=0.2), retry=policy)))
    assert info.value.code == "timeout"


def test_connection_dropped_after_text(loopback: Any, sse_action: Callable[..., Any]) -> None:
    loopback.push(sse_action(OA_HELLO, drop_after=3), sse_action(OA_HELLO))
    with pytest.raises(ModelError) as info:
        asyncio.run(collect(openai(loopback)))
    assert info.value.code == "stream_interrupted"
    assert info.value.partial is not None and info.value.partial.text() == "Hello!"
    assert len(loopback.requests) == 1


def test_connection_dropped_before_text_is_retried(
    loopback: Any, sse_action: Callable[..., Any]
) -> None:
    loopback.push(
        sse_action(OA_HELLO, drop_after=1), sse_action(OA_HELLO, drop_after=0), sse_action(OA_HELLO)
    )
    events = asyncio.run(collect(openai(loopback)))
    assert [e.text for e in events if isinstance(e, TextDelta)] == ["Hel", "lo!"]
    assert len(loopback.requests) == 3


def test_stream_ending_without_done(loopback: Any, sse_action: Callable[..., Any]) -> None:
    loopback.push(sse_action(OA_HELLO[:-1]))
    with pytest.raises(ModelError) as info:
        asyncio.run(collect(openai(loopback)))
    assert info.value.code == "stream_interrupted"


def test_429_with_retry_after_seconds(
    loopback: Any, json_action: Callable[..., Any], sse_action: Callable[..., Any]
) -> None:
    loopback.push(
        json_action(
            429,
            {"error": {"message": "Rate limit reached", "type": "requests"}},
            {"retry-after": "1"},
        ),
        sse_action(OA_HELLO),
    )
    start = time.monotonic()
    events = asyncio.run(collect(openai(loopback)))
    assert events[-1].message.text() == "Hello!"
    assert time.monotonic() - start >= 0.95
    assert len(loopback.requests) == 2


def test_503_then_success_non_streaming(loopback: Any, json_action: Callable[..., Any]) -> None:
    loopback.push(
        json_action(503, "upstream unavailable"),
        json_action(
            200,
            {
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": "up again"},
                    }
                ]
            },
        ),
    )

    async def go() -> str:
        async with openai(loopback) as model:
            return (await model.complete(HISTORY)).text()

    assert asyncio.run(go()) == "up again"
    assert len(loopback.requests) == 2


@pytest.mark.parametrize(
    "body",
    [
        {
            "error": {
                "message": "This model's maximum context length is 8192 tokens. However, your "
                "messages resulted in 9000 tokens.",
                "type": "invalid_request_error",
                "param": "messages",
                "code": "context_length_exceeded",
            }
        },
        {
            "object": "error",
            "message": "This model's maximum context length is 4096 tokens. "
            "However, you requested 5000 tokens.",
            "type": "BadRequestError",
            "param": None,
            "code": 400,
        },
        {
            "error": {
                "message": "This model's maximum context length is 65536 tokens. However, you "
                "requested 70000 tokens.",
                "type": "invalid_request_error",
                "param": None,
                "code": "invalid_request_error",
            }
        },
        {
            "error": {
                "code": 400,
                "message": "the request exceeds the available context size, try increasing it",
                "type": "exceed_context_size_error",
            }
        },
    ],
    ids=["openai", "vllm", "deepseek", "llamacpp"],
)
def test_openai_style_context_overflow(
    loopback: Any, json_action: Callable[..., Any], body: dict[str, Any]
) -> None:
    loopback.push(json_action(400, body), json_action(400, body))
    with pytest.raises(ModelError) as info:
        asyncio.run(collect(openai(loopback)))
    assert info.value.code == "context_length_exceeded" and info.value.status == 400
    assert len(loopback.requests) == 1


ANTHROPIC_STREAM = [
    an_event(
        "message_start",
        message={
            "id": "m",
            "type": "message",
            "role": "assistant",
            "content": [],
            "usage": {"input_tokens": 20, "output_tokens": 1},
        },
    ),
    an_event("content_block_start", index=0, content_block={"type": "thinking", "thinking": ""}),
    an_event(
        "content_block_delta", index=0, delta={"type": "thinking_delta", "thinking": "Greet."}
    ),
    an_event(
        "content_block_delta", index=0, delta={"type": "signature_delta", "signature": "EqQ="}
    ),
    an_event("content_block_stop", index=0),
    an_event("ping"),
    an_event("content_block_start", index=1, content_block={"type": "text", "text": ""}),
    an_event("content_block_delta", index=1, delta={"type": "text_delta", "text": "Hello"}),
    an_event("content_block_delta", index=1, delta={"type": "text_delta", "text": " there"}),
    an_event("content_block_stop", index=1),
    an_event("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 9}),
    an_event("message_stop"),
]


def test_anthropic_stream_with_thinking(loopback: Any, sse_action: Callable[..., Any]) -> None:
    loopback.push(sse_action(ANTHROPIC_STREAM, gap=0.002, split=True))
    events = asyncio.run(collect(anthropic(loopback)))
    assert events[0] == ThinkingDelta(text="Greet.")
    final = events[-1]
    assert isinstance(final, StreamEnd)
    assert final.message.text() == "Hello there"
    assert final.message.thinking_blocks[0].signature == "EqQ="
    assert final.message.usage() is not None and final.message.usage().output_tokens == 9  # type: ignore[union-attr]
    request = loopback.requests[0]
    assert request.path == "/v1/messages"
    assert request.headers["x-api-key"] == "ak"
    assert request.body["system"] == [{"type": "text", "text": "Be brief."}]


def test_anthropic_529_then_stream(
    loopback: Any, json_action: Callable[..., Any], sse_action: Callable[..., Any]
) -> None:
    overloaded = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    loopback.push(json_action(529, overloaded), sse_action(ANTHROPIC_STREAM))
    events = asyncio.run(collect(anthropic(loopback)))
    assert events[-1].message.text() == "Hello there"
    assert len(loopback.requests) == 2


def test_anthropic_dropped_mid_stream(loopback: Any, sse_action: Callable[..., Any]) -> None:
    loopback.push(sse_action(ANTHROPIC_STREAM, drop_after=8))
    with pytest.raises(ModelError) as info:
        asyncio.run(collect(anthropic(loopback)))
    assert info.value.code == "stream_interrupted"
    assert info.value.partial is not None and info.value.partial.text() == "Hello"


def test_anthropic_prompt_too_long(loopback: Any, json_action: Callable[..., Any]) -> None:
    body = {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 250000 tokens > 200000 maximum",
        },
    }
    loopback.push(json_action(400, body))

    async def go() -> None:
        async with anthropic(loopback) as model:
            await model.complete(HISTORY)

    with pytest.raises(ModelError) as info:
        asyncio.run(go())
    assert info.value.code == "context_length_exceeded"


def test_connection_refused() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    model = OpenAIChatModel(
        "m",
        provider="openai-compatible",
        base_url=f"http://127.0.0.1:{port}/v1",
        env={},
        retry=RetryPolicy(max_attempts=2, initial_delay=0.001),
    )
    with pytest.raises(ModelError) as info:
        asyncio.run(collect(model))
    assert info.value.code == "connection_error"
