"""The *Scaling out* page's example runs (it starts a local Ray of its own)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="Ray is not installed: pip install 'codeact[ray]'")

ROOT = Path(__file__).resolve().parents[2]
SECTION = (ROOT / "docs" / "guide" / "scaling.md").read_text()


def test_the_page_has_its_example() -> None:
    assert re.findall(r"```py\n(.*?)```", SECTION, flags=re.S)


@pytest.mark.timeout(150)
@pytest.mark.parametrize("source", re.findall(r"```py\n(.*?)```", SECTION, flags=re.S))
def test_scaling_out_example_runs(source: str) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    result = subprocess.run(
        [sys.executable, "-c", source], cwd=ROOT, env={**env, "PYTHONPATH": str(ROOT)},
        capture_output=True, text=True, timeout=140,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
