"""Bad input to the ``codeact`` command ends in one line and a documented status: closed
or non-UTF-8 standard input and files alike, a task that is not UTF-8, a policy whose
mount is missing, and an error nobody expected."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codeact.cli import main

ROOT = Path(__file__).resolve().parents[2]
NOT_UTF8 = b'print("caf\xe9")\n'


def _codeact(
    *args: str | bytes, stdin: bytes | None = None, closed_stdin: bool = False, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "codeact", *args], cwd=cwd, capture_output=True, timeout=60,
        input=stdin, stdin=None if stdin is not None or closed_stdin else subprocess.DEVNULL,
        preexec_fn=(lambda: os.close(0)) if closed_stdin else None,
        env={**os.environ, "PYTHONPATH": str(ROOT), "LC_ALL": "C"},
    )  # fmt: skip
    err = result.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err
    return subprocess.CompletedProcess(
        result.args, result.returncode, result.stdout.decode("utf-8", "replace"), err
    )


def _scripted(tmp_path: Path, *sources: str) -> str:
    fence = "`" * 3
    replies = [f"Doing it.\n{fence}python\n{source}\n{fence}" for source in sources]
    (tmp_path / "replies.json").write_text(json.dumps(replies))
    return f"scripted:{tmp_path / 'replies.json'}"


@pytest.mark.timeout(60)
def test_exec_with_closed_standard_input_is_bad_usage() -> None:
    result = _codeact("exec", "-", closed_stdin=True)
    assert result.returncode == 2
    assert result.stderr == "codeact exec: cannot read standard input: it is closed\n"


@pytest.mark.timeout(60)
def test_a_script_that_is_not_utf8_is_bad_usage_from_standard_input_and_from_a_file(
    tmp_path: Path,
) -> None:
    piped = _codeact("exec", "-", stdin=NOT_UTF8)
    assert piped.returncode == 2
    assert piped.stderr == (
        "codeact exec: cannot read standard input: not valid UTF-8 (byte 0xe9 at position 10)\n"
    )
    (tmp_path / "script.py").write_bytes(NOT_UTF8)
    filed = _codeact("exec", str(tmp_path / "script.py"))
    assert filed.returncode == 2
    assert filed.stderr == (
        f"codeact exec: cannot read {tmp_path / 'script.py'}: not valid UTF-8 "
        "(byte 0xe9 at position 10)\n"
    )
    fine = _codeact("exec", "-", stdin='print("café")\n'.encode())
    assert fine.returncode == 0 and "café" in fine.stdout


@pytest.mark.timeout(60)
@pytest.mark.parametrize("as_json", [False, True])
def test_a_task_that_is_not_utf8_is_bad_usage(tmp_path: Path, as_json: bool) -> None:
    model = _scripted(tmp_path, "final_result(1)")
    args = [b"run", b"caf\xe9", b"--model", model.encode()] + ([b"--json"] * as_json)
    result = _codeact(*args)
    assert result.returncode == 2
    assert result.stderr == "codeact run: TASK is not valid UTF-8 (byte 0xe9 at position 3)\n"
    empty = _codeact("run", "  ", "--model", model)
    assert empty.returncode == 2 and "TASK is empty" in empty.stderr


@pytest.mark.timeout(60)
def test_approve_file_from_standard_input_follows_the_rules_of_a_file(tmp_path: Path) -> None:
    model = _scripted(tmp_path, "final_result(1)")
    base = ["run", "t", "--model", model, "--approve-file"]
    closed = _codeact(*base, "-", closed_stdin=True)
    assert closed.returncode == 2
    assert "--approve-file -: cannot read standard input: it is closed" in closed.stderr
    bad = _codeact(*base, "-", stdin=b"y\xff\n")
    assert bad.returncode == 2 and "not valid UTF-8 (byte 0xff at position 1)" in bad.stderr
    (tmp_path / "decisions").write_bytes(b"y\xff\n")
    filed = _codeact(*base, str(tmp_path / "decisions"))
    assert filed.returncode == 2 and "not valid UTF-8 (byte 0xff at position 1)" in filed.stderr
    approved = _codeact(*base, "-", stdin=b"y\n")
    assert approved.returncode == 0 and "script approved" in approved.stdout


@pytest.mark.timeout(120)
def test_policy_show_calls_a_missing_mount_bad_usage_as_exec_does(tmp_path: Path) -> None:
    policy = tmp_path / "mounted.toml"
    missing = tmp_path / "nowhere"
    policy.write_text(
        f'name = "mounted"\nmodules = ["math"]\n'
        f'[[mounts]]\nhost_path = "{missing}"\nsandbox_path = "/data"\n'
    )
    shown = _codeact("policy", "show", str(policy))
    executed = _codeact("exec", "-", "--policy", str(policy), stdin=b"1\n")
    assert (shown.returncode, executed.returncode) == (2, 2), (shown.stderr, executed.stderr)
    assert str(missing) in shown.stderr and "the sandbox failed" not in shown.stderr


@pytest.mark.timeout(60)
def test_an_unexpected_error_is_one_line_and_status_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from sandbox import cli as sandbox_cli

    def broken(args: object) -> int:
        raise RuntimeError("a bug nobody saw coming")

    monkeypatch.setattr(sandbox_cli, "run_exec", broken)
    assert main(["exec", "-"]) == 1
    err = capsys.readouterr().err
    assert err == "codeact exec: internal error: RuntimeError: a bug nobody saw coming\n"
