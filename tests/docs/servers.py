"""Programs of the documentation run as servers on loopback, for the tests of their
clients: started from the page's own command line, stopped (and waited for) after."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _accepting(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


@contextmanager
def serving(
    argv: Sequence[str],
    port: int,
    *,
    cwd: Path,
    env: Mapping[str, str] | None = None,
    start_timeout_s: float = 90,
) -> Iterator[subprocess.Popen[str]]:
    """Run ``argv`` until it accepts connections on ``port``; stop it with SIGTERM (its
    clean shutdown closes its sandbox), SIGKILL after 20 s."""
    log = cwd / f"server-{port}.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            list(argv), cwd=cwd, env={**os.environ, **(env or {})}, stdout=out,
            stderr=subprocess.STDOUT, text=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + start_timeout_s
        while not _accepting(port):
            assert server.poll() is None, f"the server exited: {log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"no server on {port}: {log.read_text()[-3000:]}"
            time.sleep(0.1)
        yield server
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(10)
