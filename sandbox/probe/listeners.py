"""Loopback listeners and decoy processes: host-side targets whose contact is an escape.

Each listener binds 127.0.0.1 on a free port, never sends anything a client could act
on, and records who reached it. A decoy is a sleeping child process with a chosen
command line; if it dies before the runner stops it, something killed it.
"""

from __future__ import annotations

import contextlib
import http.server
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections import defaultdict
from typing import Any, Self

LOOPBACK = "127.0.0.1"


def _stop(sock: socket.socket, stop: threading.Event, thread: threading.Thread) -> None:
    stop.set()
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)  # wakes a blocked accept/recv at once
    thread.join(timeout=2)
    sock.close()


class TcpListener:
    """Accepts TCP connections on loopback and records them; closes each at once."""

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((LOOPBACK, 0))
        self._sock.listen(16)
        self._sock.settimeout(0.2)
        self.port: int = self._sock.getsockname()[1]
        self.connections: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="probe-tcp", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except (TimeoutError, OSError):
                continue
            with conn:
                conn.settimeout(0.2)
                data = b""
                with contextlib.suppress(OSError):
                    data = conn.recv(4096)
                self.connections.append(data)

    @property
    def contacted(self) -> bool:
        """True once anything connected."""
        return bool(self.connections)

    def close(self) -> None:
        """Stop accepting."""
        _stop(self._sock, self._stop, self._thread)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class UdpListener:
    """Receives UDP datagrams on loopback and counts them."""

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._sock.bind((LOOPBACK, 0))
        self._sock.settimeout(0.2)
        self.port: int = self._sock.getsockname()[1]
        self.datagrams = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="probe-udp", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                self._sock.recv(65536)
            except (TimeoutError, OSError):
                continue
            self.datagrams += 1

    @property
    def contacted(self) -> bool:
        """True once a datagram arrived."""
        return self.datagrams > 0

    def close(self) -> None:
        """Stop receiving."""
        _stop(self._sock, self._stop, self._thread)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class HttpRecorder:
    """A loopback HTTP server recording requests by their first path segment (a nonce).

    GET answers with ``page <nonce-token>`` so that fetched content is recognisable.
    """

    def __init__(self) -> None:
        self.requests: dict[str, list[tuple[str, str, bytes]]] = defaultdict(list)
        self.pages: dict[str, str] = {}
        recorder = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def _record(self, body: bytes) -> str:
                nonce = self.path.lstrip("/").split("/", 1)[0]
                recorder.requests[nonce].append((self.command, self.path, body[:65536]))
                return nonce

            def do_GET(self) -> None:
                nonce = self._record(b"")
                self._reply(f"page {recorder.pages.get(nonce, nonce)}\n".encode())

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                nonce = self._record(self.rfile.read(min(length, 1 << 20)))
                self._reply(f"received {nonce}\n".encode())

            do_PUT = do_POST

            def _reply(self, body: bytes) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/plain")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self._server = http.server.ThreadingHTTPServer((LOOPBACK, 0), Handler)
        self._server.daemon_threads = True
        self.port: int = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True
        )
        self._thread.start()

    def contacted(self, nonce: str) -> bool:
        """True when a request for ``nonce`` arrived."""
        return bool(self.requests.get(nonce))

    def close(self) -> None:
        """Stop serving."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=2)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Decoy:
    """A sleeping child process whose command line is ``[name, *args]``."""

    def __init__(self, name: str = "probe-decoy") -> None:
        sleep = shutil.which("sleep")
        if sleep:
            argv, executable = [name, "600"], sleep
        else:
            argv, executable = [name, "-c", "import time; time.sleep(600)"], sys.executable
        self.name = name
        self._proc = subprocess.Popen(
            argv,
            executable=executable,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.pid = self._proc.pid
        self._stopped = False

    @property
    def killed(self) -> bool:
        """True when the decoy died and the runner did not stop it."""
        return not self._stopped and self._proc.poll() is not None

    def settle(self, seconds: float = 0.05) -> None:
        """Give a signal sent just now the time to land."""
        deadline = time.monotonic() + seconds
        while self._proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)

    def close(self) -> None:
        """Kill and reap the decoy (by its own pid)."""
        self._stopped = self._proc.poll() is None
        if self._stopped:
            self._proc.kill()
        self._proc.wait(timeout=5)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
