"""A loopback OpenAI-compatible server that answers with a suite's golden replies.

A test double for benchmark runs over real HTTP: point
``openai-compatible:golden@http://127.0.0.1:PORT/v1`` at it. Each request is matched
to its task by the task's input in the conversation's first user message, and
answered with the golden reply for its turn (the number of assistant messages so
far): whole, or — for ``"stream": true`` — as server-sent ``chat.completion.chunk``
events of `chunk_chars` characters, with a last chunk of usage when
``stream_options.include_usage`` asks for one, then ``data: [DONE]``, as OpenAI's API
streams. It can wait `latency_s` before each answer, like a slow model, and
`chunk_delay_s` between chunks, and refuse chosen requests with ``429`` and a
``retry-after`` header, like a rate-limited one. It keeps no conversation state, so
any number of samples may talk to it at once; with ``record=True`` it keeps each
request's headers and body in `received`, for a test to check what a client sent.

Run it by hand: ``python -m codeact.bench.fake_server m3tooleval --latency 0.5``.
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from codeact.bench.suite import BenchTask, GoldenReply, Suite, SuiteError

#: Decides, from the 1-based request number, whether to refuse it with 429.
RateLimitRule = Callable[[int], bool]


def every(n: int) -> RateLimitRule:
    """Refuse every n-th request."""
    return lambda number: number % n == 0


@dataclass(frozen=True)
class ReceivedRequest:
    """One chat-completions request as the server read it (header names lower-case)."""

    headers: dict[str, str]
    body: dict[str, Any]


class FakeServer:
    """The server (see the module docstring); use as a context manager or start/stop."""

    def __init__(
        self,
        suite: Suite,
        *,
        latency_s: float = 0.0,
        rate_limit: RateLimitRule | None = None,
        retry_after_s: float = 0.05,
        port: int = 0,
        chunk_chars: int = 16,
        chunk_delay_s: float = 0.0,
        record: bool = False,
    ) -> None:
        if chunk_chars < 1:
            raise ValueError(f"chunk_chars must be at least 1, not {chunk_chars}")
        self.suite = suite
        self.latency_s = latency_s
        self.rate_limit = rate_limit
        self.retry_after_s = retry_after_s
        self.chunk_chars = chunk_chars
        self.chunk_delay_s = chunk_delay_s
        self.record = record
        self.requests = 0
        self.refused = 0
        #: Each request's headers and body, in order (with ``record=True``).
        self.received: list[ReceivedRequest] = []
        #: The ``seed`` fields seen, per task id.
        self.seeds: dict[str, set[object]] = {}
        self._lock = threading.Lock()
        self._by_input = sorted(suite.tasks, key=lambda task: -len(task.input))
        self._httpd = ThreadingHTTPServer(("127.0.0.1", port), _handler(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """The base URL to give a model spec, e.g. ``http://127.0.0.1:41234/v1``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> FakeServer:
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(5)

    def __enter__(self) -> FakeServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _count(self, headers: dict[str, str], raw: bytes) -> tuple[int, bool]:
        with self._lock:
            if self.record:
                try:
                    body = json.loads(raw)
                except json.JSONDecodeError:
                    body = {"(not JSON)": raw.decode(errors="replace")}
                self.received.append(ReceivedRequest(headers, body))
            self.requests += 1
            refuse = bool(self.rate_limit and self.rate_limit(self.requests))
            self.refused += refuse
            return self.requests, refuse

    def task_of(self, messages: list[dict[str, Any]]) -> BenchTask | None:
        """The task whose input opens the conversation."""
        first = next((m for m in messages if m.get("role") == "user"), None)
        text = _text(first.get("content")) if first else ""
        return next((task for task in self._by_input if task.input in text), None)

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The status and JSON body for one chat-completions request."""
        messages = body.get("messages")
        if not isinstance(messages, list):
            return 400, _error("invalid_request_error", "messages must be a list")
        task = self.task_of(messages)
        if task is None:
            return 400, _error("invalid_request_error", "no task of the suite matches")
        with self._lock:
            self.seeds.setdefault(task.id, set()).add(body.get("seed"))
        turn = sum(1 for m in messages if m.get("role") == "assistant")
        replies: list[GoldenReply] = self.suite.golden_replies(task)
        if turn >= len(replies):
            return 400, _error("invalid_request_error", f"{task.id}: no golden reply {turn}")
        reply = replies[turn]
        content = reply if isinstance(reply, str) else reply["content"]
        prompt_chars = sum(len(_text(m.get("content"))) for m in messages)
        return 200, {
            "id": f"fake-{task.id}-{turn}",
            "object": "chat.completion",
            "model": str(body.get("model", "golden")),
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            # About four characters a token, so summaries have tokens to count.
            "usage": {
                "prompt_tokens": prompt_chars // 4,
                "completion_tokens": len(content) // 4,
                "total_tokens": prompt_chars // 4 + len(content) // 4,
            },
        }


def sse_chunks(
    completion: dict[str, Any], chunk_chars: int, *, include_usage: bool
) -> Iterator[bytes]:
    """A whole chat completion as the server-sent events that stream it: the role, the
    content in pieces of ``chunk_chars``, the finish reason, the usage when
    ``include_usage`` (a chunk without choices), and ``[DONE]``."""
    head = {
        "id": completion["id"], "object": "chat.completion.chunk", "created": int(time.time()),
        "model": completion["model"],
    }  # fmt: skip
    extra = {"usage": None} if include_usage else {}

    def event(delta: dict[str, Any], finish: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return f"data: {json.dumps({**head, 'choices': [choice], **extra})}\n\n".encode()

    (choice,) = completion["choices"]
    content: str = choice["message"]["content"]
    yield event({"role": "assistant", "content": ""})
    for at in range(0, len(content), chunk_chars):
        yield event({"content": content[at : at + chunk_chars]})
    yield event({}, choice["finish_reason"])
    if include_usage:
        tail = {**head, "choices": [], "usage": completion["usage"]}
        yield f"data: {json.dumps(tail)}\n\n".encode()
    yield b"data: [DONE]\n\n"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"error": {"type": kind, "message": message}}


def _handler(server: FakeServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: a benchmark makes hundreds of requests

        def _send(self, status: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client went away (a run interrupted mid-request)

        def _stream(self, completion: dict[str, Any], include_usage: bool) -> None:
            """The completion as server-sent events, each in one HTTP/1.1 chunk, so
            the connection stays open for the next request."""
            self.send_response(200)
            self.send_header("content-type", "text/event-stream")
            self.send_header("cache-control", "no-cache")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()
            try:
                for number, event in enumerate(
                    sse_chunks(completion, server.chunk_chars, include_usage=include_usage)
                ):
                    if number and server.chunk_delay_s:
                        time.sleep(server.chunk_delay_s)
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                    self.wfile.flush()
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                self.close_connection = True  # the client stopped reading mid-stream

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            if not self.path.endswith("/chat/completions"):
                self._send(404, _error("not_found", f"no route {self.path}"), {})
                return
            headers = {key.lower(): value for key, value in self.headers.items()}
            _, refuse = server._count(headers, raw)
            if refuse:
                retry = {"retry-after": f"{server.retry_after_s:g}"}
                self._send(429, _error("rate_limit_exceeded", "slow down"), retry)
                return
            if server.latency_s:
                time.sleep(server.latency_s)
            try:
                body = json.loads(raw)
            except json.JSONDecodeError:
                self._send(400, _error("invalid_request_error", "body is not JSON"), {})
                return
            body = body if isinstance(body, dict) else {}
            status, payload = server.answer(body)
            if status == 200 and body.get("stream") is True:
                options = body.get("stream_options")
                usage = isinstance(options, dict) and options.get("include_usage") is True
                self._stream(payload, usage)
            else:
                self._send(status, payload, {})

    return Handler


@contextmanager
def serving(suite: Suite, **options: Any) -> Iterator[FakeServer]:
    """``with serving(suite, latency_s=0.2) as server: ... server.url ...``."""
    server = FakeServer(suite, **options).start()
    try:
        yield server
    finally:
        server.stop()


def main(argv: list[str] | None = None) -> int:
    """Serve a suite's golden replies until interrupted."""
    from codeact.bench.loading import load_suite

    parser = argparse.ArgumentParser(prog="python -m codeact.bench.fake_server")
    parser.add_argument("suite", help="a built-in suite or MODULE:ATTR with golden replies")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each reply")
    parser.add_argument("--rate-limit-every", type=int, metavar="N", help="429 every N-th request")
    parser.add_argument("--retry-after", type=float, default=1.0)
    parser.add_argument(
        "--chunk-delay", type=float, default=0.0, help="seconds between streamed chunks"
    )
    args = parser.parse_args(argv)
    rule = every(args.rate_limit_every) if args.rate_limit_every else None
    try:
        suite = load_suite(args.suite)
        if suite.golden is None:
            raise SuiteError(f"suite {suite.name!r} ships no golden replies to serve")
        server = FakeServer(
            suite, latency_s=args.latency, rate_limit=rule, retry_after_s=args.retry_after,
            port=args.port, chunk_delay_s=args.chunk_delay,
        )  # fmt: skip
    except (SuiteError, OSError) as exc:
        print(f"{parser.prog}: {exc}", file=sys.stderr)
        return 2
    try:
        print(f"serving {args.suite} golden replies at {server.url}", flush=True)
        server._httpd.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
