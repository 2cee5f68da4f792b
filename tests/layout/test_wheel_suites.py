"""The built-in suites are package data: from a wheel installed in a fresh environment
(no checkout on the path), ``codeact bench list`` loads them, ``codeact bench run
m3tooleval --model golden`` passes 82/82, and the loopback fake server serves them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.layout.test_packaging import _pip, _sources, _venv


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A fresh environment with the wheel installed; its interpreter and a work dir."""
    tmp = tmp_path_factory.mktemp("wheel")
    source = _sources(tmp / "src")
    dist = tmp / "dist"
    _pip(Path(sys.executable), "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
         str(dist), ".", cwd=source)  # fmt: skip
    (wheel,) = dist.glob("codeact-*.whl")
    python = _venv(tmp / "venv")
    _pip(python, "install", "--no-deps", "-q", str(wheel), cwd=tmp)
    work = tmp / "work"
    work.mkdir()
    return python, work


def _codeact(
    python: Path, work: Path, *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    return subprocess.run(
        [str(python), "-m", "codeact.cli", *args], capture_output=True, text=True, cwd=work,
        env=env, timeout=timeout,
    )  # fmt: skip


@pytest.mark.timeout(300)
def test_bench_list_loads_the_built_in_suites_from_the_wheel(installed: tuple[Path, Path]) -> None:
    python, work = installed
    where = subprocess.run(
        [str(python), "-I", "-c", "import codeact.bench.m3tooleval as m; print(m.__file__)"],
        capture_output=True, text=True, cwd=work, timeout=60,
    )  # fmt: skip
    assert Path(where.stdout.strip()).is_relative_to(python.parents[1]), where
    listed = _codeact(python, work, "bench", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    (suite,) = json.loads(listed.stdout)
    assert (suite["name"], suite["tasks"], suite["golden"]) == ("m3tooleval", 82, True)
    data = Path(where.stdout.strip()).parent / "data"
    assert "Xingyao Wang" in (data / "LICENSE").read_text()


@pytest.mark.timeout(600)
def test_the_golden_suite_runs_to_82_of_82_from_the_wheel(installed: tuple[Path, Path]) -> None:
    python, work = installed
    run = _codeact(python, work, "bench", "run", "m3tooleval", "--model", "golden", "--json",
                   "--log-dir", str(work / "logs"), timeout=540)  # fmt: skip
    assert run.returncode == 0, run.stderr[-3000:]
    summary = json.loads(run.stdout)
    assert (summary["samples"], summary["passed"]) == (82, 82)


def _sigint_by_default() -> None:
    # A run started in the background (``nohup``, ``cmd &``) ignores SIGINT, and Python
    # keeps an ignored SIGINT ignored: the server would not hear the Ctrl-C sent below.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.timeout(120)
def test_the_fake_server_serves_the_suite_from_the_wheel(installed: tuple[Path, Path]) -> None:
    python, work = installed
    server = subprocess.Popen(
        [str(python), "-m", "codeact.bench.fake_server", "m3tooleval", "--port", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=work,
        preexec_fn=_sigint_by_default,
    )  # fmt: skip
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert "serving m3tooleval golden replies at http://127.0.0.1:" in line, line
    finally:
        server.send_signal(signal.SIGINT)
        _, err = server.communicate(timeout=30)
    assert server.returncode == 0 and "Traceback" not in err, err
    bad = subprocess.run(
        [str(python), "-m", "codeact.bench.fake_server", "nosuch"], capture_output=True,
        text=True, cwd=work, timeout=60,
    )  # fmt: skip
    assert bad.returncode == 2 and "unknown suite 'nosuch'" in bad.stderr
    assert "Traceback" not in bad.stderr
