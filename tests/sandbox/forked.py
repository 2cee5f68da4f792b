"""Running a test body in a forked child: confinement is irreversible, so it is tried
there, and the parent always reaps the child."""

from __future__ import annotations

import errno
import json
import os
import signal
import time
from collections.abc import Callable
from typing import Any


def in_child(body: Callable[[], Any], timeout: float = 20.0) -> Any:
    """Run ``body`` in a forked child and return what it returned (JSON)."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns to pytest
        try:
            os.close(read_end)
            try:
                payload = {"value": body()}
            except BaseException as exc:
                payload = {"crash": f"{type(exc).__name__}: {exc}"}
            data = json.dumps(payload).encode()
            while data:
                data = data[os.write(write_end, data) :]
        finally:
            os._exit(0)
    os.close(write_end)
    chunks = []
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            chunk = os.read(read_end, 65536)
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(read_end)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, status = os.waitpid(pid, 0)
    raw = b"".join(chunks)
    assert raw, f"the child reported nothing (wait status {status})"
    report = json.loads(raw)
    assert "crash" not in report, report["crash"]
    return report["value"]


def attempt(action: Callable[[], Any]) -> str:
    try:
        action()
    except PermissionError as exc:
        return "EPERM" if exc.errno == errno.EPERM else f"PermissionError({exc.errno})"
    except BaseException as exc:
        return f"{type(exc).__name__}: {exc}"
    return "ok"
