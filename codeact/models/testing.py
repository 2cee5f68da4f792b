"""Test doubles: models that answer from a script or a function, never the network.

`ScriptedModel` replies with given responses in order; `FunctionModel` asks a function
for each reply. Both record every call's messages and options (``.calls``,
``.call_infos``) so tests can assert on prompts, and both mimic real servers in two
respects: a reply is cut at the first stop sequence of the call (pass
``apply_stop=False`` to get replies verbatim), and ``stream()`` delivers it in pieces —
about three by default, ``chunk_chars`` characters each when given, ``chunk_delay_s``
apart (a model typing for a UI or a streaming test to watch).

Scripts can live in JSON files (``ScriptedModel.from_file`` / ``scripted:PATH``)::

    ["Hello!", {"content": "Sure.", "thinking": "User wants…", "usage": {"input_tokens": 12}}]
"""

from __future__ import annotations

import asyncio
import inspect
import json
from abc import abstractmethod
from collections.abc import AsyncGenerator, Awaitable, Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from codeact.messages import Ai, Message, ThinkingBlock, ToolCall, new_message_id, resolve_history
from codeact.models.base import (
    CallOptions,
    Model,
    StreamEnd,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolSpec,
)
from codeact.models.errors import ModelError, ModelErrorCode
from codeact.usage import LlmUsage

__all__ = [
    "CallInfo",
    "FunctionModel",
    "ScriptExhaustedError",
    "ScriptFileError",
    "ScriptedModel",
    "ScriptedReply",
]


class CallInfo(BaseModel):
    """What a test double was asked: the call's options and its 0-based position."""

    model_config = ConfigDict(frozen=True)

    call_index: int
    stop: list[str] | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    tools: list[ToolSpec] | None = None


class ScriptedReply(BaseModel):
    """One reply of a script file: content plus optional thinking, usage and tool calls."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    content: str
    thinking: str | None = None
    usage: LlmUsage | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)

    def to_ai(self) -> Ai:
        """The reply as an `Ai` message."""
        return Ai(
            content=self.content,
            thinking=self.thinking,
            thinking_blocks=[ThinkingBlock(text=self.thinking)] if self.thinking else [],
            usage=self.usage,
            tool_calls=list(self.tool_calls),
            id=new_message_id(),
        )


class ScriptExhaustedError(ModelError):
    """A `ScriptedModel` was called more often than it has replies."""

    def __init__(self, name: str, scripted: int) -> None:
        plural = "reply was" if scripted == 1 else "replies were"
        super().__init__(
            ModelErrorCode.BAD_REQUEST,
            f"{name}: script exhausted — {scripted} {plural} scripted and all have been used; "
            f"call {scripted + 1} has no reply",
            should_retry=False,
        )
        self.scripted = scripted


class ScriptFileError(ValueError):
    """A script file that cannot be loaded; the message names the item and field."""


def _apply_stop(reply: Ai, stop: Sequence[str] | None) -> Ai:
    """Cut the reply at the earliest stop sequence, as a server would."""
    if not stop or not isinstance(reply.content, str):
        return reply
    cuts = [i for i in (reply.content.find(s) for s in stop) if i >= 0]
    if not cuts:
        return reply
    return reply.model_copy(update={"content": reply.content[: min(cuts)], "finish_reason": "stop"})


def _with_defaults(reply: Ai) -> Ai:
    if reply.finish_reason is not None:
        return reply
    reason = "tool_call" if reply.has_tool_calls() else "stop"
    return reply.model_copy(update={"finish_reason": reason, "raw_finish_reason": reason})


def _chunks(text: str, size: int | None) -> list[str]:
    if not text:
        return []
    if size is None:
        size = max(1, -(-len(text) // 3))  # about three pieces, as `Model` replays them
    return [text[i : i + size] for i in range(0, len(text), size)]


class _RecordingModel(Model):
    """Shared behaviour of the test doubles: recording every call, cutting at stops,
    streaming a reply in pieces (thinking first, then text, then tool calls)."""

    def __init__(
        self,
        name: str,
        apply_stop: bool,
        chunk_chars: int | None = None,
        chunk_delay_s: float = 0.0,
        vision: bool = True,
    ) -> None:
        if chunk_chars is not None and chunk_chars < 1:
            raise ValueError("chunk_chars must be at least 1")
        if chunk_delay_s < 0:
            raise ValueError("chunk_delay_s must not be negative")
        self._name = name
        self.apply_stop = apply_stop
        self.chunk_chars = chunk_chars
        self.chunk_delay_s = chunk_delay_s
        self.vision = vision
        self.calls: list[list[Message]] = []
        self.call_infos: list[CallInfo] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def last_messages(self) -> list[Message]:
        """The messages of the most recent call."""
        if not self.calls:
            raise AssertionError(f"{self._name} has not been called")
        return self.calls[-1]

    @abstractmethod
    async def _reply(self, messages: list[Message], info: CallInfo) -> Ai:
        """The next reply."""

    async def _request(self, messages: list[Message], options: CallOptions) -> Ai:
        info = CallInfo(call_index=len(self.calls), **options.model_dump())
        resolve_history(messages)  # reject dangling Remove markers, as real clients do
        self.calls.append(messages)
        self.call_infos.append(info)
        reply = _with_defaults(await self._reply(list(messages), info))
        return _apply_stop(reply, options.stop) if self.apply_stop else reply

    async def _stream_request(
        self, messages: list[Message], options: CallOptions
    ) -> AsyncGenerator[StreamEvent, None]:
        reply = await self._request(messages, options)
        pieces: list[StreamEvent] = [
            *(ThinkingDelta(text=p) for p in _chunks(reply.thinking() or "", self.chunk_chars)),
            *(TextDelta(text=p) for p in _chunks(reply.text(), self.chunk_chars)),
        ]
        for piece in pieces:
            if self.chunk_delay_s:
                await asyncio.sleep(self.chunk_delay_s)
            yield piece
        for index, call in enumerate(reply.tool_calls()):
            yield ToolCallDelta(
                index=index, id=call.id, name=call.name, arguments=call.arguments_json()
            )
        yield StreamEnd(message=reply)


class ScriptedModel(_RecordingModel):
    """Replies with `responses` in order: strings, `Ai` messages or `ScriptedReply`s."""

    def __init__(
        self,
        responses: Iterable[str | Ai | ScriptedReply],
        *,
        name: str = "scripted",
        apply_stop: bool = True,
        chunk_chars: int | None = None,
        chunk_delay_s: float = 0.0,
        vision: bool = True,
    ) -> None:
        super().__init__(name, apply_stop, chunk_chars, chunk_delay_s, vision)
        self.replies: list[Ai] = []
        for index, item in enumerate(responses):
            if isinstance(item, str):
                self.replies.append(Ai(content=item, id=new_message_id()))
            elif isinstance(item, ScriptedReply):
                self.replies.append(item.to_ai())
            elif isinstance(item, Ai):
                self.replies.append(item)
            else:
                raise TypeError(
                    f"ScriptedModel response {index} must be a str, Ai or ScriptedReply, "
                    f"not {type(item).__name__}"
                )
        self._next = 0

    @property
    def remaining(self) -> int:
        """How many scripted replies are left."""
        return len(self.replies) - self._next

    async def _reply(self, messages: list[Message], info: CallInfo) -> Ai:
        if self._next >= len(self.replies):
            raise ScriptExhaustedError(self.name, len(self.replies))
        reply = self.replies[self._next]
        self._next += 1
        return reply

    @classmethod
    def from_file(cls, path: str | Path, *, apply_stop: bool = True) -> ScriptedModel:
        """Load a script: a JSON list of strings or ``{"content", "thinking"?, "usage"?}``."""
        path = Path(path)
        where = f"script file {str(path)!r}"
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ScriptFileError(f"{where}: cannot be read: {exc.strerror or exc}") from exc
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ScriptFileError(f"{where}: not valid JSON: {exc}") from exc
        if not isinstance(raw, list):
            raise ScriptFileError(f"{where}: must contain a JSON list, got {type(raw).__name__}")
        items: list[str | ScriptedReply] = []
        for index, item in enumerate(raw):
            if isinstance(item, str):
                items.append(item)
            elif isinstance(item, dict):
                try:
                    items.append(ScriptedReply.model_validate(item))
                except ValidationError as exc:
                    first = exc.errors()[0]
                    field = ".".join(str(p) for p in first["loc"]) or "(item)"
                    raise ScriptFileError(
                        f"{where}: item {index}: field {field!r}: {first['msg']}"
                    ) from exc
            else:
                raise ScriptFileError(
                    f"{where}: item {index}: expected a string or an object with 'content', "
                    f"got {type(item).__name__}"
                )
        return cls(items, name=f"scripted:{path}", apply_stop=apply_stop)


ReplyFunction = Callable[[list[Message], CallInfo], str | Ai | Awaitable[str | Ai]]


class FunctionModel(_RecordingModel):
    """Asks ``fn(messages, info)`` (sync or async) for each reply (a str or an `Ai`).

    Exceptions from `fn` propagate unchanged; raise a `ModelError` to simulate a
    provider failure.
    """

    def __init__(
        self,
        fn: ReplyFunction,
        *,
        name: str = "function",
        apply_stop: bool = True,
        chunk_chars: int | None = None,
        chunk_delay_s: float = 0.0,
        vision: bool = True,
    ):
        super().__init__(name, apply_stop, chunk_chars, chunk_delay_s, vision)
        self.fn = fn

    async def _reply(self, messages: list[Message], info: CallInfo) -> Ai:
        result: Any = self.fn(messages, info)
        if inspect.isawaitable(result):
            result = await result
        if isinstance(result, str):
            return Ai(content=result, id=new_message_id())
        if isinstance(result, Ai):
            return result
        raise TypeError(
            f"{self.name}: the reply function must return str or Ai, not {type(result).__name__}"
        )
