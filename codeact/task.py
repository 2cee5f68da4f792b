"""What a run is asked to do: words, or content parts (text and images)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import TypeAdapter, ValidationError

from codeact.message_parts import Content, ContentPart, ImageDataPart, ImageUrlPart, TextPart

Task = str | Sequence[ContentPart | Mapping[str, Any]]
"""A task: a string, or a list of parts — ``TextPart``, ``ImageDataPart``,
``ImageUrlPart`` (or their JSON objects, ``{"type": "text", "text": ...}``)."""

_PARTS: TypeAdapter[list[ContentPart]] = TypeAdapter(list[ContentPart])


def task_content(task: Task) -> Content:
    """The content of the task's message; ValueError for an empty or malformed task."""
    if isinstance(task, str):
        if not task.strip():
            raise ValueError("the task must be a non-empty string")
        return task
    if not isinstance(task, Sequence):
        raise ValueError(
            f"the task must be a string or a list of content parts, not {type(task).__name__}"
        )
    try:
        parts = _PARTS.validate_python(
            [
                p.model_dump() if isinstance(p, TextPart | ImageUrlPart | ImageDataPart) else p
                for p in task
            ]
        )
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ValueError(f"the task's content part {where}: {first['msg']}") from None
    if not any(not isinstance(p, TextPart) or p.text.strip() for p in parts):
        raise ValueError("the task's parts hold no text and no image")
    return parts


def task_text(content: Content) -> str:
    """The task in words, images counted (for events and logs)."""
    if isinstance(content, str):
        return content
    text = "".join(p.text for p in content if isinstance(p, TextPart))
    images = sum(1 for p in content if not isinstance(p, TextPart))
    return f"{text} [+{images} image{'s' if images != 1 else ''}]" if images else text
