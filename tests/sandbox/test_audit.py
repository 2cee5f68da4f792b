"""The audit hook: library code's opens, sockets and processes under the language
layer, checked in a forked child (the hook cannot be removed once added)."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from sandbox.worker.language import audit
from tests.sandbox.forked import in_child

# The opens below are what the hook decides on; the child exits right after.
# ruff: noqa: SIM115


def _hooked(mounts: list[dict[str, object]], action: object) -> str:
    def child() -> str:
        audit.install(mounts)
        try:
            action()  # type: ignore[operator]
        except PermissionError as exc:
            return f"refused: {exc}"
        return "allowed"

    return str(in_child(child))


class Liar(str):
    """A path whose string methods describe another one."""

    def split(self, *args: object, **kwargs: object) -> list[str]:  # type: ignore[override]
        return "/data/x".split(*args, **kwargs)  # type: ignore[arg-type]

    def startswith(self, *args: object) -> bool:  # type: ignore[override]
        return True


class Shifty:
    """A path-like object that names a different file each time it is asked."""

    def __init__(self, real: str) -> None:
        self.calls, self.real = 0, real

    def __fspath__(self) -> str:
        self.calls += 1
        return "/" if self.calls == 1 else self.real


@pytest.mark.timeout(30)
def test_paths_outside_the_mounts_are_refused(tmp_path: Path) -> None:
    ro, rw = tmp_path / "ro", tmp_path / "rw"
    ro.mkdir()
    rw.mkdir()
    (ro / "x.txt").write_text("x")
    (tmp_path / "secret.txt").write_text("s")
    (rw / "out-link").symlink_to(tmp_path / "secret.txt")
    mounts = [
        {"sandbox_path": "/data", "host_path": str(ro), "mode": "ro", "max_bytes": 0},
        {"sandbox_path": "/out", "host_path": str(rw), "mode": "rw", "max_bytes": 1 << 20},
    ]
    assert _hooked(mounts, lambda: open(ro / "x.txt").read()) == "allowed"
    assert _hooked(mounts, lambda: open(rw / "new.txt", "w").write("y")) == "allowed"
    assert _hooked(mounts, lambda: os.listdir(ro)) == "allowed"
    refused = {
        "read outside": lambda: open(tmp_path / "secret.txt").read(),
        "write to ro": lambda: open(ro / "y.txt", "w"),
        "os.open write to ro": lambda: os.open(ro / "z.txt", os.O_WRONLY | os.O_CREAT),
        "symlink out": lambda: open(rw / "out-link").read(),
        "remove in ro": lambda: os.remove(ro / "x.txt"),
        "listdir outside": lambda: os.listdir(tmp_path),
        "socket": lambda: socket.socket(),
        "process": lambda: subprocess.run(["true"], check=False),
        "str subclass": lambda: open(Liar(str(tmp_path / "secret.txt"))).read(),
        "path-like": lambda: open(Shifty(str(tmp_path / "secret.txt"))).read(),
    }
    for name, action in refused.items():
        assert _hooked(mounts, action).startswith("refused: "), name
    assert (ro / "x.txt").exists() and not (ro / "y.txt").exists()
