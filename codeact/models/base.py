"""The model protocol: what every chat model client (real or test double) provides.

``await model.complete(messages, ...)`` returns the reply as an `Ai` message;
``async for event in model.stream(...)`` yields `TextDelta`, `ThinkingDelta` and
`ToolCallDelta` events as they arrive and always ends with `Done` carrying the complete
`Ai` (usage included). Failures raise `codeact.models.errors.ModelError`.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import AsyncIterable, AsyncIterator, Mapping, Sequence
from types import TracebackType
from typing import Annotated, Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, PositiveInt, field_validator

from codeact.messages import Ai, Message

__all__ = [
    "CallOptions",
    "Done",
    "Model",
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


class Done(BaseModel):
    """The last event of every stream: the complete reply."""

    model_config = ConfigDict(frozen=True)
    type: Literal["done"] = "done"
    message: Ai


StreamEvent = Annotated[
    TextDelta | ThinkingDelta | ToolCallDelta | Done, Field(discriminator="type")
]


async def final_message(events: AsyncIterable[StreamEvent]) -> Ai:
    """Drain a stream and return its final `Ai`."""
    final: Ai | None = None
    async for event in events:
        if isinstance(event, Done):
            final = event.message
    if final is None:
        raise RuntimeError("model stream ended without a Done event")
    return final


class Model(ABC):
    """A chat model. Use as ``async with model: ...`` to release its connections."""

    @property
    @abstractmethod
    def name(self) -> str:
        """The model's spec string, e.g. ``"openai:gpt-4o-mini"``."""

    @abstractmethod
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

    @abstractmethod
    def stream(
        self,
        messages: Sequence[Message],
        *,
        stop: str | Sequence[str] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        tools: Sequence[ToolLike] | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """Generate one reply incrementally; the last event is `Done`."""

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
