"""Without Ray installed, codeact and ``codeact bench`` work, and ``--backend ray`` says
what to install."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Python refuses to import a module whose sys.modules entry is None: Ray is "missing".
NO_RAY = "import sys\nsys.modules['ray'] = None\n"


def _run(source: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", NO_RAY + source], cwd=ROOT, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip


@pytest.mark.timeout(90)
def test_codeact_never_needs_ray(tmp_path: Path) -> None:
    log = tmp_path / "log"
    done = _run(
        "import codeact, codeact.bench.runner, codeact.bench.cli, codeact.cli\n"
        "from codeact.cli import main\n"
        "sys.exit(main(['bench', 'run', 'm3tooleval', '--model', 'golden', '--limit', '1',"
        f" '--backend', 'ray', '--display', 'none', '--log-dir', {str(log)!r}]))"
    )
    assert done.returncode == 2, done.stderr
    assert "pip install 'codeact[ray]'" in done.stderr
    assert not log.exists(), "nothing is written before the backend is known to work"


@pytest.mark.timeout(90)
def test_ray_address_needs_the_ray_backend() -> None:
    done = _run(
        "from codeact.cli import main\n"
        "sys.exit(main(['bench', 'run', 'm3tooleval', '--model', 'golden',"
        " '--ray-address', 'auto']))"
    )
    assert done.returncode == 2 and "--ray-address goes with --backend ray" in done.stderr
