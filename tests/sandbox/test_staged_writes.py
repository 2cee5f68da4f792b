"""Private writes, attacked as plain Python: a writable mount is a private copy-on-write
view whose changes reach the host directory after each run, within the mount's budget."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import ErrorCode, FinalResult, Mount, Sandbox, SandboxPolicy
from tests.confinement import degraded

BUDGET = 64 * 1024


def staged_policy(out: Path, **limits: float) -> SandboxPolicy:
    policy = (
        SandboxPolicy.preset("default")
        .with_layers(language=False)
        .with_mounts(Mount(sandbox_path="/out", host_path=str(out), mode="rw", max_bytes=BUDGET))
    )
    return policy.with_limits(**limits) if limits else policy


@pytest.fixture()
def out(tmp_path: Path) -> Path:
    directory = tmp_path / "out"
    directory.mkdir()
    (directory / "keep.txt").write_text("kept")
    (directory / "old").mkdir()
    (directory / "old" / "gone.txt").write_text("to be removed")
    return directory


@pytest.fixture()
def sandbox(out: Path) -> Iterator[Sandbox]:
    with Sandbox(staged_policy(out, wall_s=3)) as sb:
        staging = sb.confinement["private_writes"]
        if not staging.startswith("active"):
            degraded(f"private writes are degraded here: {staging}")
        yield sb


def tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): (p.read_text() if p.is_file() else "<dir>")
        for p in sorted(root.rglob("*"))
    }


def test_changes_reach_the_host_after_the_run(sandbox: Sandbox, out: Path) -> None:
    with sandbox.session() as session:
        ex = session.run(
            f"import os, shutil\n"
            f"base = {str(out)!r}\n"
            f"before = sorted(os.listdir(base))\n"
            f"open(base + '/keep.txt', 'a').write('!')\n"
            f"os.makedirs(base + '/new/deeper')\n"
            f"open(base + '/new/deeper/a.txt', 'w').write('a')\n"
            f"shutil.rmtree(base + '/old')\n"
            f"final_result(before)"
        )
        assert ex.output == FinalResult(value=["keep.txt", "old"])
        assert tree(out) == {
            "keep.txt": "kept!",
            "new": "<dir>",
            "new/deeper": "<dir>",
            "new/deeper/a.txt": "a",
        }
        # The next run sees its own changes; a later session sees what was applied.
        ex = session.run(f"final_result(open({str(out / 'keep.txt')!r}).read())")
        assert ex.output == FinalResult(value="kept!")
    with sandbox.session() as later:
        ex = later.run(f"final_result(open({str(out / 'new/deeper/a.txt')!r}).read())")
        assert ex.output == FinalResult(value="a")


def test_many_files_beyond_the_budget_never_reach_the_host(sandbox: Sandbox, out: Path) -> None:
    before = tree(out)
    with sandbox.session() as session:
        ex = session.run(
            f"for i in range(12):\n"
            f"    open({str(out)!r} + f'/part-{{i}}', 'w').write('x' * {BUDGET // 4})\n"
        )
        assert ex.error_code == ErrorCode.OUTPUT_LIMIT
        assert "budget" in ex.output.message  # type: ignore[union-attr]
        assert tree(out) == before
        again = session.run("final_result(1)")
        assert again.error_code == ErrorCode.OUTPUT_LIMIT


def test_a_stopped_run_keeps_what_it_wrote_within_budget(sandbox: Sandbox, out: Path) -> None:
    with sandbox.session() as session:
        ex = session.run(
            f"open({str(out)!r} + '/partial.txt', 'w').write('before the loop')\n"
            "while True:\n    pass\n"
        )
        assert ex.error_code == ErrorCode.TIMEOUT
    assert (out / "partial.txt").read_text() == "before the loop"


def test_the_script_cannot_reach_the_real_directory(sandbox: Sandbox, out: Path) -> None:
    with sandbox.session() as session:
        ex = session.run(
            "import ctypes, os\n"
            "libc = ctypes.CDLL(None, use_errno=True)\n"
            f"gone = libc.umount2({str(out).encode()!r}, 2)\n"
            "final_result([gone, ctypes.get_errno() != 0])"
        )
        assert ex.output == FinalResult(value=[-1, True])


def test_the_host_keeps_no_copy_open_after_the_session(sandbox: Sandbox) -> None:
    descriptors = len(os.listdir("/proc/self/fd"))
    for _ in range(3):
        with sandbox.session() as session:
            session.run("x = 1")
    assert len(os.listdir("/proc/self/fd")) <= descriptors


def test_with_the_language_layer_on_writes_are_private_too(out: Path) -> None:
    policy = staged_policy(out).with_layers(language=True)
    policy = policy.model_copy(update={"modules": (*policy.modules, "os")})
    with Sandbox(policy) as sandbox, sandbox.session() as session:
        assert session.run("open('/out/direct.txt', 'w').write('now')").ok
        assert sandbox.confinement["private_writes"].startswith("active")
    assert (out / "direct.txt").read_text() == "now"


def test_nested_writable_mounts_are_each_private(tmp_path: Path) -> None:
    outer = tmp_path / "outer"
    inner = outer / "inner"
    inner.mkdir(parents=True)
    policy = (
        SandboxPolicy.preset("default")
        .with_layers(language=False)
        .with_mounts(
            # Inner first: each is covered in its place all the same.
            Mount(sandbox_path="/b", host_path=str(inner), mode="rw"),
            Mount(sandbox_path="/a", host_path=str(outer), mode="rw"),
        )
    )
    with Sandbox(policy) as sandbox, sandbox.session() as session:
        ex = session.run(
            f"open({str(inner / 'f.txt')!r}, 'w').write('inner')\n"
            f"open({str(outer / 'g.txt')!r}, 'w').write('outer')"
        )
        assert ex.ok, ex.output
        assert sorted(f.path for f in ex.files) == ["/a/g.txt", "/b/f.txt"]
    assert (inner / "f.txt").read_text() == "inner"
    assert (outer / "g.txt").read_text() == "outer"


def test_a_file_replaced_by_a_directory_is_applied(sandbox: Sandbox, out: Path) -> None:
    with sandbox.session() as session:
        session.run(f"open({str(out / 'x')!r}, 'w').write('file')")
        assert (out / "x").read_text() == "file"
        ex = session.run(
            f"import os\nos.remove({str(out / 'x')!r})\nos.mkdir({str(out / 'x')!r})\n"
            f"open({str(out / 'x' / 'y')!r}, 'w').write('inside')"
        )
        assert ex.ok, ex.output
    assert (out / "x" / "y").read_text() == "inside"


def test_what_cannot_be_applied_is_reported_not_dropped(
    sandbox: Sandbox, out: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    with sandbox.session() as session:
        session.run(f"import os\nos.mkdir({str(out / 'd')!r})")
        # The host swaps the directory for a link while the session goes on.
        (out / "d").rmdir()
        (out / "d").symlink_to(elsewhere)
        ex = session.run(f"open({str(out / 'd' / 'f')!r}, 'w').write('data')")
    assert "[sandbox] not applied to the host: /out: writing d/f" in ex.stdout
    assert not (elsewhere / "f").exists()


def test_a_deep_tree_is_applied_down_to_a_bound_and_the_rest_reported(
    sandbox: Sandbox, out: Path
) -> None:
    with sandbox.session() as session:
        ex = session.run(
            f"import os\nos.chdir({str(out)!r})\n"
            "for level in range(1200):\n    os.mkdir('d')\n    os.chdir('d')\n"
            "open('bottom.txt', 'w').write('deep')"
        )
        assert "more than 64 levels deep, and removals, were not applied" in ex.stdout
        assert session.run("final_result('still working')").ok
    assert (out / "keep.txt").read_text() == "kept"
    assert (out / "/".join(["d"] * 64)).is_dir()
    assert not (out / "/".join(["d"] * 65)).exists()


def test_what_the_user_cannot_read_is_left_out_and_left_alone(sandbox: Sandbox, out: Path) -> None:
    # `sandbox` skips where staging is unavailable; here it must stay active.
    locked_file, locked_dir = out / "locked.txt", out / "locked"
    locked_file.write_text("private")
    locked_dir.mkdir()
    (locked_dir / "inner.txt").write_text("private too")
    locked_file.chmod(0)
    locked_dir.chmod(0)
    try:
        with Sandbox(staged_policy(out)) as locked, locked.session() as session:
            assert locked.confinement["private_writes"].startswith("active")
            ex = session.run(f"open({str(out / 'new.txt')!r}, 'w').write('new')")
            assert ex.ok, ex.output
    finally:
        locked_file.chmod(0o600)
        locked_dir.chmod(0o700)
    assert locked_file.read_text() == "private"
    assert (locked_dir / "inner.txt").read_text() == "private too"
    assert (out / "new.txt").read_text() == "new"


def test_a_mode_the_script_sets_reaches_the_host(sandbox: Sandbox, out: Path) -> None:
    script = out / "run.sh"
    with sandbox.session() as session:
        ex = session.run(
            f"import os\nopen({str(script)!r}, 'w').write('#!/bin/sh\\n')\n"
            f"os.chmod({str(script)!r}, 0o755)"
        )
        assert ex.ok, ex.output
        assert script.stat().st_mode & 0o777 == 0o755
        # A setuid bit is refused by the syscall filter, and never applied.
        ex = session.run(f"import os\nos.chmod({str(script)!r}, 0o4700)")
        assert ex.error_code == "runtime_error" and "PermissionError" in str(ex.output)
    assert script.stat().st_mode & 0o7777 == 0o755
