"""What a run reports of its writes stays small, whatever the script named its files.

A script chooses its names: sixty levels of 255-byte names that are not UTF-8, each byte
escaped four characters long, make every path 60 kB. Listed whole, a thousand empty
files within a 1 MiB budget made a result of 80 MB, and escaping them held the host's
process for 20 s, its other sessions' host work with it. The listing of each mount holds
a bounded number of characters per run (the files beyond it reach the host all the same
and are counted in the run's output), and each refusal is described in a bounded line.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sandbox import Mount, Sandbox, SandboxPolicy
from sandbox.host.writes.apply import SHOWN_PATH
from sandbox.host.writes.private import MAX_LISTED_CHARS

DEEP = """
import os
os.chdir({out!r})
for _ in range(60):
    os.makedirs(bytes([0xff]) * 255, exist_ok=True)
    os.chdir(bytes([0xff]) * 255)
for i in range({files}):
    os.close(os.open(b"%d" % i + bytes([0xfe]) * 240, os.O_CREAT | os.O_WRONLY, 0o644))
"""
TOP = os.fsdecode(bytes([0xFF]) * 255)
FILES = 400


def _policy(out: Path) -> SandboxPolicy:
    mount = Mount(sandbox_path="/out", host_path=str(out), mode="rw", max_bytes=1 << 20)
    policy = SandboxPolicy.preset("default").with_mounts(mount).with_limits(wall_s=60)
    return policy.with_layers(language=False)


def _on_the_host(out: Path) -> int:
    # os.fwalk works through directory descriptors: these paths are beyond PATH_MAX.
    return sum(len(files) for _, _, files, _ in os.fwalk(out))


@pytest.mark.timeout(180)
def test_a_runs_listing_of_its_files_is_bounded(tmp_path: Path) -> None:
    with Sandbox(_policy(tmp_path), spares=0) as sandbox, sandbox.session() as session:
        ran = session.run(DEEP.format(out=str(tmp_path), files=FILES))
    assert ran.ok, ran.output
    listed = len(ran.files)
    assert 0 < listed < FILES
    assert sum(len(f.path) for f in ran.files) <= MAX_LISTED_CHARS
    assert len(ran.model_dump_json()) < 2 * MAX_LISTED_CHARS
    assert f"[sandbox] /out: {FILES - listed} more files were written" in ran.stdout
    assert _on_the_host(tmp_path) == FILES


@pytest.mark.timeout(180)
def test_refusals_of_long_paths_are_said_in_a_few_short_lines(tmp_path: Path) -> None:
    with Sandbox(_policy(tmp_path), spares=0) as sandbox, sandbox.session() as session:
        made = session.run(DEEP.format(out=str(tmp_path), files=0))
        assert made.ok, made.output
        # The host puts a file where the session's directories were: what the session
        # writes below them next is refused, each change with its 60 kB path.
        shutil.rmtree(tmp_path / TOP)
        (tmp_path / TOP).write_text("the host's file now")
        ran = session.run(DEEP.format(out=str(tmp_path), files=FILES))
    assert ran.ok, ran.output
    lines = [line for line in ran.stdout.splitlines() if "not applied" in line]
    assert len(lines) == 20
    assert all(len(line) < 2 * SHOWN_PATH + 100 for line in lines), max(lines, key=len)
    assert all("/…/" in line for line in lines[:-1]), lines[0]
    # Each file refused, and the directory the host's file stands in for.
    assert lines[-1].startswith("[sandbox] not applied to the host: /out: and ")
    assert int(lines[-1].split()[-3]) >= FILES - 19
    assert (tmp_path / TOP).read_text() == "the host's file now"


@pytest.mark.timeout(180)
def test_a_listing_of_direct_writes_is_bounded_too(tmp_path: Path) -> None:
    # Written directly (language layer on): each name 80 zero-width spaces, escaped
    # twelve characters each.
    mount = Mount(sandbox_path="/out", host_path=str(tmp_path), mode="rw", max_bytes=1 << 20)
    policy = SandboxPolicy.preset("default").with_mounts(mount).with_writes("direct")
    script = f"for i in range({FILES}):\n    open('/out/' + str(i) + '\\u200b' * 80, 'w').close()\n"
    with Sandbox(policy, spares=0) as sandbox, sandbox.session() as session:
        ran = session.run(script)
    assert ran.ok, ran.output
    listed = len(ran.files)
    assert 0 < listed < FILES
    assert sum(len(f.path) for f in ran.files) <= MAX_LISTED_CHARS
    assert f"[sandbox] /out: {FILES - listed} more files changed than are listed" in ran.stdout
    assert len(list(tmp_path.iterdir())) == FILES
