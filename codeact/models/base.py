"""The model protocol: what every chat model client (real or test double) provides.

``await model.complete(messages, ...)`` returns the reply as an `Ai` message;
``async for event in model.stream(...)`` yields `TextDelta`, `ThinkingDelta` and
`ToolCallDelta` events as they arrive and always ends with `StreamEnd` carrying the
complete `Ai` (usage included). Failures raise `codeact.models.errors.ModelError`.
Both are the base class's; a client implements `Model._request` (see `Model`).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import AsyncGenerator, AsyncIterable, AsyncIterator, Mapping, Sequence
from contextlib import aclosing
from types import TracebackType
from typing import Annotated, Any, Literal, Self, final

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, field_validator

from codeact.messages import Ai, Message

__all__ = [
    "CallOptions",
    "Model",
    "StreamEnd",
    "StreamEvent",
    "TextDelta",
    "ThinkingDelta",
    "ToolCallDelta",
    "ToolLike",
    "ToolSpec",
    "final_message",
]

_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class ToolSpec(BaseModel):
    """A tool the model may call: a name, a description and a JSON Schema for arguments."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(default_factory=lambda: {"type": "object", "properties": {}})

    @field_validator("name")
    @classmethod
    def _check_name(cls, value: str) -> str:
        # Both OpenAI and Anthropic reject other names; fail before the request.
        if not _TOOL_NAME.match(value):
            raise ValueError("tool names must be 1-64 characters of A-Z, a-z, 0-9, '_' or '-'")
        return value


ToolLike = ToolSpec | Mapping[str, Any]
"""A `ToolSpec` or a mapping with its fields."""


class CallOptions(BaseModel):
    """Per-call generation options, validated once for every client."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    stop: list[str] | None = None
    max_tokens: PositiveInt | None = None
    temperature: float | None = Field(default=None, ge=0, le=2)
    tools: list[ToolSpec] | None = None

    @field_validator("stop", mode="before")
    @classmethod
    def _one_stop(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value

    @field_validator("stop")
    @classmethod
    def _non_empty_stops(cls, value: list[str] | None) -> list[str] | None:
        if value is not None and not all(value):
            raise ValueError("stop sequences must be non-empty strings")
        return value

    @classmethod
    def build(
        cls,
        stop: str | Sequence[str] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        tools: Sequence[ToolLike] | None = None,
    ) -> CallOptions:
        """Validate the keyword arguments of `Model.complete` / `Model.stream`."""
        specs = None
        if tools is not None:
            specs = [t if isinstance(t, ToolSpec) else ToolSpec.model_validate(t) for t in tools]
        return cls.model_validate(
            {"stop": stop, "max_tokens": max_tokens, "temperature": temperature, "tools": specs}
        )


class TextDelta(BaseModel):
    """A piece of reply text."""

    model_config = ConfigDict(frozen=True)
    type: Literal["text"] = "text"
    text: str


class ThinkingDelta(BaseModel):
    """A piece of reasoning text."""

    model_config = ConfigDict(frozen=True)
    type: Literal["thinking"] = "thinking"
    text: str


class ToolCallDelta(BaseModel):
    """A fragment of tool call `index`: its id and name (first fragment) or argument text."""

    model_config = ConfigDict(frozen=True)
    type: Literal["tool_call"] = "tool_call"
    index: int
    id: str | None = None
    name: str | None = None
    arguments: str = ""


class StreamEnd(BaseModel):
    """The last event of every stream: the complete reply."""

    model_config = ConfigDict(frozen=True)
    type: Literal["done"] = "done"
    message: Ai


StreamEvent = Annotated[
    TextDelta | ThinkingDelta | ToolCallDelta | StreamEnd, Field(discriminator="type")
]


def _pieces(text: str, count: int = 3) -> list[str]:
    """``text`` in about ``count`` pieces, as a replayed stream delivers it."""
    if not text:
        return []
    size = max(1, -(-len(text) // count))
    return [text[i : i + size] for i in range(0, len(text), size)]


async def final_message(events: AsyncIterable[StreamEvent]) -> Ai:
    """Drain a stream and return its final `Ai`."""
    final: Ai | None = None
    async for event in events:
        if isinstance(event, StreamEnd):
            final = event.message
    if final is None:
        raise RuntimeError("model stream ended without a StreamEnd event")
    return final


class Model(ABC):
    """A chat model. Use as ``async with model: ...`` to release its connections.

    `complete` and `stream` validate their options once, here, for every client. A
    subclass implements `_request` (one whole reply) and, if it can stream natively,
    `_stream_request`; either is enough: without `_stream_request` a stream replays the
    whole reply as deltas, without `_request` a call drains the stream.
    """

    #: Whether the model reads images. An agent shows the images a script displayed
    #: to a model that does as image parts of the next message; one that does not (a
    #: text-only model: set ``vision = False``) gets a note saying what it cannot see.
    vision: bool = True

    def __new__(cls, *args: Any, **kwargs: Any) -> Self:
        if cls._request is Model._request and cls._stream_request is Model._stream_request:
            raise TypeError(
                f"{cls.__name__} must implement _request(messages, options) -> Ai, or "
                "_stream_request(messages, options) for a model that streams"
            )
        return super().__new__(cls)

    @property
    @abstractmethod
    def name(self) -> str:
        """The model's spec string, e.g. ``"openai:gpt-4o-mini"``."""

    @final
    async def complete(
        self,
        messages: Sequence[Message],
        *,
        stop: str | Sequence[str] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        tools: Sequence[ToolLike] | None = None,
    ) -> Ai:
        """Generate one reply to `messages`."""
        options = CallOptions.build(stop, max_tokens, temperature, tools)
        return await self._request(list(messages), options)

    @final
    async def stream(
        self,
        messages: Sequence[Message],
        *,
        stop: str | Sequence[str] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        tools: Sequence[ToolLike] | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """Generate one reply incrementally; the last event is `StreamEnd`."""
        options = CallOptions.build(stop, max_tokens, temperature, tools)
        async with aclosing(self._stream_request(list(messages), options)) as events:
            async for event in events:
                yield event

    async def _request(self, messages: list[Message], options: CallOptions) -> Ai:
        """One whole reply (by default: the end of `_stream_request`)."""
        async with aclosing(self._stream_request(messages, options)) as events:
            return await final_message(events)

    async def _stream_request(
        self, messages: list[Message], options: CallOptions
    ) -> AsyncGenerator[StreamEvent, None]:
        """One reply as events ending in `StreamEnd` (by default: `_request`'s reply in pieces)."""
        reply = await self._request(messages, options)
        for piece in _pieces(reply.thinking() or ""):
            yield ThinkingDelta(text=piece)
        for piece in _pieces(reply.text()):
            yield TextDelta(text=piece)
        for index, call in enumerate(reply.tool_calls()):
            yield ToolCallDelta(
                index=index, id=call.id, name=call.name, arguments=call.arguments_json()
            )
        yield StreamEnd(message=reply)

    async def aclose(self) -> None:  # noqa: B027 - optional hook, nothing to release by default
        """Release network resources (no-op for models without any)."""

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"
