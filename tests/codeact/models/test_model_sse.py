"""SSE parsing, including events split across arbitrary network chunk boundaries."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from itertools import pairwise

import httpx
from hypothesis import given, settings
from hypothesis import strategies as st

from codeact.models.sse import SseEvent, aiter_sse


async def _lines(text: str) -> AsyncIterator[str]:
    for line in text.splitlines():
        yield line


def parse(text: str) -> list[SseEvent]:
    async def go() -> list[SseEvent]:
        return [e async for e in aiter_sse(_lines(text))]

    return asyncio.run(go())


class _Chunks(httpx.AsyncByteStream):
    def __init__(self, chunks: list[bytes]) -> None:
        self.chunks = chunks

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self.chunks:
            yield chunk


def parse_over_http(chunks: list[bytes]) -> list[SseEvent]:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=_Chunks(chunks))

    async def go() -> list[SseEvent]:
        async with (
            httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client,
            client.stream("GET", "http://sse.test/") as response,
        ):
            return [e async for e in aiter_sse(response.aiter_lines())]

    return asyncio.run(go())


def test_basic_events() -> None:
    text = (
        ": keep-alive comment\n"
        "event: message_start\n"
        'data: {"a": 1}\n'
        "\n"
        "data: first line\n"
        "data: second line\n"
        "id: 7\n"
        "retry: 100\n"
        "\n"
        "data:no-space\n"
        "\n"
    )
    events = parse(text)
    assert events == [
        SseEvent(event="message_start", data='{"a": 1}'),
        SseEvent(data="first line\nsecond line", id="7", retry=100),
        SseEvent(data="no-space", id="7"),
    ]


def test_blank_lines_without_data_dispatch_nothing() -> None:
    assert parse("\n\nevent: ping\n\n: comment\n\n") == []


def test_crlf_line_endings() -> None:
    assert parse_over_http([b"data: a\r\n\r\ndata: b\r\n\r\n"]) == [
        SseEvent(data="a"),
        SseEvent(data="b"),
    ]


def test_event_cut_off_at_end_of_stream_is_dropped() -> None:
    assert parse('data: complete\n\ndata: {"partial": tr') == [SseEvent(data="complete")]
    assert parse_over_http([b"data: complete\n\n", b'data: {"partial"']) == [
        SseEvent(data="complete")
    ]


STREAM = (
    b'event: a\ndata: {"text": "h\xc3\xa9llo"}\n\n'
    b": ping\n\n"
    b'data: {"x": [1, 2, 3]}\ndata: more\n\n'
    b"data: [DONE]\n\n"
)


@settings(max_examples=60, deadline=None)
@given(st.sets(st.integers(1, len(STREAM) - 1), max_size=12))
def test_any_chunking_gives_the_same_events(cuts: set[int]) -> None:
    points = [0, *sorted(cuts), len(STREAM)]
    chunks = [STREAM[a:b] for a, b in pairwise(points)]
    assert parse_over_http(chunks) == [
        SseEvent(event="a", data='{"text": "héllo"}'),
        SseEvent(data='{"x": [1, 2, 3]}\nmore'),
        SseEvent(data="[DONE]"),
    ]
