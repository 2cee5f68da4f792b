"""The host's reading and applying of a session's private layer, driven directly on two
directories: a "layer" shaped as a hostile script could (links, special files, depth,
races run by a real process that is never stopped) and the "real" directory the host
writes. The layer is read as an overlay's upper layer (whiteouts, opaque directories)
or as a staged copy (compared with what it held at the start)."""

from __future__ import annotations

import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox.host.writes import dirfd
from sandbox.host.writes.layer import StagedCopy
from sandbox.host.writes.private import _Mount
from sandbox.host.writes.still import task_states, wait_still

LONG = "n" * 250


class Harness:
    """A private mount whose layer is a plain directory of the test."""

    def __init__(self, layer: Path, real: Path, max_bytes: int = 1 << 20) -> None:
        self.layer, self.real = layer, real
        mount = {"host_path": str(real), "sandbox_path": "/out", "max_bytes": max_bytes}
        self.mount = _Mount(mount)
        self.mount.host = os.open(real, dirfd.DIR_FLAGS)
        self.mount.layer = os.open(layer, dirfd.DIR_FLAGS)

    def staged(self) -> Harness:
        """Read the layer as a staged copy from now on."""
        assert self.mount.layer is not None
        self.mount.staged = StagedCopy(self.mount.layer)
        return self

    def overdrawn(self) -> str | None:
        return self.mount.overdrawn(self.mount.read())

    def cycle(self) -> list[str]:
        reading = self.mount.read()
        assert self.mount.overdrawn(reading) is None
        _, problems = self.mount.apply(reading)
        return problems

    def close(self) -> None:
        self.mount.close()


@pytest.fixture()
def dirs(tmp_path: Path) -> Iterator[tuple[Path, Path, Path]]:
    copy, real, outside = tmp_path / "layer", tmp_path / "real", tmp_path / "outside"
    for directory in (copy, real, outside):
        directory.mkdir()
    (outside / "victim.txt").write_text("must survive")
    yield copy, real, outside


@pytest.fixture(params=[True, False], ids=["openat2", "nofollow-walk"])
def harness(
    request: pytest.FixtureRequest,
    dirs: tuple[Path, Path, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[Harness]:
    if not request.param:
        monkeypatch.setattr(dirfd, "_have_openat2", False)
    copy, real, _ = dirs
    h = Harness(copy, real)
    yield h
    h.close()


def snapshot(root: Path) -> dict[str, tuple[str, bytes]]:
    found: dict[str, tuple[str, bytes]] = {}
    for top, dirnames, filenames, fd in os.fwalk(root):
        for name in [*dirnames, *filenames]:
            info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            kind = dirfd.kind_of(info.st_mode)
            data = b""
            if kind == "file":
                with open(os.open(name, os.O_RDONLY, dir_fd=fd), "rb") as file:
                    data = file.read()
            found[os.path.join(top, name)] = (kind, data)
    return found


def test_links_and_special_files_in_the_copy_are_refused(
    harness: Harness, dirs: tuple[Path, Path, Path]
) -> None:
    copy, real, outside = dirs
    (copy / "to-outside").symlink_to(outside)
    (copy / "to-victim").symlink_to(outside / "victim.txt")
    os.mkfifo(copy / "pipe")
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(copy / "sock"))
    (copy / "plain").write_text("plain")
    problems = harness.cycle()
    for name, kind in [
        ("to-outside", "symbolic link"),
        ("to-victim", "symbolic link"),
        ("pipe", "named pipe"),
        ("sock", "socket"),
    ]:
        assert f"/out: writing {name}: a {kind}, which is not applied" in problems
    assert sorted(p.name for p in real.iterdir()) == ["plain"]
    assert harness.cycle() == []  # said once


def test_a_link_on_the_host_is_never_descended_nor_removed_through(
    harness: Harness, dirs: tuple[Path, Path, Path]
) -> None:
    copy, real, outside = dirs
    (real / "d").symlink_to(outside)
    (copy / "d").mkdir()
    (copy / "d" / "victim.txt").write_text("decoy")
    problems = harness.cycle()
    assert "/out: writing d: a symbolic link on the host" in problems
    assert "/out: writing d/victim.txt: d was not applied" in problems
    (copy / "d" / "victim.txt").unlink()
    (copy / "d").rmdir()
    harness.cycle()
    assert (outside / "victim.txt").read_text() == "must survive"
    assert (real / "d").is_symlink()


def test_a_removal_removes_a_link_the_host_put_there_never_its_target(
    harness: Harness, dirs: tuple[Path, Path, Path]
) -> None:
    copy, real, outside = dirs
    (copy / "x").write_text("file")
    harness.cycle()
    (real / "x").unlink()
    (real / "x").symlink_to(outside / "victim.txt")
    (copy / "x").unlink()
    assert harness.cycle() == []
    assert not (real / "x").exists() and not (real / "x").is_symlink()
    assert (outside / "victim.txt").read_text() == "must survive"


def test_paths_beyond_path_max_are_applied_and_removed(harness: Harness, dirs: tuple) -> None:
    copy, real, _ = dirs
    deep = copy.joinpath(*[LONG] * 20)
    assert len(str(deep)) > 4096
    fd = os.open(copy, os.O_RDONLY)
    for _ in range(20):
        os.mkdir(LONG, dir_fd=fd)
        fd, old = os.open(LONG, os.O_RDONLY, dir_fd=fd), fd
        os.close(old)
    file = os.open("bottom.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
    os.write(file, b"deep")
    os.close(file)
    assert harness.cycle() == []
    assert ("file", b"deep") in snapshot(real).values()
    os.unlink("bottom.txt", dir_fd=fd)
    os.close(fd)
    assert harness.cycle() == []
    assert ("file", b"deep") not in snapshot(real).values()


@pytest.mark.timeout(90)
def test_a_copy_racing_the_walk_never_leads_the_host_outside(
    harness: Harness, dirs: tuple[Path, Path, Path]
) -> None:
    # A process the host never stops keeps swapping a directory for links to the
    # outside directory and its file, and a file for a link, while the host applies.
    copy, real, outside = dirs
    before = snapshot(outside)
    swapper = subprocess.Popen(
        [sys.executable, "-c", _SWAPPER, str(copy), str(outside)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    applied: set[str] = set()
    try:
        while not any(copy.iterdir()):
            time.sleep(0.01)  # the swapper has started
        # At least 2 s of cycles, and on until the walk has met the swapped directory
        # and its file (a loaded machine may schedule the swapper rarely).
        start = time.monotonic()
        while time.monotonic() < start + 2.0 or (
            not {"d", "d/victim.txt"} <= applied and time.monotonic() < start + 40.0
        ):
            harness.cycle()
            for path, (kind, _) in snapshot(real).items():
                assert kind in ("file", "directory"), path
                applied.add(os.path.relpath(path, real))
    finally:
        swapper.kill()
        swapper.wait()
    assert snapshot(outside) == before
    harness.cycle()
    assert snapshot(outside) == before
    assert {"d", "d/victim.txt"} <= applied  # the race really ran against the walk


_SWAPPER = """
import os, sys
copy, outside = sys.argv[1], sys.argv[2]
d, tmp, f = copy + "/d", copy + "/tmp", copy + "/d/victim.txt"
while True:
    try:
        os.makedirs(d, exist_ok=True)
        with open(f, "w") as out:
            out.write("decoy")
        os.rename(d, tmp)
        os.symlink(outside, d)
        os.unlink(d)
        os.rename(tmp, d)
        os.unlink(f)
        os.symlink(outside + "/victim.txt", f)
        os.unlink(f)
    except OSError:
        pass
"""


def test_a_file_the_host_has_hard_linked_elsewhere_is_replaced_not_written_through(
    harness: Harness, dirs: tuple[Path, Path, Path]
) -> None:
    copy, real, outside = dirs
    (copy / "shared").write_text("old")
    harness.cycle()
    (real / "shared").unlink()
    os.link(outside / "victim.txt", real / "shared")
    (copy / "shared").write_text("new content")
    assert harness.cycle() == []
    assert (real / "shared").read_text() == "new content"
    assert (outside / "victim.txt").read_text() == "must survive"


def test_modes_never_carry_setuid_to_the_host(harness: Harness, dirs: tuple) -> None:
    copy, real, _ = dirs
    (copy / "tool").write_text("#!/bin/sh\n")
    os.chmod(copy / "tool", 0o6755)
    harness.cycle()
    mode = stat.S_IMODE(os.stat(real / "tool").st_mode)
    assert mode & (stat.S_ISUID | stat.S_ISGID) == 0


def test_the_budget_takes_what_the_layer_holds(dirs: tuple) -> None:
    copy, real, _ = dirs
    (real / "others.bin").write_bytes(b"o" * 5000)  # another session's: never charged
    h = Harness(copy, real, max_bytes=1000)
    try:
        (copy / "a").write_bytes(b"x" * 600)
        assert h.cycle() == []
        (copy / "b").write_bytes(b"x" * 600)
        overdrawn = h.overdrawn()
        assert overdrawn is not None and "1712 bytes" in overdrawn  # 2 × (600 + 256)
        (copy / "a").unlink()
        assert h.cycle() == []
        assert sorted(p.name for p in real.iterdir()) == ["b", "others.bin"]
    finally:
        h.close()


def test_blocks_reserved_beyond_the_length_are_charged(dirs: tuple) -> None:
    copy, real, _ = dirs
    h = Harness(copy, real, max_bytes=1 << 20)
    try:
        fd = os.open(copy / "reserved", os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            # fallocate(FALLOC_FL_KEEP_SIZE): 4 MiB of blocks, st_size still 0.
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            assert libc.fallocate(fd, 1, ctypes.c_long(0), ctypes.c_long(4 << 20)) == 0
        finally:
            os.close(fd)
        assert os.stat(copy / "reserved").st_size == 0
        overdrawn = h.overdrawn()
        assert overdrawn is not None and "budget of 1048576 bytes" in overdrawn
    finally:
        h.close()


def test_dirfd_refuses_what_is_not_one_plain_name(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to(tmp_path)
    fd = os.open(tmp_path, dirfd.DIR_FLAGS)
    try:
        for name in ("..", ".", "a/b", "", "link"):
            with pytest.raises(OSError):
                os.close(dirfd.open_dir(fd, name))
    finally:
        os.close(fd)
    root = os.open("/", dirfd.DIR_FLAGS)
    try:
        with pytest.raises(OSError):
            os.close(dirfd.open_dir(root, "proc", dirfd.SAME_MOUNT))  # another filesystem
    finally:
        os.close(root)


_SPIN = """
import threading
def spin():
    while True:
        pass
threading.Thread(target=spin).start()
spin()
"""


def test_the_host_waits_until_every_thread_is_stopped_or_gone() -> None:
    busy = subprocess.Popen([sys.executable, "-c", _SPIN])
    pidfd = os.pidfd_open(busy.pid)
    try:
        time.sleep(0.2)  # both threads running
        assert not wait_still(busy.pid, pidfd, timeout=0.2)
        os.kill(busy.pid, signal.SIGSTOP)
        assert wait_still(busy.pid, pidfd, timeout=5)
        assert all(state == "T" for state in task_states(busy.pid) or [])
        os.kill(busy.pid, signal.SIGCONT)
        assert not wait_still(busy.pid, pidfd, timeout=0.2)
        busy.kill()
        assert wait_still(busy.pid, pidfd, timeout=5)
    finally:
        busy.kill()
        busy.wait()
        os.close(pidfd)


def test_a_process_exiting_under_the_look_counts_as_gone(monkeypatch: pytest.MonkeyPatch) -> None:
    # While its threads exit, /proc may still list them but answer ESRCH on reading.
    busy = subprocess.Popen([sys.executable, "-c", _SPIN])
    real_open = open

    def exiting(path: str, *args: object, **kwargs: object) -> object:
        if str(path).startswith(f"/proc/{busy.pid}/"):
            raise ProcessLookupError(3, "No such process")
        return real_open(path, *args, **kwargs)  # type: ignore[call-overload]

    def listing_gone(path: str) -> list[str]:
        raise ProcessLookupError(3, "No such process")

    try:
        monkeypatch.setattr("builtins.open", exiting)
        assert task_states(busy.pid) == []
        assert wait_still(busy.pid, None, timeout=5)
        monkeypatch.setattr(os, "listdir", listing_gone)
        assert task_states(busy.pid) is None
    finally:
        monkeypatch.undo()
        busy.kill()
        busy.wait()


def test_reports_elide_the_middle_of_long_paths(harness: Harness, dirs: tuple) -> None:
    copy, real, outside = dirs
    (real / "d").symlink_to(outside)
    deep = copy.joinpath("d", *["p" * 200] * 5)
    deep.mkdir(parents=True)
    (deep / "f").write_text("x")
    problems = harness.cycle()
    assert problems and all(len(p) < 300 for p in problems)
    assert any(p.startswith("/out: writing d/ppp") and "/…/" in p for p in problems)


def test_a_mode_the_script_changed_is_applied_without_special_bits(
    harness: Harness, dirs: tuple
) -> None:
    copy, real, _ = dirs
    (copy / "run.sh").write_text("#!/bin/sh\n")
    (copy / "sub").mkdir()
    os.chmod(copy / "run.sh", 0o644)
    harness.cycle()
    os.chmod(copy / "run.sh", 0o4755)
    os.chmod(copy / "sub", 0o2750)
    assert harness.cycle() == []
    assert stat.S_IMODE(os.stat(real / "run.sh").st_mode) == 0o755
    assert stat.S_IMODE(os.stat(real / "sub").st_mode) == 0o750
