"""Private writes: how the policy asks for them, and what holds whatever the directory's
size, the language layer or the kernel's means (an overlay, else a staged copy)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sandbox import ErrorCode, Mount, PolicyError, Sandbox, SandboxError, SandboxPolicy

MIB = 1 << 20


def _policy(out: Path, max_bytes: int = MIB, **layers: bool) -> SandboxPolicy:
    mount = Mount(sandbox_path="/out", host_path=str(out), mode="rw", max_bytes=max_bytes)
    policy = SandboxPolicy.preset("default").with_mounts(mount).with_limits(wall_s=10)
    return policy.with_layers(**layers) if layers else policy


def test_writes_are_private_unless_the_policy_says_otherwise(tmp_path: Path) -> None:
    policy = _policy(tmp_path)
    assert policy.writes == "private"
    assert policy.with_writes("direct").writes == "direct"
    assert policy.worker_config()["private_writes"] is True
    assert policy.with_writes("direct").worker_config()["private_writes"] is False
    (tmp_path / "p.toml").write_text(
        'extends = "default"\nwrites = "direct"\n'
        f'[[mounts]]\nsandbox_path = "/out"\nhost_path = "{tmp_path}"\nmode = "rw"\n'
    )
    assert SandboxPolicy.from_file(tmp_path / "p.toml").writes == "direct"


def test_direct_writes_are_refused_with_modules_no_one_curated(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="writes = 'direct' would let modules no one"):
        _policy(tmp_path).allow_modules("tomllib").with_writes("direct")
    with pytest.raises(PolicyError, match="writes = 'direct' would let modules no one"):
        _policy(tmp_path).with_writes("direct").allow_modules("*")


def test_direct_writes_are_refused_with_the_language_layer_off(tmp_path: Path) -> None:
    # Plain Python reaches every module: written directly, a mount's budget would only
    # stop the session after the bytes were on the host.
    with pytest.raises(PolicyError, match="the language layer is off"):
        _policy(tmp_path, language=False).with_writes("direct")
    with pytest.raises(PolicyError, match="the language layer is off"):
        _policy(tmp_path).with_writes("direct").with_layers(language=False)
    with pytest.raises(PolicyError, match="the language layer is off"):
        _policy(tmp_path).with_writes("direct").with_layers(language=False, os=False)


def test_without_the_os_layer_writable_mounts_must_be_said_direct(tmp_path: Path) -> None:
    with pytest.raises(PolicyError, match="set writes = 'direct'"):
        _policy(tmp_path, os=False)
    policy = _policy(tmp_path).with_writes("direct").with_layers(os=False)
    assert policy.worker_config()["private_writes"] is False


@pytest.mark.timeout(120)
def test_direct_writes_reach_the_directory_while_the_run_goes_on(tmp_path: Path) -> None:
    seen: list[bool] = []

    def look() -> str:
        """Whether the file is on the host yet."""
        seen.append((tmp_path / "now.txt").exists())
        return "ok"

    policy = _policy(tmp_path).with_writes("direct")
    with Sandbox(policy, spares=0) as sandbox, sandbox.session(tools={"look": look}) as session:
        ran = session.run("open('/out/now.txt', 'w').write('x')\nlook()")
        assert ran.ok, ran.output
        assert "private_writes" not in sandbox.confinement
    assert seen == [True]


@pytest.fixture(scope="module")
def huge(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory beyond any copy's limits: 20,500 entries, 300 MiB (sparse)."""
    root = tmp_path_factory.mktemp("huge")
    for index in range(20_500):
        (root / f"f{index:05}").touch()
    with open(root / "big.bin", "wb") as big:
        big.truncate(300 * MIB)
    return root


@pytest.mark.timeout(180)
@pytest.mark.parametrize("language", [True, False], ids=["all layers", "os layer alone"])
def test_a_directory_of_any_size_is_private(huge: Path, language: bool) -> None:
    base = "/out" if language else str(huge)
    with Sandbox(_policy(huge, language=language), spares=0) as sandbox:
        started = time.perf_counter()
        with sandbox.session() as session:
            assert time.perf_counter() - started < 10  # nothing is copied
            assert sandbox.confinement["private_writes"].startswith("active (copy-on-write")
            ran = session.run(
                f"import os\nopen({base!r} + '/f00001', 'w').write('changed')\n"
                f"os.remove({base!r} + '/f00002')\nfinal_result(len(os.listdir({base!r})))"
                if not language
                else "open('/out/f00001', 'w').write('changed')\nfinal_result(1)"
            )
            assert ran.ok, ran.output
    assert (huge / "f00001").read_text() == "changed"
    assert language or not (huge / "f00002").exists()
    if not language:
        (huge / "f00002").touch()


FALLOCATE = (
    "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
    "def reserve(path, size):\n"
    "    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)\n"
    "    got = libc.fallocate(fd, 1, ctypes.c_long(0), ctypes.c_long(size))\n"
    "    os.close(fd)\n    return got\n"
)


@pytest.mark.timeout(120)
def test_blocks_reserved_with_fallocate_count_though_the_length_is_zero(tmp_path: Path) -> None:
    base = str(tmp_path)
    with Sandbox(_policy(tmp_path, language=False), spares=0) as sandbox:
        with sandbox.session() as session:
            # 200 MiB of blocks at once: beyond the layer (and the file-size limit).
            ran = session.run(FALLOCATE + f"final_result(reserve({base!r} + '/huge', 200 << 20))")
            assert ran.output.value == -1  # type: ignore[union-attr]
            # 900 kB of blocks with st_size 0, then 200 kB written: over the 1 MiB budget.
            ran = session.run(
                FALLOCATE + f"assert reserve({base!r} + '/reserved', 900_000) == 0\n"
                f"open({base!r} + '/data', 'w').write('x' * 200_000)"
            )
            assert ran.error_code == ErrorCode.OUTPUT_LIMIT, ran.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["huge"]
    assert os.stat(tmp_path / "huge").st_blocks == 0


@pytest.mark.timeout(120)
def test_over_budget_bytes_never_reach_the_host(tmp_path: Path) -> None:
    with Sandbox(_policy(tmp_path, 1_000_000, language=False), spares=0) as sandbox:
        with sandbox.session() as session:
            ran = session.run(
                f"for n in range(3):\n"
                f"    open({str(tmp_path)!r} + f'/part{{n}}', 'w').write('x' * 1_000_000)"
            )
            assert ran.error_code == ErrorCode.OUTPUT_LIMIT
    assert list(tmp_path.iterdir()) == []


@pytest.fixture()
def copies(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Workers make staged copies, as where the kernel has no overlay."""
    config = SandboxPolicy.worker_config

    def copy_only(self: SandboxPolicy) -> dict[str, Any]:
        return {**config(self), "private_via": "copy"}

    monkeypatch.setattr(SandboxPolicy, "worker_config", copy_only)
    yield


@pytest.mark.timeout(120)
@pytest.mark.parametrize("language", [True, False], ids=["all layers", "os layer alone"])
def test_without_overlays_a_staged_copy_holds_the_same(
    tmp_path: Path, copies: None, language: bool
) -> None:
    (tmp_path / "old.txt").write_text("old")
    base = "/out" if language else str(tmp_path)
    policy = _policy(tmp_path, language=language)
    policy = policy.model_copy(update={"modules": (*policy.modules, "os")})
    with Sandbox(policy, spares=0) as sandbox, sandbox.session() as session:
        ran = session.run(
            f"import os\nopen({base!r} + '/new.txt', 'w').write('new')\n"
            f"os.remove({base!r} + '/old.txt')"
        )
        assert ran.ok, ran.output
        assert sandbox.confinement["private_writes"].startswith("active (staged copies")
        assert [f.path for f in ran.files] == ["/out/new.txt"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.txt"]


@pytest.mark.timeout(120)
def test_a_copy_too_big_refuses_the_session_rather_than_fail_open(
    huge: Path, copies: None
) -> None:
    with Sandbox(_policy(huge, language=False), spares=0) as sandbox:
        with pytest.raises(SandboxError, match="cannot be made private") as refused:
            sandbox.session()
    assert "entries" in str(refused.value) or "bytes" in str(refused.value)


@pytest.mark.timeout(120)
def test_the_worker_cannot_reach_its_upper_layer_but_through_the_overlay(tmp_path: Path) -> None:
    # The worker keeps its descriptor of the layer's tmpfs for the host to open; Landlock
    # refuses every path beneath it (nothing there is granted).
    script = (
        "import os\nout = []\n"
        "for fd in range(3, 32):\n"
        "    for name in ('upper/planted', 'upper', 'work'):\n"
        "        try:\n"
        "            os.close(os.open(name, os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd))\n"
        "            out.append([fd, name])\n"
        "        except OSError:\n"
        "            pass\n"
        "final_result(out)"
    )
    with Sandbox(_policy(tmp_path, language=False), spares=0) as sandbox:
        with sandbox.session() as session:
            ran = session.run(script)
    assert ran.output.value == []  # type: ignore[union-attr]
    assert list(tmp_path.iterdir()) == []
