"""OpenAIChatModel over httpx.MockTransport: request building, parsing, failures."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from codeact.messages import Message
from codeact.models import (
    MissingApiKeyError,
    ModelError,
    OpenAIChatModel,
    RetryPolicy,
    StreamEnd,
    TextDelta,
    ToolCallDelta,
    ToolLike,
    ToolSpec,
)

Reply = httpx.Response | Exception | Callable[[httpx.Request], httpx.Response]


class Server:
    """A MockTransport handler that replays scripted replies and records requests."""

    def __init__(self, *replies: Reply) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if not self.replies:
            raise AssertionError("unexpected extra request")
        reply = self.replies.pop(0)
        if isinstance(reply, Exception):
            raise reply
        if callable(reply):
            return reply(request)
        return reply

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self))


class Chunks(httpx.AsyncByteStream):
    """A response body delivered in pieces, optionally failing at the end."""

    def __init__(self, chunks: list[bytes], fail: Exception | None = None) -> None:
        self.chunks, self.fail = chunks, fail

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk
        if self.fail is not None:
            raise self.fail


def sse(*chunks: Any, done: bool = True, fail: Exception | None = None) -> httpx.Response:
    parts = [f"data: {c if isinstance(c, str) else json.dumps(c)}\n\n".encode() for c in chunks]
    if done:
        parts.append(b"data: [DONE]\n\n")
    return httpx.Response(
        200, headers={"content-type": "text/event-stream"}, stream=Chunks(parts, fail)
    )


def ok(content: str = "Hi", **message: Any) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content, **message},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 4, "completion_tokens": 1, "total_tokens": 5},
        },
    )


def text_chunk(text: str, finish: str | None = None) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": finish}]}


FAST = RetryPolicy(max_attempts=3, initial_delay=0.001, max_delay=0.005)


def model(server: Server, **kw: Any) -> OpenAIChatModel:
    kw.setdefault("api_key", "sk-test")
    kw.setdefault("retry", FAST)
    return OpenAIChatModel("gpt-4o-mini", client=server.client(), **kw)


async def drain(m: OpenAIChatModel, **kw: Any) -> list[Any]:
    return [e async for e in m.stream([Message.human("hi")], **kw)]


HISTORY = [Message.system("Be brief."), Message.human("Hello")]


def test_request_building() -> None:
    server = Server(ok())
    m = model(server, extra_body={"seed": 7}, headers={"x-trace": "t1"})
    tools: list[ToolLike] = [ToolSpec(name="add", parameters={"type": "object"}), {"name": "sub"}]
    ai = asyncio.run(
        m.complete(HISTORY, stop=["\nObservation:"], max_tokens=50, temperature=0.2, tools=tools)
    )
    assert ai.text() == "Hi"
    (request,) = server.requests
    assert str(request.url) == "https://api.openai.com/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer sk-test"
    assert request.headers["x-trace"] == "t1"
    assert request.headers["content-type"] == "application/json"
    body = server.bodies()[0]
    assert body == {
        "model": "gpt-4o-mini",
        "messages": [
            {"role": "system", "content": "Be brief."},
            {"role": "user", "content": "Hello"},
        ],
        "stop": ["\nObservation:"],
        "max_completion_tokens": 50,
        "temperature": 0.2,
        "tools": [
            {
                "type": "function",
                "function": {"name": "add", "description": "", "parameters": {"type": "object"}},
            },
            {
                "type": "function",
                "function": {
                    "name": "sub",
                    "description": "",
                    "parameters": {"type": "object", "properties": {}},
                },
            },
        ],
        "seed": 7,
    }


def test_defaults_and_compatible_servers() -> None:
    server = Server(ok(), sse(text_chunk("x", "stop")))
    m = OpenAIChatModel(
        "qwen",
        provider="openai-compatible",
        base_url="http://127.0.0.1:8000/v1/",
        client=server.client(),
        max_tokens=99,
        temperature=0.0,
        env={},
    )
    assert m.name == "openai-compatible:qwen@http://127.0.0.1:8000/v1"
    asyncio.run(m.complete([Message.human("q")], stop="END"))
    asyncio.run(drain(m))
    first, second = server.bodies()
    assert first["max_tokens"] == 99 and "max_completion_tokens" not in first
    assert first["temperature"] == 0.0 and first["stop"] == ["END"]
    assert second["stream"] is True and second["stream_options"] == {"include_usage": True}
    assert "authorization" not in server.requests[0].headers
    assert str(server.requests[0].url) == "http://127.0.0.1:8000/v1/chat/completions"


def test_stream_usage_can_be_turned_off() -> None:
    server = Server(sse(text_chunk("x", "stop")))
    asyncio.run(drain(model(server, stream_usage=False, max_tokens_field="max_tokens")))
    assert "stream_options" not in server.bodies()[0]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"temperature": 3.0}, "less than or equal to 2"),
        ({"max_tokens": 0}, "greater than 0"),
        ({"stop": ["ok", ""]}, "non-empty"),
        ({"tools": [{"name": "has space"}]}, "tool names"),
    ],
)
def test_bad_call_options_fail_before_sending(kwargs: dict[str, Any], message: str) -> None:
    server = Server()
    with pytest.raises(ValueError, match=message):
        asyncio.run(model(server).complete(HISTORY, **kwargs))
    assert server.requests == []


def test_keys_and_base_url_from_environment() -> None:
    with pytest.raises(MissingApiKeyError, match="OPENAI_API_KEY") as info:
        OpenAIChatModel("gpt-4o", env={})
    assert info.value.code == "auth"
    with pytest.raises(MissingApiKeyError):
        OpenAIChatModel("gpt-4o", env={"OPENAI_API_KEY": ""})
    m = OpenAIChatModel(
        "deepseek-chat",
        env={"OPENAI_API_KEY": "k1", "OPENAI_BASE_URL": "https://api.deepseek.com"},
    )
    assert (m.api_key, m.base_url, m.name) == (
        "k1",
        "https://api.deepseek.com",
        "openai:deepseek-chat",
    )
    assert m.max_tokens_field == "max_tokens"
    with pytest.raises(ValueError, match="base URL"):
        OpenAIChatModel("m", provider="openai-compatible", env={})
    with pytest.raises(ValueError, match="http"):
        OpenAIChatModel("m", api_key="k", base_url="ftp://x")
    with pytest.raises(ValueError, match="extra_body"):
        OpenAIChatModel("m", api_key="k", extra_body={"messages": []})
    asyncio.run(m.aclose())


def test_stream_yields_deltas_then_done() -> None:
    tool = {
        "index": 0,
        "id": "c1",
        "type": "function",
        "function": {"name": "f", "arguments": '{"a":'},
    }
    server = Server(
        sse(
            {"choices": [{"index": 0, "delta": {"role": "assistant"}}]},
            text_chunk("Hel"),
            text_chunk("lo"),
            {"choices": [{"index": 0, "delta": {"tool_calls": [tool]}}]},
            {
                "choices": [
                    {
                        "index": 0,
                        "delta": {"tool_calls": [{"index": 0, "function": {"arguments": " 1}"}}]},
                    }
                ]
            },
            {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
            {"choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}},
        )
    )
    events = asyncio.run(drain(model(server)))
    assert events[:2] == [TextDelta(text="Hel"), TextDelta(text="lo")]
    assert isinstance(events[2], ToolCallDelta) and events[2].name == "f"
    final = events[-1]
    assert isinstance(final, StreamEnd)
    assert final.message.text() == "Hello"
    assert final.message.tool_calls()[0].arguments == {"a": 1}
    assert final.message.usage() is not None and final.message.usage().total_tokens == 7  # type: ignore[union-attr]


def test_stream_broken_after_text_is_interrupted_and_not_retried() -> None:
    server = Server(sse(text_chunk("partial "), text_chunk("answer"), done=False), ok())
    seen: list[Any] = []

    async def go() -> None:
        async for event in model(server).stream(HISTORY):
            seen.append(event)

    with pytest.raises(ModelError) as info:
        asyncio.run(go())
    assert info.value.code == "stream_interrupted"
    assert info.value.partial is not None and info.value.partial.text() == "partial answer"
    assert seen == [TextDelta(text="partial "), TextDelta(text="answer")]
    assert len(server.requests) == 1


def test_transport_failure_mid_stream_after_text() -> None:
    server = Server(sse(text_chunk("abc"), done=False, fail=httpx.ReadError("reset by peer")))
    with pytest.raises(ModelError) as info:
        asyncio.run(drain(model(server)))
    assert info.value.code == "stream_interrupted"
    assert "reset by peer" in str(info.value)


def test_stream_broken_before_any_text_is_retried() -> None:
    role_only = {"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]}
    server = Server(
        sse(role_only, done=False, fail=httpx.RemoteProtocolError("peer closed")),
        sse(role_only, done=False),
        sse(text_chunk("fine", "stop")),
    )
    events = asyncio.run(drain(model(server)))
    assert [e.type for e in events] == ["text", "done"]
    assert len(server.requests) == 3


def test_in_stream_error_before_text_is_retried_after_text_is_final() -> None:
    overloaded = {"error": {"message": "overloaded", "type": "server_error"}}
    server = Server(sse(overloaded, done=False), sse(text_chunk("ok", "stop")))
    assert isinstance(asyncio.run(drain(model(server)))[-1], StreamEnd)
    assert len(server.requests) == 2

    server = Server(sse(text_chunk("so far"), overloaded, done=False), ok())
    with pytest.raises(ModelError) as info:
        asyncio.run(drain(model(server)))
    assert info.value.code == "server_error" and info.value.partial is not None
    assert len(server.requests) == 1


def test_rate_limit_honours_retry_after_ms() -> None:
    limited = httpx.Response(
        429,
        json={"error": {"message": "Rate limit reached", "type": "requests"}},
        headers={"retry-after-ms": "30"},
    )
    server = Server(limited, ok("after wait"))

    async def go() -> tuple[str, float]:
        loop = asyncio.get_running_loop()
        start = loop.time()
        ai = await model(server).complete(HISTORY)
        return ai.text(), loop.time() - start

    text, elapsed = asyncio.run(go())
    assert text == "after wait"
    assert elapsed >= 0.03
    assert len(server.requests) == 2


def test_quota_exhaustion_is_not_retried() -> None:
    quota = httpx.Response(
        429,
        json={
            "error": {
                "message": "You exceeded your current quota",
                "type": "insufficient_quota",
                "code": "insufficient_quota",
            }
        },
    )
    server = Server(quota, ok())
    with pytest.raises(ModelError) as info:
        asyncio.run(model(server).complete(HISTORY))
    assert info.value.code == "quota_exhausted" and info.value.status == 429
    assert len(server.requests) == 1


def test_context_overflow_is_not_retried() -> None:
    body = {
        "error": {
            "message": "maximum context length is 8192 tokens",
            "code": "context_length_exceeded",
            "type": "invalid_request_error",
        }
    }
    server = Server(httpx.Response(400, json=body), ok())
    with pytest.raises(ModelError) as info:
        asyncio.run(model(server).complete(HISTORY))
    assert info.value.code == "context_length_exceeded"
    assert len(server.requests) == 1


def test_server_errors_exhaust_attempts() -> None:
    server = Server(*[httpx.Response(500, json={"error": {"message": "boom"}})] * 3)
    with pytest.raises(ModelError) as info:
        asyncio.run(model(server).complete(HISTORY))
    assert (info.value.code, info.value.status) == ("server_error", 500)
    assert len(server.requests) == 3


def test_x_should_retry_false_stops_retries() -> None:
    server = Server(httpx.Response(500, json={}, headers={"x-should-retry": "false"}), ok())
    with pytest.raises(ModelError):
        asyncio.run(model(server).complete(HISTORY))
    assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("failure", "code"),
    [
        (httpx.ConnectError("refused"), "connection_error"),
        (httpx.ReadTimeout("slow"), "timeout"),
        (httpx.ConnectTimeout("slow"), "timeout"),
    ],
)
def test_transport_failures_are_classified_and_retried(failure: Exception, code: str) -> None:
    server = Server(failure, failure, failure)
    with pytest.raises(ModelError) as info:
        asyncio.run(model(server).complete(HISTORY))
    assert info.value.code == code
    assert len(server.requests) == 3
    server = Server(failure, sse(text_chunk("ok", "stop")))
    assert isinstance(asyncio.run(drain(model(server)))[-1], StreamEnd)


def test_non_json_body_is_malformed() -> None:
    server = Server(httpx.Response(200, text="<html>proxy</html>"))
    with pytest.raises(ModelError) as info:
        asyncio.run(model(server).complete(HISTORY))
    assert info.value.code == "malformed_response"


def test_json_error_answering_a_stream_request() -> None:
    body = {"error": {"message": "Rate limit", "type": "rate_limit_exceeded"}}
    server = Server(httpx.Response(200, json=body), httpx.Response(200, json={"odd": True}))
    with pytest.raises(ModelError) as info:
        asyncio.run(drain(model(server, retry=RetryPolicy.disabled())))
    assert info.value.code == "rate_limited"
    with pytest.raises(ModelError) as info:
        asyncio.run(drain(model(server, retry=RetryPolicy.disabled())))
    assert info.value.code == "malformed_response"


def test_http_error_on_stream_request() -> None:
    server = Server(
        httpx.Response(
            401, json={"error": {"message": "Incorrect API key", "code": "invalid_api_key"}}
        )
    )
    with pytest.raises(ModelError) as info:
        asyncio.run(drain(model(server)))
    assert info.value.code == "auth" and info.value.provider_message == "Incorrect API key"
    assert len(server.requests) == 1


def test_client_ownership() -> None:
    server = Server(ok())
    client = server.client()

    async def go() -> tuple[bool, bool]:
        async with OpenAIChatModel("m", api_key="k", client=client) as m:
            await m.complete(HISTORY)
        own = OpenAIChatModel("m", api_key="k")
        await own.aclose()
        return client.is_closed, own._client.is_closed

    assert asyncio.run(go()) == (False, True)
    asyncio.run(client.aclose())


def test_abandoning_a_stream_closes_the_response() -> None:
    closed: list[bool] = []

    class Tracked(Chunks):
        async def aclose(self) -> None:
            closed.append(True)

    server = Server(
        httpx.Response(
            200,
            headers={"content-type": "text/event-stream"},
            stream=Tracked([b'data: {"choices":[{"index":0,"delta":{"content":"a"}}]}\n\n'] * 5),
        )
    )

    async def go() -> None:
        stream = model(server).stream(HISTORY)
        async for _ in stream:
            break
        await stream.aclose()  # type: ignore[attr-defined]

    asyncio.run(go())
    assert closed == [True]
