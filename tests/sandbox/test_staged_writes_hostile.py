"""Staged writes as hostile input: what a script leaves in its copy of a writable mount
must never make the host write, remove or count anything outside that mount."""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import ErrorCode, Execution, FinalResult, Mount, Sandbox, SandboxPolicy
from tests.confinement import degraded

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
    staging = sandbox.confinement["private_writes"]
    if not staging.startswith("active"):
        sandbox.close()
        degraded(f"private writes are degraded here: {staging}")
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
        # The session replaced the link with a directory of its own: so does the host,
        # removing the link itself, never what it points to.
        assert (out / "link").is_dir() and not (out / "link").is_symlink()
        assert (out / "link" / "victim.txt").read_text() == "decoy"
        second = session.run(f"import os\nos.unlink({victim!r})\nfinal_result('removed')")
        assert second.output == FinalResult(value="removed")
    assert outside_state(outside) == {"victim.txt": "must survive"}
    assert list((out / "link").iterdir()) == []


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


def test_changes_the_host_cannot_apply_are_reported_and_never_lead_outside(
    out: Path, outside: Path
) -> None:
    # The host turns the session's directory into a link to the outside meanwhile: what
    # the session writes below it is reported, and never written through the link.
    with staged(out, MB) as sandbox, sandbox.session() as session:
        made = session.run(f"import os\nos.mkdir({str(out / 'd')!r})")
        assert made.ok, made.output
        (out / "d").rmdir()
        (out / "d").symlink_to(outside)
        for index in range(2):
            ex = session.run(
                f"fd = __import__('os').open({str(out / 'd')!r} + '/f{index}', 65)\n"
                "__import__('os').ftruncate(fd, 300_000)"
            )
            assert ex.error_code is None, ex.output
            assert f"not applied to the host: /out: writing d/f{index}" in ex.stdout
    assert (out / "d").is_symlink()
    assert outside_state(outside) == {"victim.txt": "must survive"}


def test_links_and_special_files_never_reach_the_host(
    sandbox: Sandbox, out: Path, outside: Path
) -> None:
    # Landlock refuses to make them in the copy; were one made (test_staged_apply), the
    # host would refuse it. The link copied from the host is left as it is, unreported.
    with sandbox.session() as session:
        ex = session.run(
            "import os\n"
            f"for make in (lambda: os.symlink({str(outside)!r}, {str(out / 'new-link')!r}),\n"
            f"             lambda: os.mkfifo({str(out / 'pipe')!r})):\n"
            "    try:\n        make()\n    except OSError:\n        pass\n"
            f"open({str(out / 'plain.txt')!r}, 'w').write('plain')"
        )
        assert ex.ok, ex.output
        assert "not applied" not in ex.stdout
    assert sorted(p.name for p in out.iterdir()) == ["link", "plain.txt"]
    assert (out / "link").is_symlink()
    assert outside_state(outside) == {"victim.txt": "must survive"}


def test_hard_links_in_the_copy_reach_the_host_as_separate_files(
    sandbox: Sandbox, out: Path
) -> None:
    first = out / "a.txt"
    with sandbox.session() as session:
        ex = session.run(
            f"import os\nopen({str(first)!r}, 'w').write('shared')\n"
            f"os.link({str(first)!r}, {str(out / 'b.txt')!r})\n"
            f"os.link({str(first)!r}, {str(out / 'c.txt')!r})"
        )
        assert ex.ok, ex.output
    inodes = {os.stat(out / n).st_ino for n in ("a.txt", "b.txt", "c.txt")}
    assert len(inodes) == 3
    assert all(os.stat(out / n).st_nlink == 1 for n in ("a.txt", "b.txt", "c.txt"))
    assert (out / "c.txt").read_text() == "shared"


def test_hard_links_count_once_per_path(tmp_path: Path) -> None:
    out = tmp_path / "links"
    out.mkdir()
    with staged(out, 100_000) as sandbox, sandbox.session() as session:
        ex = session.run(
            f"import os\nos.chdir({str(out)!r})\nopen('big', 'w').write('x' * 40_000)\n"
            "for n in range(3):\n    os.link('big', f'link-{n}')"
        )
        assert ex.error_code == ErrorCode.OUTPUT_LIMIT
    assert list(out.iterdir()) == []


def test_a_file_hard_linked_outside_on_the_host_is_not_written_through(
    sandbox: Sandbox, out: Path, outside: Path
) -> None:
    os.link(outside / "victim.txt", out / "shared.txt")
    with sandbox.session() as session:
        ex = session.run(f"open({str(out / 'shared.txt')!r}, 'w').write('overwritten')")
        assert ex.ok, ex.output
    # A new file takes the name; the other link keeps the old bytes.
    assert (out / "shared.txt").read_text() == "overwritten"
    assert os.stat(out / "shared.txt").st_nlink == 1
    assert outside_state(outside) == {"victim.txt": "must survive"}


def test_a_sparse_file_is_charged_its_length(sandbox: Sandbox, out: Path) -> None:
    with sandbox.session() as session:
        ex = session.run(
            f"import os\nos.chdir({str(out)!r})\n"
            "for name in ('one', 'two'):\n"
            "    fd = os.open(name, os.O_WRONLY | os.O_CREAT)\n"
            "    os.lseek(fd, 39_000, os.SEEK_SET)\n    os.write(fd, b'end')\n    os.close(fd)"
        )
        assert ex.error_code == ErrorCode.OUTPUT_LIMIT
    assert sorted(p.name for p in out.iterdir()) == ["link"]


def test_names_are_applied_byte_for_byte(sandbox: Sandbox, out: Path) -> None:
    with sandbox.session() as session:
        ex = session.run(
            f"import os\nbase = {str(out).encode()!r}\n"
            "for name in (b'new\\nline', b'\\xff\\xfe', b'-rf', b' '):\n"
            "    with open(base + b'/' + name, 'wb') as f:\n        f.write(name)"
        )
        assert ex.ok, ex.output
    names = {os.fsencode(p.name) for p in out.iterdir()}
    assert names == {b"link", b"new\nline", b"\xff\xfe", b"-rf", b" "}
    # Reported escaped: the result serializes whatever the names.
    shown = ["/out/ ", "/out/-rf", "/out/\\xff\\xfe", "/out/new\\x0aline"]
    assert sorted(f.path for f in ex.files) == shown
    assert Execution.model_validate_json(ex.model_dump_json()).files == ex.files
    assert (out / os.fsdecode(b"\xff\xfe")).read_bytes() == b"\xff\xfe"


def _cpu_ticks(pid: int) -> int:
    with open(f"/proc/{pid}/stat", "rb") as file:
        fields = file.read().rsplit(b")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def test_a_script_racing_the_end_of_its_run_is_stopped_and_leads_nowhere(
    sandbox: Sandbox, out: Path, outside: Path
) -> None:
    # The script tells the host it is done (a forged frame on the channel) and goes on
    # reshaping its copy, so the host's walk would race it were the worker not stopped.
    b = str(out)
    script = (
        "import json, os, stat\n"
        "for seq in (1,):\n"
        "    frame = json.dumps({'op': 'done', 'seq': seq, 'output': "
        "{'type': 'final_result', 'value': 'forged'}}).encode()\n"
        "    for fd in range(3, 64):\n"
        "        try:\n"
        "            if stat.S_ISSOCK(os.fstat(fd).st_mode):\n"
        "                os.write(fd, len(frame).to_bytes(4, 'big') + frame)\n"
        "        except OSError:\n"
        "            pass\n"
        f"b = {b!r}\nos.unlink(b + '/link')\n"
        "while True:\n"
        "    try:\n"
        "        os.mkdir(b + '/link')\n"
        "        open(b + '/link/victim.txt', 'w').write('decoy')\n"
        "        os.unlink(b + '/link/victim.txt')\n"
        "        os.rmdir(b + '/link')\n"
        "        os.mkdir(b + '/d')\n"
        "        open(b + '/d/f', 'w').write('x')\n"
        "        os.rename(b + '/d', b + '/e')\n"
        "        os.unlink(b + '/e/f')\n"
        "        os.rmdir(b + '/e')\n"
        "    except OSError:\n"
        "        pass\n"
    )
    with sandbox.session() as session:
        ex = session.run(script)
        assert ex.output == FinalResult(value="forged")
        pid = session.pid
        assert pid is not None
        ticks = _cpu_ticks(pid)
        time.sleep(0.3)
        assert _cpu_ticks(pid) == ticks  # stopped while the host applied, and after
        # The next run is never read by the looping script: killed at the wall clock,
        # and what the copy holds is applied once the worker is gone.
        late = session.run("final_result('unreachable')")
        assert late.error_code == ErrorCode.TIMEOUT
    assert outside_state(outside) == {"victim.txt": "must survive"}
    for path in out.rglob("*"):
        assert not path.is_symlink(), path
        assert path.relative_to(out).parts[0] in ("link", "d", "e"), path


def test_thousands_of_refused_changes_are_reported_in_a_few_lines(
    sandbox: Sandbox, out: Path
) -> None:
    made = str(out / "made")
    with sandbox.session() as session:
        assert session.run(f"import os\nos.mkdir({made!r})").ok
        (out / "made").rmdir()
        (out / "made").write_text("the host's file now")
        ex = session.run(f"for n in range(200):\n    open({made!r} + f'/f{{n}}', 'w').close()")
        assert ex.ok, ex.output
    lines = [line for line in ex.stdout.splitlines() if "not applied" in line]
    assert len(lines) == 20
    assert lines[-1] == "[sandbox] not applied to the host: /out: and 182 more changes"
    assert (out / "made").read_text() == "the host's file now"
