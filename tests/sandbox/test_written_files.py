"""``Execution.files``: what a run created or changed under the writable mounts."""

from __future__ import annotations

from pathlib import Path

from sandbox import Mount, Sandbox, SandboxPolicy
from sandbox.cli import render


def test_each_run_lists_the_files_it_created_or_changed(tmp_path: Path) -> None:
    (tmp_path / "kept.txt").write_text("old")
    (tmp_path / "same.txt").write_text("same")
    policy = SandboxPolicy.preset("default").with_mounts(
        Mount(sandbox_path="/out", host_path=str(tmp_path), mode="rw")
    )
    with Sandbox(policy, spares=0) as sb, sb.session() as session:
        first = session.run(
            "open('/out/new.txt', 'w').write('hello')\n"
            "open('/out/kept.txt', 'w').write('changed!')\n"
            "print(open('/out/same.txt').read())"
        )
        assert [(f.path, f.size, f.created) for f in first.files] == [
            ("/out/kept.txt", 8, False),
            ("/out/new.txt", 5, True),
        ]
        assert "wrote: /out/new.txt (5 bytes, new)" in render(first)
        assert session.run("print('nothing written')").files == []


def test_no_writable_mount_lists_nothing(tmp_path: Path) -> None:
    policy = SandboxPolicy.preset("default").with_mounts(
        Mount(sandbox_path="/data", host_path=str(tmp_path))
    )
    with Sandbox(policy, spares=0) as sb, sb.session() as session:
        assert session.run("final_result(1)").files == []


def test_a_run_stopped_by_a_limit_lists_what_it_wrote(tmp_path: Path) -> None:
    policy = (
        SandboxPolicy.preset("default")
        .with_mounts(Mount(sandbox_path="/out", host_path=str(tmp_path), mode="rw"))
        .with_limits(wall_s=1.0)
    )
    with Sandbox(policy, spares=0) as sb, sb.session() as session:
        stopped = session.run(
            "f = open('/out/partial.txt', 'w')\nf.write('x' * 10)\nf.close()\nwhile True:\n    pass"
        )
        assert stopped.error_code in ("timeout", "cpu_limit")
        assert [(f.path, f.size) for f in stopped.files] == [("/out/partial.txt", 10)]
        assert session.run("final_result(1)").files == []
