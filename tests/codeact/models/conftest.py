"""Fixtures for the model client tests: a loopback HTTP server and fast retry policies."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from codeact.models import BLOCK_ENV_VAR, RetryPolicy, allow_network_models


@pytest.fixture(autouse=True)
def _network_switch_off(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Client tests talk to mock transports and loopback servers; never block them."""
    monkeypatch.delenv(BLOCK_ENV_VAR, raising=False)
    allow_network_models()
    yield
    allow_network_models()


@pytest.fixture
def fast_retry() -> RetryPolicy:
    """A retry policy with millisecond waits."""
    return RetryPolicy(max_attempts=3, initial_delay=0.001, max_delay=0.01, max_total_wait=5)


# --- loopback server -------------------------------------------------------------------


@dataclass
class Recorded:
    """One request the loopback server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


Action = Callable[["_Handler"], None]


@dataclass
class Loopback:
    """A real HTTP server on 127.0.0.1; each request is answered by the next action."""

    url: str
    actions: list[Action] = field(default_factory=list)
    requests: list[Recorded] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def push(self, *actions: Action) -> None:
        with self.lock:
            self.actions.extend(actions)

    def next_action(self) -> Action | None:
        with self.lock:
            return self.actions.pop(0) if self.actions else None


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    loopback: Loopback

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def handle(self) -> None:
        # Clients close kept-alive connections at will; that is not a server error.
        try:
            super().handle()
        except OSError:
            self.close_connection = True

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length", "0"))
        raw = self.rfile.read(length)
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode(errors="replace")
        self.loopback.requests.append(
            Recorded("POST", self.path, {k.lower(): v for k, v in self.headers.items()}, body)
        )
        action = self.loopback.next_action()
        if action is None:
            action = json_reply(500, {"error": {"message": "loopback: no scripted response"}})
        action(self)

    # helpers used by the actions

    def start_chunked(self, status: int, headers: dict[str, str]) -> None:
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        self.wfile.flush()

    def write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def end_chunked(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def drop(self) -> None:
        """Abort the connection mid-response (no terminating chunk)."""
        self.close_connection = True
        self.wfile.flush()
        self.connection.shutdown(socket.SHUT_RDWR)


def json_reply(status: int, body: Any, headers: dict[str, str] | None = None) -> Action:
    """Answer with a JSON body (or text, for a str body)."""

    def act(h: _Handler) -> None:
        data = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        h.send_response(status)
        ctype = "text/plain" if isinstance(body, str) else "application/json"
        h.send_header("content-type", ctype)
        for key, value in (headers or {}).items():
            h.send_header(key, value)
        h.send_header("content-length", str(len(data)))
        h.end_headers()
        h.wfile.write(data)
        h.wfile.flush()

    return act


def sse_reply(
    events: list[str],
    *,
    first_delay: float = 0.0,
    gap: float = 0.0,
    drop_after: int | None = None,
    split: bool = False,
    wait_before: dict[int, threading.Event] | None = None,
) -> Action:
    """Stream `events` (raw SSE text, one event each) in separate flushed chunks.

    ``drop_after=n`` aborts the connection after n events; ``split`` sends every event
    in two writes cut mid-line; ``wait_before={i: ev}`` blocks before event i until
    `ev` is set (the test proves it saw earlier events first).
    """

    def act(h: _Handler) -> None:
        h.start_chunked(200, {"content-type": "text/event-stream", "cache-control": "no-cache"})
        time.sleep(first_delay)
        for index, event in enumerate(events):
            if drop_after is not None and index >= drop_after:
                h.drop()
                return
            if wait_before and index in wait_before:
                wait_before[index].wait(timeout=10)
            data = event.encode()
            if split and len(data) > 4:
                h.write_chunk(data[: len(data) // 2])
                time.sleep(0.005)
                h.write_chunk(data[len(data) // 2 :])
            else:
                h.write_chunk(data)
            time.sleep(gap)
        if drop_after is not None and drop_after >= len(events):
            h.drop()
            return
        h.end_chunked()

    return act


@pytest.fixture
def loopback() -> Iterator[Loopback]:
    """A loopback server bound to 127.0.0.1 on a free port, serving scripted actions."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    host, port = server.server_address[:2]
    state = Loopback(url=f"http://{host!s}:{port}")
    server.RequestHandlerClass = type("Handler", (_Handler,), {"loopback": state})
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def json_action() -> Callable[..., Action]:
    """`json_reply` as a fixture (test modules do not import conftest)."""
    return json_reply


@pytest.fixture
def sse_action() -> Callable[..., Action]:
    """`sse_reply` as a fixture."""
    return sse_reply
