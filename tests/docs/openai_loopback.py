"""A stand-in for a local OpenAI-compatible server (vLLM, Ollama, llama.cpp) on loopback:
Chat Completions whole or streamed as server-sent events, with one canned reply per turn.

``codeact.bench.fake_server`` answers a suite's tasks and never streams; a model client
asked to stream (``agent.stream``, ``codeact run``) needs this one.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: Decides a reply from a request's messages.
ReplyFunction = Callable[[list[dict[str, Any]]], str]


class LoopbackServer:
    """Answers turn n of any conversation (n = assistant messages so far) with
    ``replies[n]``, or with what ``replies(messages)`` says; ``requests`` keeps each
    request's headers and body."""

    def __init__(self, replies: list[str] | ReplyFunction) -> None:
        self.replies = replies
        self.requests: list[tuple[dict[str, str], dict[str, Any]]] = []
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def reply(self, headers: dict[str, str], body: dict[str, Any]) -> str:
        self.requests.append((headers, body))
        if callable(self.replies):
            return self.replies(body.get("messages", []))
        turn = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        return self.replies[min(turn, len(self.replies) - 1)]


def _chunk(delta: dict[str, Any], finish: str | None = None) -> bytes:
    choice = {"index": 0, "delta": delta, "finish_reason": finish}
    body = {"id": "c", "object": "chat.completion.chunk", "choices": [choice]}
    return f"data: {json.dumps(body)}\n\n".encode()


def _handler(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            content = server.reply(dict(self.headers.items()), body)
            usage = {"prompt_tokens": 100, "completion_tokens": len(content) // 4}
            if body.get("stream"):
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("connection", "close")
                self.end_headers()
                self.wfile.write(_chunk({"role": "assistant", "content": ""}))
                for at in range(0, len(content), 7):
                    self.wfile.write(_chunk({"content": content[at : at + 7]}))
                self.wfile.write(_chunk({}, "stop"))
                tail = {"id": "c", "choices": [], "usage": usage}
                self.wfile.write(f"data: {json.dumps(tail)}\n\ndata: [DONE]\n\n".encode())
                self.close_connection = True
                return
            message = {"role": "assistant", "content": content}
            choice = {"index": 0, "message": message, "finish_reason": "stop"}
            data = json.dumps({"id": "c", "choices": [choice], "usage": usage}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def loopback(replies: list[str] | ReplyFunction) -> Iterator[LoopbackServer]:
    server = LoopbackServer(replies)
    thread = threading.Thread(target=server._httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server._httpd.shutdown()
        server._httpd.server_close()
        thread.join(5)
