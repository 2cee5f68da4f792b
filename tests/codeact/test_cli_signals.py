"""Ctrl-C and SIGTERM at any moment of ``codeact run`` end it with 130 and 143, one
line and no traceback: during its imports, while its sandbox starts, while the model
answers and while a script runs.

The moments are taken from the command's first line of code on (when it has taken
SIGTERM, which Python itself never does): before that the interpreter is starting up,
outside the program. One moment per 300 ms of the first 3 s, for each signal, drawn
with a fixed seed; ``CODEACT_SIGNAL_MOMENTS=all`` tries every 50 ms.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REPLY = '["Working on it.\\n```python\\nwhile True:\\n    pass\\n```"]'


def _moments() -> list[float]:
    every = [step * 0.05 for step in range(60)]
    if os.environ.get("CODEACT_SIGNAL_MOMENTS") == "all":
        return every
    draw = random.Random(23)
    return [draw.choice(every[i : i + 6]) for i in range(0, 60, 6)]


def _command() -> list[str]:
    script = Path(sys.executable).with_name("codeact")
    return [str(script)] if script.exists() else [sys.executable, "-m", "codeact"]


def _catches_sigterm(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) & (1 << (signal.SIGTERM - 1)))


def _shell_status(returncode: int) -> int:
    """What a shell reports: 128 + the signal for a process a signal ended."""
    return 128 - returncode if returncode < 0 else returncode


def _interrupt(tmp_path: Path, signum: int, after: float) -> tuple[int, str]:
    (tmp_path / "reply.json").write_text(REPLY)
    proc = subprocess.Popen(
        [*_command(), "run", "count forever", "--model", "scripted:reply.json"],
        cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while not _catches_sigterm(proc.pid):
            assert proc.poll() is None and time.monotonic() < deadline, "it never started"
            time.sleep(0.002)
        time.sleep(after)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return _shell_status(proc.returncode), err


@pytest.mark.timeout(600)
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_at_any_moment_ends_the_run_with_its_status_and_no_traceback(
    tmp_path: Path, signum: int, status: int
) -> None:
    wrong = []
    for after in _moments():
        got, err = _interrupt(tmp_path, signum, after)
        if got != status or "Traceback" in err or "codeact: interrupted" not in err:
            wrong.append(f"{after:.2f} s: status {got}, stderr {err[-600:]!r}")
    assert not wrong, "\n".join(wrong)
