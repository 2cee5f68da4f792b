"""Framing on the host↔worker channel: a 4-byte big-endian length, then UTF-8 JSON.

Both ends use blocking stream sockets. The reader refuses frames above a size cap, so
a misbehaving worker cannot make the host buffer without bound.

Standard library only (the worker imports it).
"""

from __future__ import annotations

import json
import socket
import struct
from typing import Any

_HEADER = struct.Struct(">I")


class ChannelClosed(EOFError):
    """The other end closed the channel (or died)."""


class FrameTooLarge(ValueError):
    """A frame announced a size above the reader's cap."""


def encode(message: Any) -> bytes:
    """One frame carrying ``message`` as JSON."""
    payload = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode()
    return _HEADER.pack(len(payload)) + payload


def encode_run(source: str, seq: int) -> bytes:
    """The frame of a ``run`` request (the hot path: only the source needs encoding)."""
    text = json.dumps(source, ensure_ascii=False)
    payload = f'{{"op":"run","seq":{int(seq)},"source":{text}}}'.encode()
    return _HEADER.pack(len(payload)) + payload


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
