"""The per-test leak check blames the test that leaked, kills the leak, and spares the
tests after it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

LEAKY = """
import subprocess, sys

def test_leaks():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)  # leaked"])

def test_after_one():
    pass

def test_after_two():
    pass
"""


@pytest.mark.timeout(90)
def test_a_leak_fails_only_the_test_that_made_it(tmp_path: Path) -> None:
    shutil.copy(ROOT / "tests" / "conftest.py", tmp_path / "conftest.py")
    (tmp_path / "test_leaky.py").write_text(LEAKY)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            str(tmp_path),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=80,
    )
    out = done.stdout
    assert "3 passed, 1 error" in out, out
    assert "test_leaky.py::test_leaks left processes behind (now killed)" in out
    assert "test_after_one" not in out.split("short test summary")[-1]
    ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
    assert "time.sleep(120)  # leaked" not in ps
