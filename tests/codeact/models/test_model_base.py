"""The Model base class: complete() and stream() for every client, from one request hook."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from pydantic import ValidationError

from codeact.messages import Ai, Message
from codeact.models import (
    CallOptions,
    Model,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
)


class OneShot(Model):
    """Implements only `_request`: streams are the whole reply, replayed."""

    def __init__(self) -> None:
        self.seen: list[tuple[list[Message], CallOptions]] = []

    @property
    def name(self) -> str:
        return "one-shot"

    async def _request(self, messages: list[Message], options: CallOptions) -> Ai:
        self.seen.append((messages, options))
        return Ai(content="Hello there, world", thinking="hmm, a greeting")


class StreamOnly(Model):
    """Implements only `_stream_request`: a call drains the stream."""

    @property
    def name(self) -> str:
        return "stream-only"

    async def _stream_request(
        self, messages: list[Message], options: CallOptions
    ) -> AsyncGenerator[StreamEvent, None]:
        yield TextDelta(text="par")
        yield TextDelta(text="tial")
        yield StreamEnd(message=Ai(content=f"partial, max_tokens={options.max_tokens}"))


async def drain(model: Model, **kw: Any) -> list[StreamEvent]:
    return [event async for event in model.stream([Message.human("hi")], **kw)]


def test_a_model_that_implements_neither_request_is_refused_with_the_hooks_named() -> None:
    class Neither(Model):
        @property
        def name(self) -> str:
            return "neither"

    with pytest.raises(TypeError, match=r"Neither must implement _request\(messages, options\)"):
        Neither()


def test_a_model_that_only_requests_streams_its_reply_in_pieces() -> None:
    model = OneShot()
    events = asyncio.run(drain(model, stop="END", max_tokens=5))
    assert isinstance(events[-1], StreamEnd) and events[-1].message.text() == "Hello there, world"
    text = [e for e in events if isinstance(e, TextDelta)]
    assert len(text) > 1 and "".join(e.text for e in text) == "Hello there, world"
    thinking = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    assert thinking == "hmm, a greeting"
    (messages, options), = model.seen
    assert [m.text() for m in messages] == ["hi"]
    assert options == CallOptions(stop=["END"], max_tokens=5)


def test_a_model_that_only_streams_completes_with_the_streams_final_reply() -> None:
    reply = asyncio.run(StreamOnly().complete([Message.human("hi")], max_tokens=7))
    assert reply.text() == "partial, max_tokens=7"


def test_options_are_checked_once_for_every_model_before_its_request() -> None:
    model = OneShot()
    with pytest.raises(ValidationError):
        asyncio.run(model.complete([Message.human("hi")], temperature=3))
    with pytest.raises(ValidationError):
        asyncio.run(drain(model, max_tokens=0))
    assert model.seen == []


def test_a_stream_closed_early_closes_the_models_stream() -> None:
    closed: list[bool] = []

    class Endless(Model):
        @property
        def name(self) -> str:
            return "endless"

        async def _stream_request(
            self, messages: list[Message], options: CallOptions
        ) -> AsyncGenerator[StreamEvent, None]:
            try:
                while True:
                    yield TextDelta(text="x")
                    await asyncio.sleep(0)
            finally:
                closed.append(True)

    async def main() -> None:
        stream = Endless().stream([Message.human("hi")])
        assert isinstance(await anext(stream), TextDelta)
        await stream.aclose()

    asyncio.run(main())
    assert closed == [True]
