"""The conversation model: messages exchanged with a language model.

`Message` is a discriminated union tagged on ``role``: `Human`, `Ai`, `System`, `ToolResult`
and `Remove` (a marker that drops an earlier message, by id, from the history sent to
the model). ``Message`` itself validates into the right subclass, so
``Message.model_validate(data)`` and fields typed ``list[Message]`` just work, and a
history round-trips losslessly through JSON::

    history = [Message.system("Be brief."), Message.human("Hi")]
    text = messages_to_json(history)
    assert messages_from_json(text) == history

Field names that collide with the accessors (``id``, ``tool_calls``, ``usage``,
``thinking``) are stored as ``id_`` etc. and aliased, so construct with
``Human(content="hi", id="m1")`` and read with ``msg.id()``.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from typing import Annotated, Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    TypeAdapter,
    model_validator,
)
from pydantic.errors import PydanticUndefinedAnnotation
from pydantic_core import CoreSchema

from codeact.message_parts import (
    Content,
    ContentPart,
    ImageDataPart,
    ImageUrlPart,
    TextPart,
    ThinkingBlock,
    ToolCall,
    content_text,
)
from codeact.usage import LlmUsage

__all__ = [
    "Ai",
    "AnyMessage",
    "Content",
    "ContentPart",
    "FinishReason",
    "Human",
    "ImageDataPart",
    "ImageUrlPart",
    "Message",
    "Remove",
    "System",
    "TextPart",
    "ThinkingBlock",
    "ToolCall",
    "ToolResult",
    "ToolStatus",
    "content_text",
    "messages_from_json",
    "messages_to_json",
    "new_message_id",
    "resolve_history",
]

FinishReason = Literal["stop", "length", "tool_call", "content_filter", "error"]
"""Why a model stopped, normalised across providers (the raw value is kept alongside)."""

ToolStatus = Literal["success", "error"]


def new_message_id() -> str:
    """A fresh message id (uuid4 hex)."""
    return uuid.uuid4().hex


class Message(BaseModel):
    """Base of all messages; validating against ``Message`` picks the subclass by ``role``."""

    model_config = ConfigDict(frozen=True, extra="forbid", serialize_by_alias=True)

    # Marks the class whose schema is the union of all roles (subclasses inherit the
    # hook below but must keep their own model schema).
    __union_base__: ClassVar[bool] = True

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        if cls.__dict__.get("__union_base__"):
            target = globals().get("AnyMessage")
            if target is None:
                # Subclasses are not defined yet; pydantic retries on model_rebuild().
                raise PydanticUndefinedAnnotation("AnyMessage", "message union not defined yet")
            return handler.generate_schema(target)
        return handler(source)

    def __init__(self, /, **data: Any) -> None:
        if type(self) is Message:
            raise TypeError(
                "Message is the union of Human, Ai, System, ToolResult and Remove: build one with "
                "Message.human(...) etc., a subclass, or Message.model_validate(data)"
            )
        super().__init__(**data)

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        fields = type(self).model_fields
        for name, value in super().__repr_args__():
            field = fields.get(name) if name else None
            yield (field.alias or name) if field else name, value

    # --- accessors -------------------------------------------------------------------

    def id(self) -> str:
        """The message id."""
        raise NotImplementedError

    def text(self) -> str:
        """The text content ("" for messages without text)."""
        return ""

    def has_tool_calls(self) -> bool:
        """True for an `Ai` message that requests tools."""
        return bool(self.tool_calls())

    def tool_calls(self) -> list[ToolCall]:
        """Tool calls requested by the model (empty unless `Ai`)."""
        return []

    def usage(self) -> LlmUsage | None:
        """Token usage of the call that produced this message (only on `Ai`)."""
        return None

    def thinking(self) -> str | None:
        """The model's reasoning text, if any (only on `Ai`)."""
        return None

    # --- constructors ----------------------------------------------------------------

    @staticmethod
    def human(content: Content, *, id: str | None = None) -> Human:
        """A user message."""
        return Human(content=content, id=id or new_message_id())

    @staticmethod
    def ai(content: Content = "", *, id: str | None = None) -> Ai:
        """A model reply."""
        return Ai(content=content, id=id or new_message_id())

    @staticmethod
    def ai_with_tool_calls(
        content: Content, tool_calls: Sequence[ToolCall], *, id: str | None = None
    ) -> Ai:
        """A model reply requesting tools."""
        return Ai(content=content, tool_calls=list(tool_calls), id=id or new_message_id())

    @staticmethod
    def ai_with_usage(content: Content, usage: LlmUsage, *, id: str | None = None) -> Ai:
        """A model reply with its token usage."""
        return Ai(content=content, usage=usage, id=id or new_message_id())

    @staticmethod
    def ai_with_thinking(
        content: Content,
        thinking: str,
        *,
        signature: str | None = None,
        id: str | None = None,
    ) -> Ai:
        """A model reply with reasoning text (and, for Anthropic, its signature)."""
        blocks = [ThinkingBlock(text=thinking, signature=signature)]
        return Ai(
            content=content, thinking=thinking, thinking_blocks=blocks, id=id or new_message_id()
        )

    @staticmethod
    def system(content: Content, *, id: str | None = None) -> System:
        """A system (instructions) message."""
        return System(content=content, id=id or new_message_id())

    @staticmethod
    def tool_result(
        tool_call_id: str, content: Content, *, name: str | None = None, id: str | None = None
    ) -> ToolResult:
        """The successful result of tool call `tool_call_id`."""
        return ToolResult(
            content=content, tool_call_id=tool_call_id, name=name, id=id or new_message_id()
        )

    @staticmethod
    def tool_error(
        tool_call_id: str, content: Content, *, name: str | None = None, id: str | None = None
    ) -> ToolResult:
        """A failed tool call `tool_call_id`, with the error text as content."""
        result = Message.tool_result(tool_call_id, content, name=name, id=id)
        return result.model_copy(update={"status": "error"})

    @staticmethod
    def remove(id: str) -> Remove:
        """A marker removing the earlier message `id` from the history sent to the model."""
        return Remove(id=id)


class Human(Message):
    """A message from the user."""

    role: Literal["human"] = "human"
    content: Content
    id_: str = Field(default_factory=new_message_id, alias="id", min_length=1)

    def id(self) -> str:
        return self.id_

    def text(self) -> str:
        return content_text(self.content)


class System(Message):
    """Instructions for the model."""

    role: Literal["system"] = "system"
    content: Content
    id_: str = Field(default_factory=new_message_id, alias="id", min_length=1)

    def id(self) -> str:
        return self.id_

    def text(self) -> str:
        return content_text(self.content)


class Ai(Message):
    """A reply from the model: text, tool calls, reasoning, usage and why it stopped."""

    role: Literal["ai"] = "ai"
    content: Content = ""
    tool_calls_: list[ToolCall] = Field(default_factory=list, alias="tool_calls")
    id_: str = Field(default_factory=new_message_id, alias="id", min_length=1)
    usage_: LlmUsage | None = Field(default=None, alias="usage")
    thinking_: str | None = Field(default=None, alias="thinking")
    thinking_blocks: list[ThinkingBlock] = Field(default_factory=list)
    finish_reason: FinishReason | None = None
    raw_finish_reason: str | None = None

    @model_validator(mode="after")
    def _thinking_from_blocks(self) -> Ai:
        if self.thinking_ is None and any(b.text for b in self.thinking_blocks):
            text = "".join(b.text for b in self.thinking_blocks)
            object.__setattr__(self, "thinking_", text)
        return self

    def id(self) -> str:
        return self.id_

    def text(self) -> str:
        return content_text(self.content)

    def tool_calls(self) -> list[ToolCall]:
        return list(self.tool_calls_)

    def usage(self) -> LlmUsage | None:
        return self.usage_

    def thinking(self) -> str | None:
        return self.thinking_


class ToolResult(Message):
    """The result of a tool call, sent back to the model."""

    role: Literal["tool"] = "tool"
    content: Content
    tool_call_id: str = Field(min_length=1)
    name: str | None = None
    id_: str = Field(default_factory=new_message_id, alias="id", min_length=1)
    status: ToolStatus = "success"

    def id(self) -> str:
        return self.id_

    def text(self) -> str:
        return content_text(self.content)


class Remove(Message):
    """Removes the earlier message with this id from the history sent to the model."""

    role: Literal["remove"] = "remove"
    id_: str = Field(alias="id", min_length=1)

    def id(self) -> str:
        return self.id_


AnyMessage = Annotated[Human | Ai | System | ToolResult | Remove, Field(discriminator="role")]
"""The tagged union behind `Message`, for use where a plain annotation is needed."""

Message.model_rebuild()

_HISTORY: TypeAdapter[list[Message]] = TypeAdapter(list[Message])


def messages_to_json(messages: Iterable[Message]) -> str:
    """Serialise a history as a JSON list."""
    return _HISTORY.dump_json(list(messages)).decode()


def messages_from_json(data: str | bytes) -> list[Message]:
    """Parse a history written by `messages_to_json`."""
    return _HISTORY.validate_json(data)


def resolve_history(messages: Iterable[Message]) -> list[Message]:
    """Apply `Remove` markers: the history as the model should see it.

    A marker removes the earlier message with its id; a marker naming no earlier
    message is an error (it usually means the history was assembled wrongly).
    """
    out: list[Message] = []
    for message in messages:
        if isinstance(message, Remove):
            target = message.id()
            kept = [m for m in out if m.id() != target]
            if len(kept) == len(out):
                raise ValueError(f"Remove({target!r}): no earlier message has this id")
            out = kept
        else:
            out.append(message)
    return out
