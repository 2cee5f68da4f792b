"""Mounts: the guard layer's open and path helpers, and the OS layer underneath."""

from __future__ import annotations

import errno
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import FinalResult, Mount, PolicyError, Sandbox, SandboxPolicy
from tests.confinement import degraded

FS_MODULES = ("os", "os.path", "pathlib")


@pytest.fixture(scope="module")
def dirs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("fs")
    data, out, secret = root / "data", root / "out", root / "secret"
    for d in (data, out, secret):
        d.mkdir()
    (data / "in.txt").write_text("hello\nworld\n")
    (data / "sub").mkdir()
    (data / "sub" / "deep.csv").write_text("a,b\n1,2\n")
    (secret / "token.txt").write_text("TOP-SECRET")
    os.symlink(secret / "token.txt", data / "leak")
    os.symlink(secret, data / "leakdir")
    return {"data": data, "out": out, "secret": secret}


def policy_for(dirs: dict[str, Path], **layers: bool) -> SandboxPolicy:
    base = SandboxPolicy.preset("default").with_mounts(
        Mount(sandbox_path="/data", host_path=str(dirs["data"])),
        Mount(sandbox_path="/out", host_path=str(dirs["out"]), mode="rw", max_bytes=1000),
    )
    base = base.model_copy(update={"modules": tuple(sorted({*base.modules, *FS_MODULES}))})
    return base.with_layers(**layers) if layers else base


@pytest.fixture(scope="module")
def sb(dirs: dict[str, Path]) -> Iterator[Sandbox]:
    with Sandbox(policy_for(dirs), spares=1) as sandbox:
        yield sandbox


def run(sb: Sandbox, source: str):  # type: ignore[no-untyped-def]
    with sb.session() as session:
        return session.run(source)


def test_read_and_list(sb: Sandbox) -> None:
    ex = run(
        sb,
        "import os\nfrom pathlib import Path\nfinal_result([open('/data/in.txt').read(),"
        " open('in.txt').readline(), os.listdir('/'), os.listdir('/data'),"
        " [p.name for p in Path('/data/sub').iterdir()], os.path.isdir('/data/sub'),"
        " open('/data/sub/deep.csv', 'rb').read().decode()])",
    )
    assert ex.output == FinalResult(
        value=[
            "hello\nworld\n",
            "hello\n",
            ["data", "out"],
            ["in.txt", "leak", "leakdir", "sub"],
            ["deep.csv"],
            True,
            "a,b\n1,2\n",
        ]
    )


def test_write_under_rw_mount(sb: Sandbox, dirs: dict[str, Path]) -> None:
    ex = run(
        sb,
        "from pathlib import Path\nwith open('/out/report.txt', 'w') as f:\n"
        "    f.write('done')\nPath('/out/more.txt').write_text('x')\n"
        "final_result(sorted(p.name for p in Path('/out').iterdir()))",
    )
    assert ex.output == FinalResult(value=["more.txt", "report.txt"])
    assert (dirs["out"] / "report.txt").read_text() == "done"


@pytest.mark.parametrize(
    ("source", "needle"),
    [
        ("open('/etc/passwd')", "outside the sandbox's mounts"),
        ("open('/data/../secret/token.txt')", "'..' is not allowed"),
        ("open('/data/leak').read()", "leads outside its mount"),
        ("open('/data/leakdir/token.txt').read()", "leads outside its mount"),
        ("open('/data/new.txt', 'w')", "read-only"),
        ("open('/data/in.txt', 'r+')", "mode 'r+' is not supported"),
        ("import os\nos.remove('/data/in.txt')", "read-only"),
        ("open('/out/big.txt', 'w').write('x' * 2000)", "write quota of 1000 bytes"),
    ],
)
def test_refusals(sb: Sandbox, dirs: dict[str, Path], source: str, needle: str) -> None:
    ex = run(sb, source)
    assert ex.error_code == "runtime_error"
    assert needle in ex.output.message  # type: ignore[union-attr]
    assert "TOP-SECRET" not in ex.model_dump_json()
    assert (dirs["data"] / "in.txt").exists()


def test_file_objects_do_not_expose_the_real_file(sb: Sandbox) -> None:
    ex = run(
        sb,
        "f = open('/data/in.txt')\nfinal_result([hasattr(f, 'buffer'), "
        "hasattr(f, 'fileno'), type(f).__name__])",
    )
    assert ex.output == FinalResult(value=[False, False, "SandboxFile"])


def test_no_mounts_means_no_files() -> None:
    with Sandbox("default", spares=0) as sandbox, sandbox.session() as session:
        ex = session.run("open('/etc/passwd')")
    assert ex.error_code == "runtime_error" and "NameError" in ex.output.message  # type: ignore[union-attr]


def test_os_layer_alone_confines_files(dirs: dict[str, Path]) -> None:
    with Sandbox(policy_for(dirs, language=False), spares=0) as sandbox:
        if not sandbox.confinement["filesystem"].startswith("active"):
            degraded(f"Landlock unavailable: {sandbox.confinement['filesystem']}")
        # A name of this test's own in /tmp, a place writable on the host but outside
        # every mount (whatever else /tmp holds must not change the outcome).
        stray = Path(f"/tmp/codeact-test-{uuid.uuid4().hex}")
        assert not stray.exists()
        with sandbox.session() as session:
            out, secret = dirs["out"], dirs["secret"]
            ex = session.run(
                "import os\nresults = []\n"
                f"for path, mode in [('/etc/passwd', 'r'), ('{secret}/token.txt', 'r'),"
                f" ('{dirs['data']}/leak', 'r'), ('{dirs['data']}/x', 'w'), ('{stray}', 'w')]:\n"
                "    try:\n        open(path, mode).read() if mode == 'r' else open(path, mode)\n"
                "        results.append('opened ' + path)\n"
                "    except OSError as e:\n        results.append(e.errno)\n"
                f"open('{out}/ok.txt', 'w').write('fine')\n"
                f"results.append(open('{dirs['data']}/in.txt').read())\n"
                "final_result(results)"
            )
    # Inside the minimal root what lies outside the mounts does not exist (ENOENT) and
    # the read-only mount and root refuse writes (EROFS); Landlock alone says EACCES.
    if sandbox.confinement["minimal_root"].startswith("active"):
        refused = [errno.ENOENT] * 3 + [errno.EROFS] * 2
    else:
        refused = [errno.EACCES] * 5
    assert ex.output == FinalResult(value=[*refused, "hello\nworld\n"]), ex.output
    assert (dirs["out"] / "ok.txt").read_text() == "fine"
    assert not stray.exists()


def test_mount_validation(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="overlap"):
        SandboxPolicy.preset("default").with_mounts(
            Mount(sandbox_path="/a", host_path="."), Mount(sandbox_path="/a/b", host_path=".")
        )
    with pytest.raises(ValueError, match="absolute"):
        Mount(sandbox_path="data", host_path=".")
    with pytest.raises(TypeError, match="separate arguments"):
        SandboxPolicy.preset("default").with_mounts([Mount(sandbox_path="/a", host_path=".")])  # type: ignore[arg-type]
    missing = SandboxPolicy.preset("default").with_mounts(
        Mount(sandbox_path="/x", host_path=str(tmp_path / "nope"))
    )
    with pytest.raises(PolicyError, match="does not exist"):
        Sandbox(missing).start()
    (tmp_path / "inner").mkdir()
    inside = SandboxPolicy.preset("default").with_mounts(
        Mount(sandbox_path="/out", host_path=str(tmp_path), mode="rw"),
        Mount(sandbox_path="/data", host_path=str(tmp_path / "inner")),
    )
    with pytest.raises(PolicyError, match=r"/data \(ro\) is inside /out \(rw\)"):
        Sandbox(inside).start()
    # The other way round is fine: a writable directory inside a read-only one.
    outside = SandboxPolicy.preset("default").with_mounts(
        Mount(sandbox_path="/data", host_path=str(tmp_path)),
        Mount(sandbox_path="/out", host_path=str(tmp_path / "inner"), mode="rw"),
    )
    with Sandbox(outside) as sandbox, sandbox.session() as session:
        assert session.run("x = 1").ok


def test_host_stops_a_session_that_overdraws_a_mount(dirs: dict[str, Path]) -> None:
    with Sandbox(policy_for(dirs, language=False), spares=0) as sandbox:
        if not sandbox.confinement["filesystem"].startswith("active"):
            degraded(f"Landlock unavailable: {sandbox.confinement['filesystem']}")
        with sandbox.session() as session:
            out = dirs["out"]
            ex = session.run(
                f"for i in range(3):\n    open('{out}/part%d' % i, 'w').write('x' * 600)"
            )
            assert ex.error_code == "output_limit"
            assert "more than its budget of 1000 bytes" in ex.output.message  # type: ignore[union-attr]
            after = session.run("final_result('more')")
    # The budget is the session's: once overdrawn, the session runs nothing more.
    assert after.error_code == "output_limit" and "budget" in after.output.message  # type: ignore[union-attr]
