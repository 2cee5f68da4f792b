"""Server-sent events (SSE) parsing over a stream of text lines.

Follows the WHATWG event-stream rules that matter for model APIs: ``data`` lines of
one event are joined with newlines, ``:`` lines are comments (keep-alives), a blank
line dispatches the event, and an event cut off by the end of the stream (no blank
line yet) is dropped — a truncated stream must not yield a half-received event.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator

from pydantic import BaseModel, ConfigDict

__all__ = ["SseEvent", "aiter_sse"]


class SseEvent(BaseModel):
    """One dispatched event: ``event`` defaults to ``"message"``."""

    model_config = ConfigDict(frozen=True)

    event: str = "message"
    data: str = ""
    id: str | None = None
    retry: int | None = None


async def aiter_sse(lines: AsyncIterable[str]) -> AsyncIterator[SseEvent]:
    """Yield the events in `lines` (as produced by ``httpx.Response.aiter_lines()``)."""
    event = ""
    data: list[str] = []
    last_id: str | None = None
    retry: int | None = None
    async for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield SseEvent(
                    event=event or "message", data="\n".join(data), id=last_id, retry=retry
                )
            event, data, retry = "", [], None
            continue
        if line.startswith(":"):
            continue
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        elif name == "id":
            if "\0" not in value:
                last_id = value
        elif name == "retry" and value.isdigit():
            retry = int(value)
    # Anything still pending here was cut off before its terminating blank line: dropped.
