"""``codeact policy diff --exit-code``: a CI gate on a policy change, like git's."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sandbox import policy_cli

pytestmark = pytest.mark.timeout(60)


def _status(*args: str) -> int:
    return policy_cli.main(["policy", "diff", *args])


def test_exit_code_is_one_when_the_policies_differ(capsys: pytest.CaptureFixture[str]) -> None:
    assert _status("default", "strict", "--exit-code") == 1
    assert "modules" in capsys.readouterr().out  # the changes are still printed
    assert _status("default", "strict", "--exit-code", "--json") == 1
    assert _status("strict", "strict", "--exit-code") == 0
    assert _status("default", "strict") == 0  # without the flag, as before


def test_the_name_alone_is_no_difference(tmp_path: Path) -> None:
    renamed = tmp_path / "renamed.toml"
    renamed.write_text('extends = "default"\nname = "mine"\n')
    assert _status("default", str(renamed), "--exit-code") == 0


def test_from_the_command_line(tmp_path: Path) -> None:
    looser = tmp_path / "looser.toml"
    looser.write_text('extends = "default"\n[limits]\nwall_s = 60\n')
    done = subprocess.run(
        [sys.executable, "-m", "codeact.cli", "policy", "diff", "default", str(looser),
         "--exit-code"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "limits.wall_s: 10.0 -> 60.0" in done.stdout
