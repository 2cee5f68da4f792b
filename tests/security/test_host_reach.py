"""With the language layer off, plain Python in a worker must not reach the host process
or the metadata of host files outside the mounts.

Attacks on the host process (limits, priority, CPUs, scheduling policy) are aimed at a
host that is its own Python process, so that a successful attack (a hard limit lowered
needs CAP_SYS_RESOURCE to undo) cannot break the test run: that host starts a sandbox,
passes its pid to the script, then reports from its side what changed and whether it
can still write a file. File attacks are aimed at files of this test outside the mounts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import Mount, Sandbox, SandboxPolicy
from sandbox.probe.hoststate import FileMeta, Opener

ROOT = Path(__file__).resolve().parents[2]
POLICY = SandboxPolicy.preset("default").with_layers(language=False)

HOST = """
import json, os, sys
sys.path.insert(0, sys.argv[1])
from sandbox import Sandbox, SandboxPolicy
from sandbox.probe.hoststate import HostProcess

policy = SandboxPolicy.preset("default").with_layers(language=False)
before = HostProcess.now()
with Sandbox(policy, spares=0) as sandbox, sandbox.session() as session:
    execution = session.run(sys.argv[2].replace("HOST_PID", str(os.getpid())))
changes = before.changes(HostProcess.now())
try:
    with open(sys.argv[3], "w") as f:
        f.write("the host still writes files\\n")
    wrote = "ok"
except OSError as exc:
    wrote = exc.strerror
print(json.dumps({"changes": changes, "wrote": wrote, "output": str(execution.output)}))
"""

ON_THE_HOST = {
    "prlimit NOFILE": "resource.prlimit(HOST_PID, resource.RLIMIT_NOFILE, (16, 16))",
    "prlimit FSIZE": "resource.prlimit(HOST_PID, resource.RLIMIT_FSIZE, (0, 0))",
    "setpriority": "os.setpriority(os.PRIO_PROCESS, HOST_PID, 7)",
    "sched_setaffinity": "os.sched_setaffinity(HOST_PID, {min(os.sched_getaffinity(0))})",
    "sched_setscheduler": "os.sched_setscheduler(HOST_PID, os.SCHED_IDLE, os.sched_param(0))",
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("attack", list(ON_THE_HOST.values()), ids=list(ON_THE_HOST))
def test_the_worker_cannot_change_the_host_process(tmp_path: Path, attack: str) -> None:
    if "affinity" in attack and len(os.sched_getaffinity(0)) < 2:
        pytest.skip("one CPU: a changed affinity could not be told apart")
    script = f"import os, resource\n{attack}\n"
    written = tmp_path / "written.txt"
    done = subprocess.run(
        [sys.executable, "-c", HOST, str(ROOT), script, str(written)],
        capture_output=True,
        text=True,
        timeout=50,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout)
    assert report["changes"] == [], report
    assert report["wrote"] == "ok", report
    assert written.read_text() == "the host still writes files\n"
    assert "PermissionError" in report["output"], report["output"]


FANOTIFY = """
import ctypes, os, select, struct, time
libc = ctypes.CDLL(None, use_errno=True)
libc.fanotify_mark.argtypes = [
    ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int, ctypes.c_char_p
]
fd = libc.fanotify_init(0x04, os.O_RDONLY)  # FAN_CLASS_CONTENT
marked = -1
if fd >= 0:  # FAN_MARK_ADD, FAN_OPEN_PERM
    marked = libc.fanotify_mark(fd, 0x01, 0x10000, -100, WATCHED.encode())
deadline = time.monotonic() + 1.5
while marked == 0 and time.monotonic() < deadline:
    if select.select([fd], [], [], 0.1)[0]:
        data = os.read(fd, 4096)
        while len(data) >= 24:
            length, _, _, _, _, event_fd, _ = struct.unpack("=IBBHQiI", data[:24])
            os.write(fd, struct.pack("=iI", event_fd, 0x02))  # FAN_DENY
            os.close(event_fd)
            data = data[length:]
print("fanotify", fd, marked, ctypes.get_errno())
"""


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "outside" / "host-file.txt"
    path.parent.mkdir()
    path.write_text("the host's file\n")
    yield path


@pytest.mark.timeout(60)
def test_fanotify_cannot_block_the_hosts_opens(outside: Path) -> None:
    with Sandbox(POLICY, spares=0) as sandbox, sandbox.session() as session:
        opener = Opener(outside)
        try:
            execution = session.run(FANOTIFY.replace("WATCHED", repr(str(outside))))
        finally:
            session.kill()  # a mark left behind would hold the host's opens
    opener.close()
    assert opener.failures == [], opener.failures
    assert "fanotify -1 -1 1" in str(execution.output), execution.output
    os.close(os.open(outside, os.O_RDONLY))


METADATA = {
    "chmod": "os.chmod(PATH, 0o777)",
    "chown": "os.chown(PATH, os.stat(PATH).st_uid, os.stat(PATH).st_gid)",
    "utime": "os.utime(PATH, (0, 0))",
    "setxattr": "os.setxattr(PATH, 'user.probe', b'written')",
    "removexattr": "os.removexattr(PATH, 'user.kept')",
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("attack", list(METADATA.values()), ids=list(METADATA))
def test_metadata_outside_a_writable_mount_is_unchanged(
    tmp_path: Path, outside: Path, attack: str
) -> None:
    try:
        os.setxattr(outside, "user.kept", b"host")
    except OSError as exc:
        pytest.skip(f"no user xattrs on this file system: {exc.strerror}")
    (tmp_path / "rw").mkdir()
    policy = POLICY.with_mounts(
        Mount(sandbox_path="/out", host_path=str(tmp_path / "rw"), mode="rw")
    )
    before = FileMeta.of(outside)
    with Sandbox(policy, spares=0) as sandbox, sandbox.session() as session:
        execution = session.run(f"import os\n{attack.replace('PATH', repr(str(outside)))}\n")
    assert FileMeta.of(outside) == before
    # Refused by the filter, or (inside the minimal root) the file does not exist there.
    assert any(
        e in str(execution.output) for e in ("PermissionError", "FileNotFoundError")
    ), execution.output


#: Host files that do exist inside the worker's minimal root (bound read-only).
INSIDE_THE_ROOT = {
    "/dev/null": os.devnull,
    "the interpreter": os.path.realpath(sys.executable),
    "the standard library": os.__file__,
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("path", list(INSIDE_THE_ROOT.values()), ids=list(INSIDE_THE_ROOT))
def test_metadata_of_host_files_inside_the_minimal_root_is_unchanged(
    tmp_path: Path, path: str
) -> None:
    """Metadata calls are allowed when nothing outside the mounts exists; what the
    minimal root does show of the host (its binds) must still refuse them."""
    (tmp_path / "rw").mkdir()
    policy = POLICY.with_mounts(
        Mount(sandbox_path="/out", host_path=str(tmp_path / "rw"), mode="rw")
    )
    before = FileMeta.of(Path(path))
    attack = (
        "import os\nres = []\n"
        "for call in (lambda: os.chmod(P, 0o777), lambda: os.utime(P, (1, 1)),\n"
        "             lambda: os.setxattr(P, 'user.x', b'1')):\n"
        "    try:\n        call()\n        res.append('done')\n"
        "    except OSError as exc:\n        res.append(type(exc).__name__)\n"
        "print(res)\n"
    ).replace("P", repr(path))
    try:
        with Sandbox(policy, spares=0) as sandbox, sandbox.session() as session:
            execution = session.run(attack)
        assert "done" not in execution.stdout, execution.stdout
        assert FileMeta.of(Path(path)) == before
    finally:
        # Put a changed mode back; an unprivileged host could not chmod these files anyway.
        after = FileMeta.of(Path(path))
        if before is not None and after is not None and after.mode != before.mode:
            os.chmod(path, before.mode & 0o7777)
