"""Framing on the host↔worker channel: a 4-byte big-endian length, then UTF-8 JSON.

Both ends encode with the functions here (strict UTF-8) and use blocking stream
sockets. The reader refuses frames above a size cap, so a misbehaving worker cannot
make the host buffer without bound.

Standard library only (the worker imports it).
"""

from __future__ import annotations

import json
import select
import socket
import struct
import time
from typing import Any

_HEADER = struct.Struct(">I")


class ChannelClosed(EOFError):
    """The other end closed the channel (or died)."""


class FrameTooLarge(ValueError):
    """A frame announced a size above the reader's cap."""


class UnencodableText(ValueError):
    """A message holds text that is not valid Unicode (a lone surrogate such as
    ``"\\udcff"``), which strict UTF-8 cannot carry."""


def _dumps(message: Any) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def frame_text(text: str, *, replace: bool = False) -> bytes:
    """One frame carrying ``text`` (already JSON) as strict UTF-8.

    A lone surrogate raises :class:`UnencodableText`, or becomes ``?`` with
    ``replace`` (for what a finished script printed or returned: losing one
    character beats losing the run).
    """
    try:
        payload = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        if not replace:
            raise UnencodableText(describe_unencodable(text, exc)) from None
        payload = text.encode("utf-8", "replace")
    return _HEADER.pack(len(payload)) + payload


def describe_unencodable(text: str, exc: UnicodeEncodeError) -> str:
    """Where the first lone surrogate in ``text`` is, in words."""
    line = text.count("\n", 0, exc.start) + 1
    column = exc.start - (text.rfind("\n", 0, exc.start) + 1) + 1
    char = ascii(text[exc.start])[1:-1]
    return (
        f"the text holds a lone surrogate {char} at line {line}, column {column}, which "
        "is not valid Unicode and cannot be sent as UTF-8"
    )


def encode(message: Any, *, replace: bool = False) -> bytes:
    """One frame carrying ``message`` as JSON (see :func:`frame_text`)."""
    return frame_text(_dumps(message), replace=replace)


def encode_run(source: str, seq: int) -> bytes:
    """The frame of a ``run`` request (the hot path: only the source needs encoding)."""
    text = json.dumps(source, ensure_ascii=False)
    return frame_text(f'{{"op":"run","seq":{int(seq)},"source":{text}}}')


def host_frame_cap(limits: dict[str, Any]) -> int:
    """The largest frame the host reads from a worker: a ``done`` frame carries at most
    the result and the printed text, each capped by the policy."""
    return int(limits["result_bytes"]) * 2 + (1 << 20)


def check_text(text: str) -> str | None:
    """None if ``text`` can be sent, else why not."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return describe_unencodable(text, exc)
    return None


def send_by(sock: socket.socket, data: bytes, deadline: float) -> bool:
    """Send ``data`` on a blocking socket, giving up at ``deadline`` (``perf_counter``);
    False if it did not all go. A peer that stops reading (a plain-Python script owns
    its end of the channel) must not block the host past the run's wall-clock limit."""
    view = memoryview(data)
    while True:
        try:
            view = view[sock.send(view, socket.MSG_DONTWAIT) :]
        except BlockingIOError:
            pass
        if not view:
            return True
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return False
        select.select([], [sock], [], min(remaining, 0.05))


class FrameReader:
    """Reads whole frames from a blocking socket."""

    def __init__(self, sock: socket.socket, max_frame: int) -> None:
        self._sock = sock
        self._buffer = bytearray()
        self.max_frame = max_frame

    def pending(self) -> bool:
        """True when a whole frame is already buffered."""
        if len(self._buffer) < 4:
            return False
        size: int = _HEADER.unpack_from(self._buffer)[0]
        return len(self._buffer) >= 4 + size

    def next_frame(self) -> bytes | None:
        """The next whole frame if one is buffered, else None (never blocks)."""
        if len(self._buffer) < 4:
            return None
        size: int = _HEADER.unpack_from(self._buffer)[0]
        if size > self.max_frame:
            raise FrameTooLarge(f"frame of {size} bytes exceeds {self.max_frame}")
        if len(self._buffer) < 4 + size:
            return None
        payload = bytes(self._buffer[4 : 4 + size])
        del self._buffer[: 4 + size]
        return payload

    def fill(self) -> None:
        """One ``recv`` into the buffer (blocks only if nothing is readable)."""
        chunk = self._sock.recv(65536)
        if not chunk:
            raise ChannelClosed("channel closed")
        self._buffer += chunk

    def read_frame(self) -> bytes:
        """Block until one frame has arrived; return its payload."""
        while True:
            frame = self.next_frame()
            if frame is not None:
                return frame
            self.fill()

    def read_json(self) -> Any:
        """Read one frame and decode it as JSON."""
        return json.loads(self.read_frame())
