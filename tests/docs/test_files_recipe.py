"""docs/cookbook/files.md: the policy file and the script, run by the page's command."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.pages import commands, titled

PAGE = "cookbook/files.md"
COVERS = {PAGE: ["policy.toml", "summarize.py"]}
BIN = Path(sys.executable).parent


@pytest.mark.timeout(120)
def test_codeact_exec_runs_the_script_under_the_policy_file(tmp_path: Path) -> None:
    for name in COVERS[PAGE]:
        (tmp_path / name).write_text(titled(PAGE, name))
    (tmp_path / "inputs").mkdir()
    (tmp_path / "results").mkdir()
    (tmp_path / "inputs" / "sales.csv").write_text("day,amount\nmon,120\ntue,95\nwed,143\n")
    (line,) = commands(PAGE)
    argv = shlex.split(line)
    done = subprocess.run(
        [str(BIN / argv[0]), *argv[1:]], capture_output=True, text=True, timeout=100, cwd=tmp_path
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "final result: 3" in done.stdout
    assert "wrote: /out/summary.json (11 bytes, new)" in done.stdout, done.stdout
    assert json.loads((tmp_path / "results" / "summary.json").read_text()) == {"days": 3}
