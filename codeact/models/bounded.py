"""Bounds on what a model server may send back: size, streamed text, and time.

A server that answers with hundreds of megabytes, or streams a small chunk every
half second forever, must not take the host's memory or hang the run: bodies are read
in chunks and counted (never read whole first), streamed text is counted as it
arrives, and every call has a total deadline that per-read timeouts cannot give (each
read may succeed in time while the whole never ends).
"""

from __future__ import annotations

import asyncio
import codecs
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TypeVar

import httpx
from pydantic import BaseModel, ConfigDict, Field

from codeact.models.base import StreamEvent, TextDelta, ThinkingDelta, ToolCallDelta
from codeact.models.errors import ModelError, ModelErrorCode

__all__ = ["ResponseLimits"]

T = TypeVar("T")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class ResponseLimits(BaseModel):
    """How much a model call may receive, and for how long.

    The defaults leave room for real models (a long reply with reasoning is a few
    hundred thousand characters and well under a megabyte of JSON; a slow reasoning
    model may think for minutes).
    """

    model_config = ConfigDict(frozen=True)

    max_response_bytes: int = Field(
        16 * 1024 * 1024, gt=0, description="Bytes of one response body, as received."
    )
    max_stream_chars: int = Field(
        1_000_000, gt=0, description="Characters of text, thinking and tool arguments streamed."
    )
    deadline_s: float | None = Field(
        600.0, gt=0, description="Seconds one call may take in all, retries included."
    )


def too_large(model: str, provider: str, what: str) -> ModelError:
    """The failure of a response over one of the limits."""
    return ModelError(
        ModelErrorCode.MALFORMED_RESPONSE,
        f"{model}: {what}; the reply was dropped",
        provider=provider,
    )


async def read_body(response: httpx.Response, cap: int, fail: Callable[[str], ModelError]) -> bytes:
    """The whole body of ``response``, refused as soon as it passes ``cap`` bytes."""
    declared = response.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > cap:
        size = int(declared)
        raise fail(f"the response declares {size:,} bytes, over {cap:,} (max_response_bytes)")
    parts, total = [], 0
    async for chunk in response.aiter_bytes():  # decoded: a compressed bomb counts
        total += len(chunk)
        if total > cap:
            raise fail(f"the response passed {cap:,} bytes (max_response_bytes)")
        parts.append(chunk)
    return b"".join(parts)


async def body_lines(
    response: httpx.Response, cap: int, fail: Callable[[str], ModelError]
) -> AsyncIterator[str]:
    """The body's lines as they arrive; refused as soon as it passes ``cap`` bytes (a
    line with no end is never buffered beyond that)."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    line: list[str] = []  # the current line so far; only new text is ever scanned
    held, total = "", 0
    async for chunk in response.aiter_bytes():
        total += len(chunk)
        if total > cap:
            raise fail(f"the stream passed {cap:,} bytes (max_response_bytes)")
        text = held + decoder.decode(chunk)
        # A chunk may end between the \r and \n of one line break: hold the \r back.
        held = "\r" if text.endswith("\r") else ""
        pieces = _LINE_BREAK.split(text[: len(text) - len(held)])
        if len(pieces) == 1:
            line.append(pieces[0])
            continue
        yield "".join(line) + pieces[0]
        for piece in pieces[1:-1]:
            yield piece
        line = [pieces[-1]]
    line.append(decoder.decode(b"", final=True))
    rest = "".join(line)
    if rest or held:
        yield rest


def streamed_chars(event: StreamEvent) -> int:
    """The characters of content an event brings."""
    if isinstance(event, (TextDelta, ThinkingDelta)):
        return len(event.text)
    if isinstance(event, ToolCallDelta):
        return len(event.arguments) + len(event.name or "")
    return 0


def deadline_error(model: str, provider: str, seconds: float) -> ModelError:
    """The failure of a call that outlived its deadline."""
    return ModelError(
        ModelErrorCode.TIMEOUT,
        f"{model}: no complete reply within {seconds:g} s (deadline_s)",
        provider=provider,
    )


async def within(
    seconds: float | None, work: Awaitable[T], on_timeout: Callable[[], ModelError]
) -> T:
    """Await ``work``, failing with ``on_timeout()`` once ``seconds`` have passed."""
    if seconds is None:
        return await work
    scope = asyncio.timeout(seconds)
    try:
        async with scope:
            return await work
    except TimeoutError:
        if scope.expired():
            raise on_timeout() from None
        raise
