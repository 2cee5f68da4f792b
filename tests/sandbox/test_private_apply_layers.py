"""What a layer means to the host: an overlay's whiteouts and opaque directories, a staged
copy's differences from its start, and files replaced whole whenever the host stops.
"""

from __future__ import annotations

import os
import signal
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox.host.writes import atomic
from sandbox.host.writes.layer import OPAQUE_XATTR
from tests.sandbox.test_private_apply import Harness

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="whiteouts are made with mknod (root)")


@pytest.fixture()
def dirs(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    layer, real = tmp_path / "layer", tmp_path / "real"
    layer.mkdir()
    real.mkdir()
    (real / "keep.txt").write_text("kept")
    (real / "gone.txt").write_text("to be removed")
    (real / "tree").mkdir()
    (real / "tree" / "deep").mkdir()
    (real / "tree" / "deep" / "f").write_text("inside")
    yield layer, real


def whiteout(path: Path) -> None:
    os.mknod(path, stat.S_IFCHR | 0o000, os.makedev(0, 0))


def tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): (p.read_text() if p.is_file() else "<dir>")
        for p in sorted(root.rglob("*"))
    }


def test_whiteouts_remove_files_and_whole_directories(dirs: tuple[Path, Path]) -> None:
    layer, real = dirs
    whiteout(layer / "gone.txt")
    whiteout(layer / "tree")
    harness = Harness(layer, real)
    try:
        assert harness.cycle() == []
        assert tree(real) == {"keep.txt": "kept"}
        assert harness.cycle() == []  # applied once
    finally:
        harness.close()


def test_an_opaque_directory_replaces_what_the_host_held_there(dirs: tuple[Path, Path]) -> None:
    layer, real = dirs
    (layer / "tree").mkdir()
    os.setxattr(layer / "tree", OPAQUE_XATTR, b"y")
    (layer / "tree" / "new.txt").write_text("new")
    harness = Harness(layer, real)
    try:
        assert harness.cycle() == []
        assert tree(real / "tree") == {"new.txt": "new"}
        # Replaced once: what another session adds to it later stays.
        (real / "tree" / "theirs.txt").write_text("theirs")
        (layer / "tree" / "second.txt").write_text("second")
        assert harness.cycle() == []
        assert sorted(tree(real / "tree")) == ["new.txt", "second.txt", "theirs.txt"]
    finally:
        harness.close()


def test_a_copied_up_directory_holds_changes_without_replacing_anything(
    dirs: tuple[Path, Path],
) -> None:
    layer, real = dirs
    (layer / "tree" / "deep").mkdir(parents=True)
    (layer / "tree" / "deep" / "g").write_text("added")
    harness = Harness(layer, real)
    try:
        assert harness.cycle() == []
        assert tree(real / "tree") == {"deep": "<dir>", "deep/f": "inside", "deep/g": "added"}
    finally:
        harness.close()


def test_a_staged_copy_is_read_against_what_it_held_at_the_start(
    dirs: tuple[Path, Path],
) -> None:
    layer, real = dirs
    for path, text in tree(real).items():
        if text == "<dir>":
            (layer / path).mkdir()
        else:
            (layer / path).write_text(text)
    harness = Harness(layer, real).staged()
    try:
        assert harness.cycle() == []
        assert tree(real) == tree(layer)  # nothing changed: nothing applied
        (real / "theirs.txt").write_text("another session's")
        (layer / "gone.txt").unlink()
        (layer / "keep.txt").write_text("changed")
        (layer / "tree" / "deep" / "f").unlink()
        (layer / "tree" / "deep").rmdir()
        (layer / "new").mkdir()
        (layer / "new" / "n.txt").write_text("n")
        assert harness.cycle() == []
        assert tree(real) == {
            "keep.txt": "changed",
            "new": "<dir>",
            "new/n.txt": "n",
            "theirs.txt": "another session's",
            "tree": "<dir>",
        }
    finally:
        harness.close()


#: Every system call an apply makes on the host, each a point where the host may die.
_CALLS = ("open", "pwrite", "ftruncate", "fchmod", "rename", "unlink", "rmdir")


def _apply_dying_at(layer: Path, real: Path, call: str, nth: int) -> int:
    """Apply in a child that is SIGKILLed at its ``nth`` call of ``os.<call>``; its
    wait status."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        try:
            real_call = getattr(os, call)
            count = [0]

            def dying(*args: object, **kwargs: object) -> object:
                count[0] += 1
                if count[0] == nth:
                    os.kill(os.getpid(), signal.SIGKILL)
                return real_call(*args, **kwargs)

            setattr(atomic.os, call, dying)
            harness = Harness(layer, real, max_bytes=1 << 24)
            if harness.cycle():
                os._exit(2)  # a step failed
        except BaseException:
            os._exit(3)
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    return status


@pytest.mark.timeout(120)
@pytest.mark.parametrize("call", _CALLS)
def test_a_host_killed_at_any_step_leaves_each_file_old_or_new(
    tmp_path: Path, call: str
) -> None:
    old = {f"f{n}.txt": f"old {n} " * 50_000 for n in range(4)}
    new = {f"f{n}.txt": f"NEW {n} " * 70_000 for n in range(4)}
    killed = 0
    for nth in range(1, 40):
        layer, real = tmp_path / f"{call}-{nth}" / "layer", tmp_path / f"{call}-{nth}" / "real"
        layer.mkdir(parents=True)
        real.mkdir()
        for name, text in old.items():
            (real / name).write_text(text)
        for name, text in new.items():
            (layer / name).write_text(text)
        (real / "tree").mkdir()
        (real / "tree" / "x").write_text("x")
        whiteout(layer / "tree")
        status = _apply_dying_at(layer, real, call, nth)
        for name in old:
            assert (real / name).read_text() in (old[name], new[name]), (call, nth, name)
        leftovers = [p.name for p in real.iterdir() if p.name.startswith(atomic.TEMP_PREFIX)]
        assert len(leftovers) <= 1, leftovers  # only the one the killed write was making
        if os.WIFEXITED(status):
            break  # the apply finished before the nth call: every later nth would too
        killed += 1
    assert killed, f"no apply was killed at a call of os.{call}"
    # An apply run to its end leaves everything new.
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0, status
    assert {n: (real / n).read_text() for n in new} == new
