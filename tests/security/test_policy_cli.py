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
