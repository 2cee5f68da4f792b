"""The OS layer on its own: the seccomp filter and the resource limits, in forked children.

Each test forks a child, confines it with ``sandbox.worker.confine.steps`` and reports what happened
through a pipe; the parent always reaps the child. The last tests look at a real
session's worker from the host, through /proc.
"""

from __future__ import annotations

import errno
import os
import platform
import secrets
import signal
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sandbox import Sandbox, SandboxPolicy
from sandbox.worker.confine import seccomp
from sandbox.worker.confine import steps as confine
from tests.sandbox.forked import attempt, in_child

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or platform.machine() not in ("x86_64", "aarch64"),
    reason="the seccomp filter has syscall tables for Linux x86_64 and aarch64 only",
)


def filtered(action: Callable[[], Any]) -> Callable[[], str]:
    def body() -> str:
        seccomp.install_syscall_filter()
        return attempt(action)

    return body


def fork_and_exit() -> None:
    if os.fork() == 0:  # pragma: no cover - only if the filter failed
        os._exit(0)
    os.wait()


PARENT = os.getpid()
DENIED = {
    "socket": lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM),
    "unix socketpair": socket.socketpair,
    "fork": fork_and_exit,
    "execv": lambda: os.execv("/bin/true", ["true"]),
    "kill parent": lambda: os.kill(PARENT, 0),
    "kill process group": lambda: os.kill(0, 0),
    "kill everyone": lambda: os.kill(-1, 0),
    "setsid": os.setsid,
    "setpgid": lambda: os.setpgid(0, 0),
    "clock_settime": lambda: time.clock_settime(time.CLOCK_MONOTONIC, 0.0),
}


@pytest.mark.timeout(30)
@pytest.mark.parametrize("action", list(DENIED.values()), ids=list(DENIED))
def test_filter_refuses(action: Callable[[], Any]) -> None:
    assert in_child(filtered(action)) == "EPERM"


def test_filter_refuses_threads() -> None:
    def body() -> list[Any]:
        ran: list[int] = []
        seccomp.install_syscall_filter()
        outcome = attempt(lambda: threading.Thread(target=ran.append, args=(1,)).start())
        time.sleep(0.05)
        return [outcome, ran]

    outcome, ran = in_child(body)
    assert outcome == "RuntimeError: can't start new thread"
    assert ran == []


def test_filter_keeps_ordinary_work() -> None:
    here = Path(__file__)

    def body() -> dict[str, Any]:
        read_end, write_end = os.pipe()
        seccomp.install_syscall_filter()
        os.write(write_end, b"ping")
        return {
            "compute": sum(i * i for i in range(10_000)),
            "pipe": os.read(read_end, 4).decode(),
            "new pipe": attempt(os.pipe),
            "kill self": attempt(lambda: os.kill(os.getpid(), 0)),
            "signal own thread": attempt(lambda: signal.pthread_kill(threading.get_ident(), 0)),
            "read a file": here.read_text().startswith('"""The OS layer'),
            "time": time.time() > 0 and time.process_time() >= 0,
            "random": len(os.urandom(16)),
        }

    assert in_child(body) == {
        "compute": sum(i * i for i in range(10_000)),
        "pipe": "ping",
        "new pipe": "ok",
        "kill self": "ok",
        "signal own thread": "ok",
        "read a file": True,
        "time": True,
        "random": 16,
    }


FS_WRITES = {
    "open for writing": lambda f: open(f, "w").close(),
    "open for appending": lambda f: open(f, "a").close(),
    "open read-write": lambda f: os.close(os.open(f, os.O_RDWR)),
    "create": lambda f: open(f.with_name("new"), "x").close(),
    "truncate": lambda f: os.truncate(f, 0),
    "rename": lambda f: os.rename(f, f.with_name("moved")),
    "unlink": os.unlink,
    "mkdir": lambda f: os.mkdir(f.with_name("dir")),
    "symlink": lambda f: os.symlink(f, f.with_name("link")),
    "hard link": lambda f: os.link(f, f.with_name("link")),
    "chmod": lambda f: os.chmod(f, 0o777),
    "utime": lambda f: os.utime(f, (0, 0)),
}


@pytest.mark.parametrize("action", list(FS_WRITES.values()), ids=list(FS_WRITES))
def test_filter_refuses_file_system_changes(tmp_path: Path, action: Callable[[Path], Any]) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    before = victim.stat()
    assert in_child(filtered(lambda: action(victim))) == "EPERM"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["victim.txt"]
    assert victim.read_text() == "precious"
    after = victim.stat()
    assert (after.st_mode, after.st_mtime_ns) == (before.st_mode, before.st_mtime_ns)


def test_filter_with_file_writes_keeps_the_rest(tmp_path: Path) -> None:
    target = tmp_path / "written.txt"

    def body() -> list[str]:
        seccomp.install_syscall_filter(file_writes=True)
        return [
            attempt(lambda: target.write_bytes(b"")),
            attempt(lambda: os.mkdir(tmp_path / "dir")),
            attempt(socket.socket),
            attempt(lambda: os.kill(PARENT, 0)),
        ]

    assert in_child(body) == ["ok", "ok", "EPERM", "EPERM"]
    assert target.exists()


def test_filter_allows_reading_files(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("readable")
    assert in_child(filtered(lambda: victim.read_text())) == "ok"


def _vm_size() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmSize:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmSize in /proc/self/status")


def test_rlimit_as_refuses_a_gigabyte() -> None:
    def body() -> list[str]:
        headroom = (_vm_size() >> 20) + 256
        confine.apply_rlimits({"memory_mb": headroom, "session_cpu_s": 60})
        small = attempt(lambda: bytearray(16 << 20))
        large = attempt(lambda: bytearray(1 << 30))
        return [small, large]

    small, large = in_child(body)
    assert small == "ok"
    assert large.startswith("MemoryError")


def test_rlimit_fsize_refuses_writing(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"

    def body() -> list[Any]:
        fd = os.open(target, os.O_WRONLY | os.O_CREAT, 0o600)
        confine.apply_rlimits({"memory_mb": (_vm_size() >> 20) + 256, "session_cpu_s": 60})
        try:
            os.write(fd, b"x" * 100)
        except OSError as exc:
            return [exc.errno]
        finally:
            os.close(fd)
        return ["written"]

    assert in_child(body) == [errno.EFBIG]
    assert target.stat().st_size == 0


def test_rlimits_are_set() -> None:
    def body() -> dict[str, list[int]]:
        confine.apply_rlimits({"memory_mb": (_vm_size() >> 20) + 256, "session_cpu_s": 7})
        import resource

        names = ["RLIMIT_CPU", "RLIMIT_FSIZE", "RLIMIT_NPROC", "RLIMIT_CORE", "RLIMIT_NOFILE"]
        return {name: list(resource.getrlimit(getattr(resource, name))) for name in names}

    assert in_child(body) == {
        "RLIMIT_CPU": [7, 8],
        "RLIMIT_FSIZE": [0, 0],
        "RLIMIT_NPROC": [0, 0],
        "RLIMIT_CORE": [0, 0],
        "RLIMIT_NOFILE": [32, 32],
    }


# -- a real worker, seen from the host -------------------------------------------------


def _status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return dict(line.split(":\t", 1) for line in lines if ":\t" in line)


def _parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def test_real_worker_is_confined(monkeypatch: pytest.MonkeyPatch) -> None:
    token = secrets.token_hex(16)
    monkeypatch.setenv("CODEACT_TEST_SECRET", token)
    with Sandbox(SandboxPolicy.preset("strict"), spares=0) as sb, sb.session() as session:
        assert session.run("x = 1").error_code is None
        worker = session.pid
        assert worker is not None
        status = _status(worker)
        worker_environ = Path(f"/proc/{worker}/environ").read_bytes()
        zygote = _parent(worker)
        zygote_environ = Path(f"/proc/{zygote}/environ").read_bytes()
        report = dict(sb.confinement)
    assert status["Seccomp"].strip() == "2"
    assert status["NoNewPrivs"].strip() == "1"
    assert worker_environ == b""
    assert token.encode() not in zygote_environ
    assert b"CODEACT_TEST_SECRET" not in zygote_environ
    for mechanism in ("process_group", "environment", "rlimits", "syscall_filter"):
        assert report[mechanism] == "active", report
