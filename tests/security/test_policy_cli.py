"""``codeact policy``: show, probe and diff — output and exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox import SandboxPolicy, policy_cli
from sandbox.probe import CaseResult

ROOT = Path(__file__).resolve().parents[2]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = policy_cli.main(["policy", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_show_names_digest_and_enforcement(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "show", "strict")
    assert status == 0
    assert f"digest: {SandboxPolicy.preset('strict').digest()}" in out
    assert "layers: language on, os on" in out
    assert "enforced on this machine:" in out and "syscall_filter" in out


def test_show_json_is_one_object(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "show", "--json")
    report = policy_cli.PolicyReport.model_validate_json(out)
    assert status == 0
    assert report.digest == SandboxPolicy.preset("default").digest()
    assert report.policy["layers"] == {"language": True, "os": True}
    assert {"language", "filesystem", "syscall_filter", "rlimits"} <= set(report.confinement)


def test_show_a_missing_file_is_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "show", "no-such-policy.toml")
    assert status == 2 and "neither a preset" in err


def test_diff_lists_dotted_paths_and_meaning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, out, _ = run(capsys, "diff", "default", "strict")
    assert status == 0
    assert "limits.wall_s: 10.0 -> 2.0" in out and "tighter" in out
    assert "modules:" in out and "removes" in out
    research = tmp_path / "research.toml"
    research.write_text('extends = "default"\n[layers]\nlanguage = false\n')
    status, out, _ = run(capsys, "diff", "default", str(research))
    assert "layers.language: true -> false" in out
    assert "run as plain Python" in out
    status, out, _ = run(capsys, "diff", "strict", "strict")
    assert status == 0 and out.startswith("no differences")


def test_diff_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "diff", "default", "strict", "--json")
    paths = {change["path"] for change in json.loads(out)}
    assert status == 0 and {"modules", "limits.memory_mb", "name"} <= paths


@pytest.mark.timeout(120)
def test_probe_prints_the_table_and_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "probe", "--category", "imports", "--category", "frames")
    assert status == 0
    assert "success rate" in out
    for row in ("imports", "frames", "total"):
        assert any(line.startswith(row) for line in out.splitlines()), row


@pytest.mark.timeout(120)
def test_probe_json_lines(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "probe", "--suite", "redcode", "--category", "7", "--json")
    records = [CaseResult.model_validate_json(line) for line in out.splitlines()]
    assert status == 0
    assert len(records) == 30 and {r.category for r in records} == {"07 read-sensitive-file"}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--layers", ""], "both layers off"),
        (["--layers", "language,kernel"], "unknown layer"),
        (["--suite", "no-such-suite"], "unknown suite"),
        (["--policy", "no-such.toml"], "neither a preset"),
        (["--category", "no-such-category"], "no case matched"),
    ],
)
def test_probe_bad_usage_exits_2(
    capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    status, _, err = run(capsys, "probe", *args)
    assert status == 2 and message in err


def test_probe_exits_1_when_anything_escaped(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    escaped = CaseResult(
        id="x", category="network", outcome="escaped", detail="the TCP listener was contacted"
    )
    monkeypatch.setattr(policy_cli, "run_suite", lambda *a, **k: [escaped])
    status, out, _ = run(capsys, "probe")
    assert status == 1
    assert "ESCAPED x: the TCP listener was contacted" in out
    assert "100.0%" in out


def test_codeact_entry_point_when_wired() -> None:
    from codeact import cli

    if "policy" not in cli.build_parser().format_help():
        pytest.skip("codeact/cli.py does not register `policy` yet")
    done = subprocess.run(
        [sys.executable, "-m", "codeact.cli", "policy", "diff", "default", "strict"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0 and "limits.wall_s" in done.stdout


@pytest.mark.timeout(180)
def test_probe_records_carry_the_probed_policys_digest(
    capsys: pytest.CaptureFixture[str],
) -> None:
    digest = SandboxPolicy.preset("default").digest()
    seen = set()
    for _ in range(2):
        status, out, _ = run(capsys, "probe", "--category", "environment", "--json")
        assert status == 0
        seen |= {CaseResult.model_validate_json(line).policy_digest for line in out.splitlines()}
    assert seen == {digest}
    status, out, _ = run(capsys, "probe", "--category", "environment")
    assert f"digest {digest[:12]}" in out.splitlines()[0]


def test_show_describes_read_only_mounts_and_names_a_file_policy(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    policy = tmp_path / "research.toml"
    policy.write_text(
        'extends = "default"\n'
        f'[[mounts]]\nsandbox_path = "/data"\nhost_path = "{tmp_path / "in"}"\n'
        f'[[mounts]]\nsandbox_path = "/out"\nhost_path = "{tmp_path / "out"}"\nmode = "rw"\n'
        "max_bytes = 4096\n"
    )
    status, out, _ = run(capsys, "show", str(policy))
    assert status == 0
    assert f"policy: {policy} (extends default)" in out
    assert f"/data -> {tmp_path / 'in'} (read-only)" in out
    assert f"/out -> {tmp_path / 'out'} (read-write, 4096 bytes writable per session)" in out
    named = tmp_path / "named.toml"
    named.write_text('extends = "strict"\nname = "lab"\n')
    status, out, _ = run(capsys, "show", str(named))
    assert "policy: lab\n" in out


@pytest.mark.parametrize("suite", ["escapes", "redcode"])
def test_a_missing_suite_names_itself(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, suite: str
) -> None:
    from sandbox.probe import corpus

    real = corpus.security_dir

    def nowhere(name: str = "corpus", prefixes: object = None) -> Path:
        # As installed without the data: no checkout beside the package, no data files.
        monkeypatch.setattr(corpus, "__file__", str(tmp_path / "a" / "b" / "corpus.py"))
        return real(name, [tmp_path])

    monkeypatch.setattr(corpus, "security_dir", nowhere)
    monkeypatch.setattr("sandbox.probe.redcode_cases.security_dir", nowhere)
    status, _, err = run(capsys, "probe", "--suite", suite)
    assert status == 2
    expected = "RedCode-Exec suite" if suite == "redcode" else "security corpus"
    assert f"{expected} (benchmarks/security/" in err and "is not installed" in err


WHEEL_DATA = "codeact-0.1.0.data/data"


@pytest.mark.timeout(300)
def test_the_wheel_ships_both_suites_and_the_probe_finds_them(tmp_path: Path) -> None:
    import shutil
    import zipfile

    source = tmp_path / "src"
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "sandbox", "codeact"):
        if (ROOT / name).is_dir():
            shutil.copytree(
                ROOT / name, source / name, ignore=shutil.ignore_patterns("__pycache__")
            )
        else:
            shutil.copy(ROOT / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(
        ROOT / "benchmarks" / "security", source / "benchmarks" / "security", ignore=ignore
    )
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), "."],
        cwd=source,
        capture_output=True,
        text=True,
        timeout=240,
    )
    if built.returncode != 0:
        pytest.skip(f"no wheel could be built here (no build backend?): {built.stderr[-300:]}")
    (wheel,) = tmp_path.glob("codeact-*.whl")
    unpacked = tmp_path / "unpacked"
    zipfile.ZipFile(wheel).extractall(unpacked)
    names = zipfile.ZipFile(wheel).namelist()
    corpus = [n for n in names if n.startswith(f"{WHEEL_DATA}/share/codeact/security/corpus/")]
    assert len(corpus) == len(list((ROOT / "benchmarks/security/corpus").glob("*.py")))
    assert f"{WHEEL_DATA}/share/codeact/security/redcode/LICENSE" in names
    # The wheel's own locator, with the data files where an install puts them.
    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "from pathlib import Path\n"
        "import sandbox.probe.corpus as c\n"
        "assert 'unpacked' in c.__file__, c.__file__\n"
        "c.install_prefixes = lambda: [Path(sys.argv[2])]\n"
        "from sandbox.probe.redcode_cases import load_redcode\n"
        "print(len(c.load_corpus()), len(load_redcode()))\n"
    )
    found = subprocess.run(
        [sys.executable, "-c", script, str(unpacked), str(unpacked / WHEEL_DATA)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert found.returncode == 0, found.stderr
    assert found.stdout.split() == [str(len(corpus)), "810"]
