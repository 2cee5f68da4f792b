"""What a message is made of: content parts (text, images), tool calls, thinking blocks.

`codeact.messages` builds the messages from these and exports them too.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Content",
    "ContentPart",
    "ImageDataPart",
    "ImageUrlPart",
    "TextPart",
    "ThinkingBlock",
    "ToolCall",
    "content_text",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TextPart(_Frozen):
    """A text segment of a message's content."""

    type: Literal["text"] = "text"
    text: str


class ImageUrlPart(_Frozen):
    """An image referenced by URL (``https:`` or ``data:``)."""

    type: Literal["image_url"] = "image_url"
    url: str = Field(min_length=1)
    detail: Literal["auto", "low", "high"] | None = None


class ImageDataPart(_Frozen):
    """An image given inline as base64 data."""

    type: Literal["image_base64"] = "image_base64"
    media_type: str = Field(pattern=r"^image/[\w.+-]+$")
    data: str = Field(min_length=1)


ContentPart = Annotated[TextPart | ImageUrlPart | ImageDataPart, Field(discriminator="type")]
Content = str | list[ContentPart]
"""Message content: plain text or a list of parts (text and images)."""


def content_text(content: Content) -> str:
    """The text of `content`, with non-text parts skipped."""
    if isinstance(content, str):
        return content
    return "".join(part.text for part in content if isinstance(part, TextPart))


class ToolCall(_Frozen):
    """A tool invocation requested by the model.

    ``raw_arguments`` holds the model's argument text when it was not a JSON object; the
    call is kept (with empty ``arguments``) so the caller can report the problem back.
    """

    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    raw_arguments: str | None = None

    def arguments_json(self) -> str:
        """Arguments as the JSON text sent on the wire."""
        if self.raw_arguments is not None:
            return self.raw_arguments
        return json.dumps(self.arguments, ensure_ascii=False)

    @staticmethod
    def from_json_arguments(id: str, name: str, text: str) -> ToolCall:
        """Build a call from wire-format JSON argument text (tolerating bad JSON)."""
        if not text.strip():
            return ToolCall(id=id, name=name)
        try:
            parsed = json.loads(text)
        except json.JSONDecodeError:
            return ToolCall(id=id, name=name, raw_arguments=text)
        if not isinstance(parsed, dict):
            return ToolCall(id=id, name=name, raw_arguments=text)
        return ToolCall(id=id, name=name, arguments=parsed)


class ThinkingBlock(_Frozen):
    """One block of model reasoning, kept verbatim so it can be sent back unchanged.

    Anthropic signs thinking blocks (``signature``) and may return encrypted
    ``redacted_data`` instead of text; both must be echoed back as received.
    """

    text: str = ""
    signature: str | None = None
    redacted_data: str | None = None
