"""The worker's own namespaces and minimal root, attacked as plain Python (language
layer off, real ``os`` and ``ctypes``) and judged from the host.

Without them a worker reads the host's SysV shared memory, takes its messages, leaves
segments behind, names host processes, sees the host's hostname and network, and can
stat any host path. Each test tries that for real and checks the host afterwards.
"""

from __future__ import annotations

import ctypes
import json
import os
import secrets
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import Execution, Mount, Sandbox, SandboxPolicy
from sandbox.probe.sysv import IPC_CREAT, SysvBait

POLICY = SandboxPolicy.preset("default").with_layers(language=False)
_libc = ctypes.CDLL(None, use_errno=True)

PRELUDE = """
import ctypes, json, os
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
FAILED = (None, ctypes.c_void_p(-1).value)
buf = ctypes.create_string_buffer(512)
"""


@pytest.fixture(scope="module")
def sandbox(full_os_layer: None) -> Iterator[Sandbox]:
    with Sandbox(POLICY, spares=0) as sb:
        yield sb


def run(sb: Sandbox, source: str) -> Execution:
    with sb.session() as session:
        return session.run(PRELUDE + source)


def printed(execution: Execution) -> dict[str, object]:
    """The JSON the script printed last (it must have run to its end)."""
    assert execution.error_code is None, execution.output
    lines = execution.stdout.strip().splitlines()
    assert lines, execution
    value = json.loads(lines[-1])
    assert isinstance(value, dict)
    return value


@pytest.fixture()
def bait() -> Iterator[SysvBait]:
    made = SysvBait()
    try:
        yield made
    finally:
        made.close()


def test_the_hosts_shared_memory_cannot_be_listed_or_attached(
    sandbox: Sandbox, bait: SysvBait
) -> None:
    execution = run(
        sandbox,
        f"""
SHM_STAT, SHM_INFO, SHM_RDONLY = 13, 14, 0o10000
seen = []
top = libc.shmctl(0, SHM_INFO, buf)
for index in range(max(top, 0) + 1):
    sid = libc.shmctl(index, SHM_STAT, buf)
    if sid >= 0:
        seen.append(sid)
for sid in {{*seen, {bait.shm_id}}}:
    address = libc.shmat(sid, None, SHM_RDONLY)
    if address not in FAILED:
        print(ctypes.string_at(address, 64))
print(json.dumps({{"top": top, "listed": len(seen)}}))
""",
    )
    assert bait.secret not in execution.model_dump_json()
    assert printed(execution)["listed"] == 0


def test_the_hosts_message_queue_cannot_be_read(sandbox: Sandbox, bait: SysvBait) -> None:
    execution = run(
        sandbox,
        f"""
MSG_STAT, MSG_INFO, IPC_NOWAIT = 11, 12, 0o4000
ids = {{{bait.msq_id}}}
top = libc.msgctl(0, MSG_INFO, buf)
for index in range(max(top, 0) + 1):
    qid = libc.msgctl(index, MSG_STAT, buf)
    if qid >= 0:
        ids.add(qid)
got = [libc.msgrcv(qid, buf, 256, 0, IPC_NOWAIT) for qid in ids]
print(buf.raw[8:80])
print(json.dumps({{"received": [n for n in got if n >= 0], "queues": len(ids)}}))
""",
    )
    assert not bait.message_taken()
    assert bait.message not in execution.model_dump_json()
    assert printed(execution)["received"] == []


def _exists(key: int, *, remove: bool = False) -> list[str]:
    """The SysV objects with ``key`` in the host's IPC namespace (removed if asked)."""
    found = []
    for name, ident, rmid in (
        ("segment", _libc.shmget(key, 0, 0), _libc.shmctl),
        ("queue", _libc.msgget(key, 0), _libc.msgctl),
    ):
        if ident >= 0:
            found.append(f"{name} {ident}")
            if remove:
                rmid(ident, 0, None)  # IPC_RMID
    return found


def test_what_a_worker_creates_dies_with_it(sandbox: Sandbox) -> None:
    key = secrets.randbelow(1 << 30) + 1
    execution = run(
        sandbox,
        f"""
shm = libc.shmget({key}, 768 * 1024 * 1024, {IPC_CREAT} | 0o600)
msq = libc.msgget({key}, {IPC_CREAT} | 0o600)
print(json.dumps({{"shm": shm, "msq": msq}}))
""",
    )
    made = printed(execution)
    deadline = time.monotonic() + 5
    while (left := _exists(key)) and time.monotonic() < deadline:
        time.sleep(0.05)
    _exists(key, remove=True)
    assert left == [], f"the worker's SysV objects outlived it: {left} (it made {made})"


def test_sessions_do_not_share_sysv_objects(sandbox: Sandbox) -> None:
    key = secrets.randbelow(1 << 30) + 1
    token = secrets.token_hex(8)
    with sandbox.session() as first, sandbox.session() as second:
        made = first.run(
            PRELUDE
            + f"""
sid = libc.shmget({key}, 4096, {IPC_CREAT} | 0o600)
errno = ctypes.get_errno()
if sid >= 0:
    address = libc.shmat(sid, None, 0)
    if address not in FAILED:
        ctypes.memmove(address, b"{token}", {len(token)})
print(json.dumps({{"sid": sid, "errno": errno}}))
"""
        )
        created = printed(made)
        # The syscall filter refuses SysV IPC outright; where it lets a segment be made,
        # the IPC namespace must still keep it from the other session.
        assert created["sid"] >= 0 or created["errno"] == 1, created
        other = second.run(
            PRELUDE
            + f"""
sid = libc.shmget({key}, 0, 0)
if sid >= 0:
    print(ctypes.string_at(libc.shmat(sid, None, 0o10000), 16))
print(json.dumps({{"sid": sid}}))
"""
        )
    assert token not in other.model_dump_json()
    assert printed(other)["sid"] == -1


def test_host_processes_do_not_exist_for_the_worker(sandbox: Sandbox) -> None:
    host = os.getpid()
    execution = run(
        sandbox,
        f"""
import resource
answers = {{}}
for name, call in [
    ("getsid", lambda: os.getsid({host})),
    ("getpgid", lambda: os.getpgid({host})),
    ("prlimit", lambda: resource.prlimit({host}, resource.RLIMIT_NOFILE)),
    ("getpriority", lambda: os.getpriority(os.PRIO_PROCESS, {host})),
    ("affinity", lambda: sorted(os.sched_getaffinity({host}))),
    ("kill0", lambda: os.kill({host}, 0)),
    ("proc", lambda: os.stat("/proc/{host}")),
]:
    try:
        answers[name] = repr(call())
    except OSError as exc:
        answers[name] = exc.errno
print(json.dumps(answers))
""",
    )
    answers = printed(execution)
    reached = {name: value for name, value in answers.items() if isinstance(value, str)}
    assert reached == {}, f"the worker reached host pid {host}: {reached}"


def _ns(pid: int | str, kind: str) -> str:
    return os.readlink(f"/proc/{pid}/ns/{kind}")


def test_the_worker_lives_in_its_own_namespaces(sandbox: Sandbox) -> None:
    states = sandbox.confinement
    with sandbox.session() as session:
        execution = session.run(
            "import os, socket, json\n"
            "print(json.dumps({'host': socket.gethostname(), 'uid': os.getuid()}))"
        )
        worker = session.pid
        assert worker is not None
        own = {kind: _ns(worker, kind) for kind in ("ipc", "pid", "net", "uts", "mnt", "user")}
        uid_map = Path(f"/proc/{worker}/uid_map").read_text().split()
        net_dev = Path(f"/proc/{worker}/net/dev").read_text()
        etc = sorted(os.listdir(f"/proc/{worker}/root/etc"))
        top = set(os.listdir(f"/proc/{worker}/root"))
    shared = [kind for kind, name in own.items() if name == _ns("self", kind)]
    assert shared == [], f"the worker shares the host's {shared} namespaces ({states})"
    answers = printed(execution)
    assert answers["host"] != socket.gethostname() and answers["host"] == "sandbox"
    assert answers["uid"] == 65534 and uid_map == ["65534", str(os.getuid()), "1"]
    interfaces = [line.split(":")[0].strip() for line in net_dev.splitlines()[2:]]
    assert interfaces == ["lo"]
    # The worker's root, seen from the host: the loader's cache is all of /etc.
    assert etc == (["ld.so.cache"] if os.path.exists("/etc/ld.so.cache") else [])
    assert not top & {"home", "root", "proc", "sys", "srv", "boot"} - {
        p.split("/")[1] for p in sys.path if p.startswith("/")
    }


def test_nothing_outside_the_mounts_exists(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("outside the mounts\n")
    data = tmp_path / "data"
    data.mkdir()
    (data / "in.txt").write_text("mounted\n")
    policy = POLICY.with_mounts(Mount(sandbox_path="/data", host_path=str(data)))
    before = secret.stat()
    with Sandbox(policy, spares=0) as sb, sb.session() as session:
        execution = session.run(
            PRELUDE
            + f"""
answers = {{}}
for path in ["/etc/passwd", "/etc/hostname", "/home", {str(secret)!r}]:
    try:
        answers[path] = repr(os.stat(path))
    except OSError as exc:
        answers[path] = exc.errno
for name, call in [
    ("chmod", lambda: os.chmod({str(secret)!r}, 0o777)),
    ("utime", lambda: os.utime({str(secret)!r}, (1, 1))),
]:
    try:
        answers[name] = repr(call())
    except OSError as exc:
        answers[name] = exc.errno
answers["mounted"] = open({str(data / "in.txt")!r}).read()
print(json.dumps(answers))
"""
        )
    answers = printed(execution)
    assert answers.pop("mounted") == "mounted\n"
    reached = {name: value for name, value in answers.items() if isinstance(value, str)}
    assert reached == {}, reached
    after = secret.stat()
    assert (after.st_mode, after.st_mtime_ns) == (before.st_mode, before.st_mtime_ns)
