"""Real MCP servers for the tests: started as subprocesses, over stdio or HTTP."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'codeact[mcp]')")

SERVERS = Path(__file__).parent / "mcp_servers"
TRAVEL = [sys.executable, str(SERVERS / "travel.py")]
WEATHER = [sys.executable, str(SERVERS / "weather.py")]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextlib.contextmanager
def http_server(argv: list[str], port: int) -> Iterator[str]:
    """Start ``argv`` (which listens on ``port``); yield its MCP URL; stop it after."""
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"MCP server {argv} did not start listening on {port}")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.kill()
        process.wait(10)
