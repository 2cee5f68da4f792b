"""The tmpfs of a writable mount's private layer is memory: it is counted in the worker's
memory limit, and none of it outlives the worker that wrote it."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sandbox import ErrorCode, FinalResult, Mount, Sandbox, SandboxError, SandboxPolicy, Session
from tests.confinement import degraded

MIB = 1024 * 1024


def staged_policy(out: Path, max_bytes: int, memory_mb: int = 512) -> SandboxPolicy:
    return (
        SandboxPolicy.preset("default")
        .with_layers(language=False)
        .with_mounts(Mount(sandbox_path="/out", host_path=str(out), mode="rw", max_bytes=max_bytes))
        .with_limits(wall_s=5, memory_mb=memory_mb)
    )


@pytest.fixture()
def out(tmp_path: Path) -> Path:
    directory = tmp_path / "out"
    directory.mkdir()
    (directory / "existing.bin").write_bytes(b"e" * 300_000)
    return directory


def active(sandbox: Sandbox) -> None:
    staging = sandbox.confinement["private_writes"]
    if not staging.startswith("active"):
        sandbox.close()
        degraded(f"private writes are degraded here: {staging}")


def test_the_copy_and_the_address_space_share_the_memory_limit(out: Path) -> None:
    with Sandbox(staged_policy(out, 32 * MIB)) as sandbox, sandbox.session() as session:
        active(sandbox)
        assert "MiB of the memory limit" in sandbox.confinement["private_writes"]
        ex = session.run(
            f"import os, resource\nst = os.statvfs({str(out)!r})\n"
            "final_result([resource.getrlimit(resource.RLIMIT_AS)[0], st.f_blocks * st.f_frsize])"
        )
        assert isinstance(ex.output, FinalResult)
        address_space, tmpfs = ex.output.value
        assert tmpfs >= 32 * MIB + 300_000  # the budget and the copy fit
        assert address_space + tmpfs <= 512 * MIB


def test_copies_too_big_for_the_memory_limit_are_not_made_and_say_why(out: Path) -> None:
    probe = Sandbox(staged_policy(out, 0)).start()
    try:
        active(probe)
        supervisor = probe._supply._supervisor if probe._supply is not None else None
        floor = supervisor.zygote.vm_size if supervisor is not None else 0
    finally:
        probe.close()
    memory_mb = (floor + 64 * MIB) // MIB + 1
    with Sandbox(staged_policy(out, 100 * MIB, memory_mb=memory_mb)) as sandbox:
        # No fail-open: a session whose mounts cannot be private does not start.
        with pytest.raises(SandboxError, match="cannot be made private") as refused:
            sandbox.session()
        assert "the private layers of the writable mounts" in str(refused.value)
        assert "limits.memory_mb" in str(refused.value)


def _shmem() -> int:
    with open("/proc/meminfo") as meminfo:
        for line in meminfo:
            if line.startswith("Shmem:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no Shmem line in /proc/meminfo")


def _released(level: int, margin: int) -> bool:
    """True once Shmem is ``margin`` below ``level`` (within a few seconds)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        if _shmem() <= level - margin:
            return True
        time.sleep(0.05)
    return False


def _namespaces_alive(inode: int) -> list[str]:
    holders = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.stat(f"/proc/{pid}/ns/mnt").st_ino == inode:
                holders.append(pid)
        except OSError:
            continue
    return holders


SPIN = "\nwhile True:\n    pass"
WRITE_40_MIB = (
    "import os\nfd = os.open({path!r}, os.O_WRONLY | os.O_CREAT)\n"
    "for _ in range(40):\n    os.write(fd, b'x' * (1 << 20))\nos.close(fd)"
)


@pytest.fixture()
def big(out: Path) -> Iterator[Sandbox]:
    with Sandbox(staged_policy(out, 64 * MIB)) as sandbox:
        active(sandbox)
        yield sandbox


def _frees_its_pages(write: Callable[[], None], release: Callable[[], None]) -> bool:
    """True when what ``write`` puts in a copy leaves the machine's Shmem after
    ``release``. Shmem is machine-wide, so an attempt disturbed by another process's
    shared memory (the copy's 40 MiB not seen, or not seen going) is tried again."""
    for _ in range(3):
        before = _shmem()
        write()
        held = _shmem()
        release()
        if held - before >= 30 * MIB and _released(held, 30 * MIB):
            return True
    return False


def test_no_tmpfs_page_outlives_the_session(big: Sandbox, out: Path) -> None:
    namespaces: list[int] = []
    sessions: list[Session] = []

    def write() -> None:
        (out / "big.bin").unlink(missing_ok=True)
        session = big.session()
        sessions.append(session)
        assert session.pid is not None
        namespaces.append(os.stat(f"/proc/{session.pid}/ns/mnt").st_ino)
        ex = session.run(WRITE_40_MIB.format(path=str(out / "big.bin")))
        assert ex.ok, ex.output

    assert _frees_its_pages(write, lambda: sessions[-1].close())
    assert all(_namespaces_alive(inode) == [] for inode in namespaces)
    assert (out / "big.bin").stat().st_size == 40 * MIB


def test_a_killed_worker_lets_its_copy_go_at_once(big: Sandbox, out: Path) -> None:
    # The run writes 40 MiB, then is killed at the wall clock: what it wrote is applied
    # and the copy freed before run() returns, while the session is still open (were
    # it kept, Shmem would stay 40 MiB up until the session ends). Each attempt has a
    # session of its own; another is made if other processes disturb the figure.
    for _ in range(3):
        (out / "big.bin").unlink(missing_ok=True)  # else the next worker's copy holds it
        with big.session() as session:
            before = _shmem()
            ex = session.run(WRITE_40_MIB.format(path=str(out / "big.bin")) + SPIN)
            assert ex.error_code == ErrorCode.TIMEOUT
            assert (out / "big.bin").stat().st_size == 40 * MIB
            if _released(before + 40 * MIB, 20 * MIB):
                return
    pytest.fail("the killed worker's copy stayed in memory while its session lived")
