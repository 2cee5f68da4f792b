"""``codeact run --mcp`` and ``-v``: MCP tools and log lines from the command line."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.codeact.mcp_helpers import TRAVEL

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).resolve().parents[2]
FENCE = "`" * 3


def codeact(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codeact.cli", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=100, stdin=subprocess.DEVNULL,
    )


def test_run_with_an_mcp_server_and_logs(tmp_path: Path) -> None:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps([
        f"{FENCE}python\nfs = find_flights('E', 'B', max_stops=0)\n"
        f"final_result(fs[0]['carrier'])\n{FENCE}"
    ]))
    result = codeact("-v", "run", "Which carrier flies E to B nonstop?",
                     "--model", f"scripted:{replies}", "--mcp", shlex.join(TRAVEL), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["value"] == "Aero"
    assert "codeact.mcp INFO connected to MCP server" in result.stderr
    assert "codeact.loop INFO run" in result.stderr and "completed" in result.stderr


def test_an_unreachable_mcp_server_fails_the_run_naming_it(tmp_path: Path) -> None:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps([f"{FENCE}python\nfinal_result(1)\n{FENCE}"]))
    result = codeact("run", "go", "--model", f"scripted:{replies}",
                     "--mcp", "http://127.0.0.1:9/mcp")
    assert result.returncode == 1
    assert "mcp_connection_failed" in result.stdout + result.stderr
    assert "http://127.0.0.1:9/mcp" in result.stdout + result.stderr


def test_quiet_without_verbose(tmp_path: Path) -> None:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps([f"{FENCE}python\nfinal_result(1)\n{FENCE}"]))
    result = codeact("run", "go", "--model", f"scripted:{replies}", "--json")
    assert result.returncode == 0 and result.stderr == ""
