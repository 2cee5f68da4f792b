"""AnthropicModel over httpx.MockTransport: request building, streaming, failures."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from codeact.messages import Message
from codeact.models import (
    AnthropicModel,
    MissingApiKeyError,
    ModelError,
    RetryPolicy,
    StreamEnd,
    TextDelta,
)

FAST = RetryPolicy(max_attempts=3, initial_delay=0.001, max_delay=0.005)


class Server:
    def __init__(self, *replies: httpx.Response | Exception) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        return reply

    def body(self, i: int = 0) -> dict[str, Any]:
        return dict(json.loads(self.requests[i].content))

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self))


class Chunks(httpx.AsyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk


def events(*items: tuple[str, dict[str, Any]]) -> httpx.Response:
    text = "".join(f"event: {k}\ndata: {json.dumps({'type': k, **d})}\n\n" for k, d in items)
    return httpx.Response(
        200, headers={"content-type": "text/event-stream"}, stream=Chunks([text.encode()])
    )


def message(text: str = "Hello", stop: str = "end_turn") -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "id": "msg",
            "type": "message",
            "role": "assistant",
            "content": [{"type": "text", "text": text}],
            "stop_reason": stop,
            "usage": {"input_tokens": 3, "output_tokens": 2},
        },
    )


def model(server: Server, **kw: Any) -> AnthropicModel:
    kw.setdefault("api_key", "ak")
    kw.setdefault("retry", FAST)
    return AnthropicModel("claude-sonnet-4-5", client=server.client(), **kw)


HISTORY = [Message.system("Be exact."), Message.human("2+2?")]

START = (
    "message_start",
    {"message": {"id": "m", "content": [], "usage": {"input_tokens": 5, "output_tokens": 1}}},
)
TEXT_START = ("content_block_start", {"index": 0, "content_block": {"type": "text", "text": ""}})


def text(t: str) -> tuple[str, dict[str, Any]]:
    return ("content_block_delta", {"index": 0, "delta": {"type": "text_delta", "text": t}})


END: list[tuple[str, dict[str, Any]]] = [
    ("content_block_stop", {"index": 0}),
    ("message_delta", {"delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 7}}),
    ("message_stop", {}),
]


def test_request_building() -> None:
    server = Server(message())
    m = model(
        server,
        beta=["interleaved-thinking-2025-05-14"],
        max_tokens=1000,
        extra_body={"thinking": {"type": "enabled", "budget_tokens": 500}},
    )
    ai = asyncio.run(
        m.complete(
            HISTORY,
            stop="###",
            temperature=0.5,
            tools=[{"name": "calc", "parameters": {"type": "object"}}],
        )
    )
    assert ai.text() == "Hello" and ai.finish_reason == "stop"
    request = server.requests[0]
    assert str(request.url) == "https://api.anthropic.com/v1/messages"
    assert request.headers["x-api-key"] == "ak"
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert request.headers["anthropic-beta"] == "interleaved-thinking-2025-05-14"
    assert "authorization" not in request.headers
    assert server.body() == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1000,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "2+2?"}]}],
        "system": [{"type": "text", "text": "Be exact."}],
        "stop_sequences": ["###"],
        "temperature": 0.5,
        "tools": [{"name": "calc", "description": "", "input_schema": {"type": "object"}}],
        "thinking": {"type": "enabled", "budget_tokens": 500},
    }


def test_max_tokens_is_always_sent_and_call_value_wins() -> None:
    server = Server(message(), message())
    m = model(server)
    asyncio.run(m.complete([Message.human("x")]))
    asyncio.run(m.complete([Message.human("x")], max_tokens=12))
    assert server.body(0)["max_tokens"] == 4096
    assert server.body(1)["max_tokens"] == 12
    assert "system" not in server.body(0)


@pytest.mark.parametrize(
    ("base", "url"),
    [
        ("https://proxy.example/anthropic", "https://proxy.example/anthropic/v1/messages"),
        ("http://127.0.0.1:9/v1/", "http://127.0.0.1:9/v1/messages"),
    ],
)
def test_base_urls(base: str, url: str) -> None:
    server = Server(message())
    asyncio.run(model(server, base_url=base).complete(HISTORY))
    assert str(server.requests[0].url) == url


def test_key_and_base_url_from_environment() -> None:
    with pytest.raises(MissingApiKeyError, match="ANTHROPIC_API_KEY"):
        AnthropicModel("claude-x", env={})
    m = AnthropicModel(
        "claude-x", env={"ANTHROPIC_API_KEY": "e", "ANTHROPIC_BASE_URL": "http://127.0.0.1:1"}
    )
    assert (m.api_key, m.base_url, m.name) == ("e", "http://127.0.0.1:1", "anthropic:claude-x")
    asyncio.run(m.aclose())


def test_temperature_range() -> None:
    server = Server()
    with pytest.raises(ValueError, match=r"0\.\.1"):
        asyncio.run(model(server).complete(HISTORY, temperature=1.5))
    assert server.requests == []


def test_stream() -> None:
    server = Server(events(START, ("ping", {}), TEXT_START, text("Four"), text("."), *END))
    got = asyncio.run(_drain(model(server)))
    assert got[:2] == [TextDelta(text="Four"), TextDelta(text=".")]
    final = got[-1]
    assert isinstance(final, StreamEnd)
    assert final.message.text() == "Four."
    assert final.message.usage() is not None and final.message.usage().output_tokens == 7  # type: ignore[union-attr]
    assert server.body()["stream"] is True


async def _drain(m: AnthropicModel) -> list[Any]:
    return [e async for e in m.stream(HISTORY)]


def test_stream_cut_before_message_stop() -> None:
    server = Server(events(START, TEXT_START, text("Fo")), message())
    with pytest.raises(ModelError) as info:
        asyncio.run(_drain(model(server)))
    assert info.value.code == "stream_interrupted"
    assert info.value.partial is not None and info.value.partial.text() == "Fo"
    assert len(server.requests) == 1


def test_stream_overloaded_event_before_text_is_retried() -> None:
    overloaded = ("error", {"error": {"type": "overloaded_error", "message": "Overloaded"}})
    server = Server(events(START, overloaded), events(START, TEXT_START, text("ok"), *END))
    got = asyncio.run(_drain(model(server)))
    assert isinstance(got[-1], StreamEnd) and got[-1].message.text() == "ok"
    assert len(server.requests) == 2


def test_529_is_overloaded_and_retried() -> None:
    busy = httpx.Response(
        529, json={"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    )
    server = Server(busy, busy, message("finally"))
    assert asyncio.run(model(server).complete(HISTORY)).text() == "finally"
    server = Server(busy, busy, busy)
    with pytest.raises(ModelError) as info:
        asyncio.run(model(server).complete(HISTORY))
    assert (info.value.code, info.value.status) == ("overloaded", 529)


def test_prompt_too_long() -> None:
    body = {
        "type": "error",
        "error": {
            "type": "invalid_request_error",
            "message": "prompt is too long: 210000 tokens > 200000 maximum",
        },
    }
    server = Server(httpx.Response(400, json=body))
    with pytest.raises(ModelError) as info:
        asyncio.run(model(server).complete(HISTORY))
    assert info.value.code == "context_length_exceeded"
    assert len(server.requests) == 1


def test_context_window_stop_reason_in_a_stream_is_not_retried() -> None:
    ending: list[tuple[str, dict[str, Any]]] = [
        ("content_block_stop", {"index": 0}),
        ("message_delta", {"delta": {"stop_reason": "model_context_window_exceeded"}}),
        ("message_stop", {}),
    ]
    server = Server(events(START, TEXT_START, text("long"), *ending), message())
    with pytest.raises(ModelError) as info:
        asyncio.run(_drain(model(server)))
    assert info.value.code == "context_length_exceeded"
    assert len(server.requests) == 1


def test_prompt_caching_marks_the_system_prompt_and_the_newest_block() -> None:
    server = Server(message(), message())
    history = [
        *HISTORY,
        Message.ai("Let me compute."),
        Message.human("And 3+3?"),
    ]
    asyncio.run(model(server, cache_prompt=True).complete(history))
    body = server.body()
    assert body["system"] == [
        {"type": "text", "text": "Be exact.", "cache_control": {"type": "ephemeral"}}
    ]
    *earlier, last = body["messages"]
    assert last["content"][-1]["cache_control"] == {"type": "ephemeral"}
    assert "cache_control" not in json.dumps(earlier)
    # Off by default: the request is exactly what the history says.
    asyncio.run(model(server).complete(history))
    assert "cache_control" not in json.dumps(server.body(1))
