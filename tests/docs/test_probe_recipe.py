"""docs/cookbook/probe-report.md: the page's probe (its HTML page and its JSON records, in
one run: the two command lines differ only in the output asked for) and the script that
reads the records."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.pages import commands, titled

PAGE = "cookbook/probe-report.md"
COVERS = {PAGE: ["read_probe.py"]}
BIN = Path(sys.executable).parent


@pytest.mark.timeout(420)
def test_the_probe_and_the_script_that_reads_it(tmp_path: Path) -> None:
    (tmp_path / "read_probe.py").write_text(titled(PAGE, "read_probe.py"))
    html, as_json, read = [c for c in commands(PAGE) if not c.startswith("codeact policy diff")]
    assert as_json == html.replace(" --html probe.html", " --json --display none > probe.jsonl")
    argv = shlex.split(html)
    with (tmp_path / "probe.jsonl").open("w") as records:
        done = subprocess.run(
            [str(BIN / argv[0]), *argv[1:], "--json", "--display", "none"],
            stdout=records, stderr=subprocess.PIPE, text=True, timeout=400, cwd=tmp_path,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    page = (tmp_path / "probe.html").read_text()
    for shown in ("Legend", "What this machine enforced", "layers on: language,os", "0 escaped"):
        assert shown in page, shown
    words = shlex.split(read)
    assert words[0] == "python"
    out = subprocess.run(
        [sys.executable, *words[1:]], capture_output=True, text=True, timeout=60, cwd=tmp_path
    )
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[0].split() == ["case", "language,os", "language", "os"]
    # Other cases may join these categories; with the language layer off none is rejected.
    assert re.fullmatch(r"os: 0 rejected, \d+ contained, 0 escaped", lines[-1]), lines[-1]
    assert any(line.startswith("net-tcp-connect ") for line in lines)
