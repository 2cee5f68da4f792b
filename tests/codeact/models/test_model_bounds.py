"""Model servers that misbehave: oversized answers fail fast, endless ones hit the deadline.

Real loopback servers send the bytes; the server side counts what it managed to write,
which shows the client stopped reading instead of taking the whole answer in.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from typing import Any

import pytest

from codeact.messages import Message
from codeact.models import AnthropicModel, ModelError, OpenAIChatModel, ResponseLimits, RetryPolicy

pytestmark = pytest.mark.timeout(60)

HISTORY = [Message.human("Say hello.")]
MB = 1024 * 1024
HUGE = 300 * MB
NO_RETRY = RetryPolicy(max_attempts=1)


class Written:
    """What a server action managed to send before the client went away."""

    def __init__(self) -> None:
        self.bytes = 0
        self.done = threading.Event()


def openai(loopback: Any, **kw: Any) -> OpenAIChatModel:
    return OpenAIChatModel(
        "m",
        provider="openai-compatible",
        base_url=f"{loopback.url}/v1",
        env={},
        retry=NO_RETRY,
        **kw,
    )


def anthropic(loopback: Any, **kw: Any) -> AnthropicModel:
    return AnthropicModel("c", api_key="k", base_url=loopback.url, retry=NO_RETRY, **kw)


def endless_body(
    written: Written,
    *,
    declared: int | None,
    chunk: bytes,
    gap: float = 0.0,
    event_stream: bool = False,
    limit: int = HUGE,
) -> Any:
    """Answer 200 and write ``chunk`` after ``chunk`` (up to ``limit`` bytes or 60 s)."""

    def act(h: Any) -> None:
        started = time.monotonic()
        try:
            ctype = "text/event-stream" if event_stream else "application/json"
            if declared is None:
                h.start_chunked(200, {"content-type": ctype})
            else:
                h.send_response(200)
                h.send_header("content-type", ctype)
                h.send_header("content-length", str(declared))
                h.end_headers()
            while written.bytes < limit and time.monotonic() - started < 60:
                if declared is None:
                    h.write_chunk(chunk)
                else:
                    h.wfile.write(chunk)
                    h.wfile.flush()
                written.bytes += len(chunk)
                time.sleep(gap)
        except OSError:
            pass  # the client hung up: what this test wants
        finally:
            h.close_connection = True
            written.done.set()

    return act


def fails(model: Any, *, stream: bool) -> ModelError:
    async def call() -> None:
        async with model:
            if stream:
                async for _ in model.stream(HISTORY):
                    pass
            else:
                await model.complete(HISTORY)

    with pytest.raises(ModelError) as info:
        asyncio.run(call())
    return info.value


@pytest.mark.parametrize("declared", [HUGE, None], ids=["content-length", "chunked"])
@pytest.mark.parametrize("client", [openai, anthropic])
def test_a_300_mb_answer_fails_without_being_read_whole(
    loopback: Any, declared: int | None, client: Any
) -> None:
    written = Written()
    loopback.push(endless_body(written, declared=declared, chunk=b" " * MB))
    error = fails(client(loopback), stream=False)
    assert error.code == "malformed_response"
    assert "max_response_bytes" in str(error)
    written.done.wait(30)
    # The default cap is 16 MiB; socket buffers let the server get a little further.
    assert written.bytes < 64 * MB


@pytest.mark.parametrize("client", [openai, anthropic])
def test_a_stream_with_an_endless_line_fails_at_the_byte_cap(loopback: Any, client: Any) -> None:
    written = Written()
    loopback.push(endless_body(written, declared=None, chunk=b"x" * MB, event_stream=True))
    error = fails(client(loopback), stream=True)
    assert error.code == "malformed_response" and "max_response_bytes" in str(error)
    written.done.wait(30)
    assert written.bytes < 64 * MB


def oa_text(text: str) -> str:
    chunk = {"id": "c", "choices": [{"index": 0, "delta": {"content": text}}]}
    return f"data: {json.dumps(chunk)}\n\n"


def test_streamed_characters_are_capped(loopback: Any, sse_action: Any) -> None:
    loopback.push(sse_action([oa_text("a" * 400)] * 5 + ["data: [DONE]\n\n"]))
    model = openai(loopback, limits=ResponseLimits(max_stream_chars=1000))
    error = fails(model, stream=True)
    assert error.code == "malformed_response" and "max_stream_chars" in str(error)
    assert error.partial is not None  # what arrived before the cap is kept


def test_the_limits_are_validated() -> None:
    with pytest.raises(ValueError):
        ResponseLimits(max_response_bytes=0)
    with pytest.raises(ValueError):
        ResponseLimits(deadline_s=-1)
    assert ResponseLimits().max_response_bytes == 16 * MB
    assert ResponseLimits().max_stream_chars == 1_000_000


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "complete"])
@pytest.mark.parametrize("client", [openai, anthropic])
def test_a_server_trickling_forever_ends_at_the_deadline(
    loopback: Any, stream: bool, client: Any
) -> None:
    written = Written()
    if stream:
        # A keep-alive comment every half second: every read succeeds, nothing arrives.
        action = endless_body(
            written, declared=None, chunk=b": keep-alive\n\n", gap=0.5, event_stream=True
        )
    else:
        action = endless_body(written, declared=1000, chunk=b" ", gap=0.5, limit=1000)
    loopback.push(action)
    model = client(loopback, limits=ResponseLimits(deadline_s=2))
    started = time.monotonic()
    error = fails(model, stream=stream)
    assert error.code == "timeout" and "deadline_s" in str(error)
    assert time.monotonic() - started < 30  # it ended; the server would go on for 60 s
    written.done.wait(30)


def test_the_deadline_covers_retries(loopback: Any, json_action: Any) -> None:
    error_body = {"error": {"message": "busy", "type": "server_error"}}
    loopback.push(*[json_action(503, error_body, {"retry-after": "1"}) for _ in range(20)])
    model = OpenAIChatModel(
        "m",
        provider="openai-compatible",
        base_url=f"{loopback.url}/v1",
        env={},
        retry=RetryPolicy(max_attempts=20, initial_delay=1, max_delay=1, max_total_wait=100),
        limits=ResponseLimits(deadline_s=2.5),
    )
    error = fails(model, stream=False)
    assert error.code == "timeout" and "deadline_s" in str(error)
    assert len(loopback.requests) < 20


@pytest.mark.parametrize(
    "chunks",
    [
        [b"data: a\r", b"\ndata: b\r\n\r", b"\n"],
        [b"data: a\n", b"data: b\n\n"],
        [b"da", b"ta: a\rdata: b\r\r"],
        [b"data: a\r\ndata: b\r\n\r\n"],
    ],
)
def test_body_lines_split_anywhere(chunks: list[bytes]) -> None:
    import httpx

    from codeact.models.bounded import body_lines

    async def content() -> Any:
        for chunk in chunks:
            yield chunk

    async def lines() -> list[str]:
        response = httpx.Response(200, content=content())
        never = lambda what: ModelError("malformed_response", what)  # noqa: E731
        return [line async for line in body_lines(response, 1000, never)]

    assert asyncio.run(lines()) == ["data: a", "data: b", ""]


def test_an_agent_run_against_a_300_mb_answer_fails_clearly(loopback: Any) -> None:
    import psutil

    from codeact import Agent, AgentRunFailed

    written = Written()
    loopback.push(endless_body(written, declared=None, chunk=b" " * MB))
    rss_before = psutil.Process().memory_info().rss
    with pytest.raises(AgentRunFailed) as info:
        Agent("a", openai(loopback)).run_sync("t")
    assert info.value.code == "malformed_response"
    assert "max_response_bytes" in str(info.value)
    # Only the capped part was ever held (the issue saw 1.9 GB).
    assert psutil.Process().memory_info().rss - rss_before < 200 * MB
    written.done.wait(30)
