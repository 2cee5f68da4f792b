"""Mounts at their sandbox paths for library code, and the report where the minimal
root that provides them is not available (simulated: its build refuses, as a kernel
without the needed mount rights does)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import Mount, Sandbox, SandboxPolicy
from sandbox.host import workers as process
from tests.confinement import degraded

BOOT_WITHOUT_MINIMAL_ROOT = """
import sys
sys.path.insert(0, {root!r})
import errno
from sandbox.worker.confine import minimal_root
def refuse(mounts):
    raise OSError(errno.EPERM, "mount: Operation not permitted")
minimal_root.build = refuse
from sandbox.worker.zygote import main
main({fd})
"""


def _policy(tmp_path: Path) -> SandboxPolicy:
    return SandboxPolicy.preset("default").with_mounts(
        Mount(sandbox_path="/data", host_path=str(tmp_path))
    )


def test_the_mounts_exist_at_their_sandbox_paths_for_plain_code(tmp_path: Path) -> None:
    (tmp_path / "x.txt").write_text("hello")
    policy = _policy(tmp_path).with_layers(language=False)
    with Sandbox(policy, spares=0) as sb, sb.session() as session:
        if not sb.confinement["minimal_root"].startswith("active"):
            degraded(f"no minimal root here: {sb.confinement['minimal_root']}")
        execution = session.run("print(open('/data/x.txt').read())")
        assert execution.stdout == "hello\n", execution.output
        assert "/data" in sb.confinement["minimal_root"]


def test_without_the_minimal_root_filesystem_is_reported_degraded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(process, "_BOOT", BOOT_WITHOUT_MINIMAL_ROOT)
    with Sandbox(_policy(tmp_path), spares=0) as sb, sb.session() as session:
        assert session.run("final_result(1)").error_code is None
        state, root = sb.confinement["filesystem"], sb.confinement["minimal_root"]
    assert root.startswith("degraded: ") and "Operation not permitted" in root, root
    assert state.startswith("degraded: "), state
    if "Landlock ABI" in state:  # Landlock itself works here: the gap is the paths
        assert "host paths only" in state
