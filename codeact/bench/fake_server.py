"""A loopback OpenAI-compatible server that answers with a suite's golden replies.

A test double for benchmark runs over real HTTP: point
``openai-compatible:golden@http://127.0.0.1:PORT/v1`` at it. Each request is matched
to its task by the task's input in the conversation's first user message, and
answered with the golden reply for its turn (the number of assistant messages so
far). It can wait `latency_s` before each answer, like a slow model, and refuse
chosen requests with ``429`` and a ``retry-after`` header, like a rate-limited one.
It keeps no conversation state, so any number of samples may talk to it at once.

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
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from codeact.bench.suite import BenchTask, GoldenReply, Suite, SuiteError

#: Decides, from the 1-based request number, whether to refuse it with 429.
RateLimitRule = Callable[[int], bool]


def every(n: int) -> RateLimitRule:
    """Refuse every n-th request."""
    return lambda number: number % n == 0


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
    ) -> None:
        self.suite = suite
        self.latency_s = latency_s
        self.rate_limit = rate_limit
        self.retry_after_s = retry_after_s
        self.requests = 0
        self.refused = 0
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

    def _count(self) -> tuple[int, bool]:
        with self._lock:
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

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            if not self.path.endswith("/chat/completions"):
                self._send(404, _error("not_found", f"no route {self.path}"), {})
                return
            _, refuse = server._count()
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
            status, payload = server.answer(body if isinstance(body, dict) else {})
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
    args = parser.parse_args(argv)
    rule = every(args.rate_limit_every) if args.rate_limit_every else None
    try:
        suite = load_suite(args.suite)
        if suite.golden is None:
            raise SuiteError(f"suite {suite.name!r} ships no golden replies to serve")
        server = FakeServer(
            suite, latency_s=args.latency, rate_limit=rule, retry_after_s=args.retry_after,
            port=args.port,
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
