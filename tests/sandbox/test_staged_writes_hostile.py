"""Staged writes as hostile input: what a script leaves in its copy of a writable mount
must never make the host write, remove or count anything outside that mount."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import ErrorCode, FinalResult, Mount, Sandbox, SandboxPolicy

MB = 1_000_000
#: Directory names long enough that a few of them make a path beyond PATH_MAX (4096).
LONG = "n" * 250
DEPTH = 20


def policy_for(out: Path, max_bytes: int, **limits: float) -> SandboxPolicy:
    policy = (
        SandboxPolicy.preset("default")
        .with_layers(language=False)
        .with_mounts(Mount(sandbox_path="/out", host_path=str(out), mode="rw", max_bytes=max_bytes))
        .with_limits(wall_s=5, **limits)
    )
    return policy


@pytest.fixture()
def outside(tmp_path: Path) -> Path:
    directory = tmp_path / "outside"
    directory.mkdir()
    (directory / "victim.txt").write_text("must survive")
    return directory


@pytest.fixture()
def out(tmp_path: Path, outside: Path) -> Path:
    directory = tmp_path / "out"
    directory.mkdir()
    (directory / "link").symlink_to(outside, target_is_directory=True)
    return directory


def staged(out: Path, max_bytes: int, **limits: float) -> Sandbox:
    sandbox = Sandbox(policy_for(out, max_bytes, **limits)).start()
    staging = sandbox.confinement["write_staging"]
    if not staging.startswith("active"):
        sandbox.close()
        pytest.skip(f"write staging is degraded here: {staging}")
    return sandbox


@pytest.fixture()
def sandbox(out: Path) -> Iterator[Sandbox]:
    with staged(out, 64 * 1024) as sb:
        yield sb


def host_bytes(root: Path) -> int:
    """Apparent bytes of the regular files under ``root``, at any path length."""
    total = 0
    for _, _, files, dir_fd in os.fwalk(root):
        for name in files:
            info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            if stat.S_ISREG(info.st_mode):
                total += info.st_size
    return total


def outside_state(outside: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(outside.iterdir())}


def test_a_link_replaced_by_a_directory_never_leads_a_removal_outside(
    sandbox: Sandbox, out: Path, outside: Path
) -> None:
    link, victim = str(out / "link"), str(out / "link" / "victim.txt")
    with sandbox.session() as session:
        first = session.run(
            f"import os\nos.unlink({link!r})\nos.mkdir({link!r})\n"
            f"open({victim!r}, 'w').write('decoy')"
        )
        assert first.ok, first.output
        assert "not applied to the host: /out: writing link" in first.stdout
        second = session.run(f"import os\nos.unlink({victim!r})\nfinal_result('removed')")
        assert second.output == FinalResult(value="removed")
    assert outside_state(outside) == {"victim.txt": "must survive"}
    assert (out / "link").is_symlink()


def test_a_link_replaced_by_a_directory_never_leads_a_write_outside(
    sandbox: Sandbox, out: Path, outside: Path
) -> None:
    link = str(out / "link")
    with sandbox.session() as session:
        ex = session.run(
            f"import os\nos.unlink({link!r})\nos.makedirs({link!r} + '/sub')\n"
            f"open({link!r} + '/planted.txt', 'w').write('x')\n"
            f"open({link!r} + '/victim.txt', 'w').write('overwritten')"
        )
        assert ex.ok, ex.output
    assert outside_state(outside) == {"victim.txt": "must survive"}


def _deep_sparse(out: Path, name: str, size: int) -> str:
    """A script creating a sparse file ``size`` bytes long below a path beyond PATH_MAX."""
    return (
        f"import os\nos.chdir({str(out)!r})\n"
        f"for _ in range({DEPTH}):\n"
        f"    os.makedirs({LONG!r}, exist_ok=True)\n    os.chdir({LONG!r})\n"
        f"fd = os.open({name!r}, os.O_WRONLY | os.O_CREAT)\n"
        f"os.ftruncate(fd, {size})\nos.close(fd)\n"
        f"final_result('deep')"
    )


def test_files_beyond_path_max_reach_the_host_and_count(tmp_path: Path) -> None:
    out = tmp_path / "deep"
    out.mkdir()
    with staged(out, 100_000) as sandbox, sandbox.session() as session:
        ex = session.run(_deep_sparse(out, "bottom.bin", 60_000))
        assert ex.output == FinalResult(value="deep")
        assert "not applied" not in ex.stdout
        assert host_bytes(out) == 60_000
        ex = session.run(_deep_sparse(out, "second.bin", 60_000))
        assert ex.error_code == ErrorCode.OUTPUT_LIMIT
    assert host_bytes(out) == 60_000


def test_the_budget_holds_across_runs_whatever_the_paths(tmp_path: Path) -> None:
    out = tmp_path / "budget"
    out.mkdir()
    with staged(out, MB) as sandbox, sandbox.session() as session:
        for index in range(11):
            session.run(_deep_sparse(out, f"f{index}", MB))
            assert host_bytes(out) <= MB
        session.run(
            f"import os, shutil\nos.chdir({str(out)!r})\n"
            f"shutil.rmtree({LONG!r}, ignore_errors=True)\n"
            "for index in range(11):\n"
            "    fd = os.open(f'g{index}', os.O_WRONLY | os.O_CREAT)\n"
            f"    os.ftruncate(fd, {MB})\n    os.close(fd)\n"
        )
        assert host_bytes(out) <= MB
    assert host_bytes(out) <= MB


def test_entries_the_host_refuses_do_not_count_against_the_budget(out: Path, outside: Path) -> None:
    # Each run writes 600 kB below the link, which the host refuses; the refused bytes
    # must neither reach the host nor be charged, and a later removal must not free them.
    link = str(out / "link")
    with staged(out, MB) as sandbox, sandbox.session() as session:
        for index in range(3):
            ex = session.run(
                f"import os\nif os.path.islink({link!r}):\n    os.unlink({link!r})\n"
                f"os.makedirs({link!r}, exist_ok=True)\n"
                f"fd = os.open({link!r} + '/f{index}', os.O_WRONLY | os.O_CREAT)\n"
                "os.ftruncate(fd, 600_000)\nos.close(fd)"
            )
            assert ex.error_code is None, ex.output
            assert f"not applied to the host: /out: writing link/f{index}" in ex.stdout
        ex = session.run(
            f"import os, shutil\nshutil.rmtree({link!r})\n"
            f"fd = os.open({str(out / 'kept.bin')!r}, os.O_WRONLY | os.O_CREAT)\n"
            "os.ftruncate(fd, 900_000)\nos.close(fd)"
        )
        assert ex.error_code is None, ex.output
        ex = session.run(
            f"fd = __import__('os').open({str(out / 'more.bin')!r}, 65)\n"
            "__import__('os').ftruncate(fd, 200_000)"
        )
        assert ex.error_code == ErrorCode.OUTPUT_LIMIT
    assert host_bytes(out) == 900_000
    assert outside_state(outside) == {"victim.txt": "must survive"}
