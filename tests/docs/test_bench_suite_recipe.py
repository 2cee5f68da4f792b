"""docs/cookbook/bench-suite.md: the suite module and the JSONL suite, run by the page's
commands — golden replies first, then a model served on loopback (the project's fake
serving the suite's golden replies, and a stand-in server for the JSONL tasks)."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.docs.openai_loopback import loopback
from tests.docs.pages import commands, titled
from tests.docs.servers import free_port, serving

PAGE = "cookbook/bench-suite.md"
COVERS = {PAGE: ["inventory.py", "tasks.jsonl", "wordtools.py"]}
BIN = Path(sys.executable).parent
MODEL = "openai:gpt-4o-mini"
FENCE = "`" * 3

pytestmark = pytest.mark.timeout(300)


def _codeact(line: str, cwd: Path, model: str | None = None) -> str:
    argv = shlex.split(line if model is None else line.replace(MODEL, model))
    assert argv[0] == "codeact", line
    done = subprocess.run(
        [str(BIN / "codeact"), *argv[1:], *(["--display", "none"] if "run" in argv else [])],
        capture_output=True, text=True, timeout=240, cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(cwd)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def _statuses(log: Path) -> list[str]:
    return [json.loads(line)["status"] for line in (log / "samples.jsonl").read_text().splitlines()]


def test_the_suite_module_with_golden_replies_then_a_served_model(tmp_path: Path) -> None:
    for name in COVERS[PAGE]:
        (tmp_path / name).write_text(titled(PAGE, name))
    golden, served, compare = [], [], []
    for line in commands(PAGE):
        if line.startswith("codeact bench") and "inventory" in line:
            (
                compare if " logs/inventory logs/" in line else served if MODEL in line else golden
            ).append(line)
    assert len(golden) == 3 and len(served) == 1 and len(compare) == 1
    for line in golden:
        out = _codeact(line, tmp_path)
    assert "code  all           3       3   100.0%" in out
    assert _statuses(tmp_path / "logs" / "inventory") == ["passed"] * 3
    assert (tmp_path / "report.html").read_text().startswith("<!doctype html>")

    port = free_port()
    fake = [sys.executable, "-m", "codeact.bench.fake_server", "inventory:SUITE", "--port"]
    with serving([*fake, str(port)], port, cwd=tmp_path):
        _codeact(served[0], tmp_path, f"openai-compatible:golden@http://127.0.0.1:{port}/v1")
    assert _statuses(tmp_path / "logs" / "inventory-4o-mini") == ["passed"] * 9  # 3 epochs
    summary = json.loads((tmp_path / "logs" / "inventory-4o-mini" / "summary.json").read_text())
    assert "pass_at_k" in json.dumps(summary), summary
    _codeact(compare[0], tmp_path)
    assert (tmp_path / "compare.html").exists()


def _count_words(messages: list[dict[str, Any]]) -> str:
    task = next(m["content"] for m in messages if m["role"] == "user")
    phrase = (task if isinstance(task, str) else task[0]["text"]).split("'")[1]
    return f"{FENCE}python\nfinal_result(word_count({phrase!r}))\n{FENCE}"


def test_the_jsonl_suite(tmp_path: Path) -> None:
    for name in COVERS[PAGE]:
        (tmp_path / name).write_text(titled(PAGE, name))
    (line,) = [c for c in commands(PAGE) if "--suite-file" in c]
    with loopback(_count_words) as server:
        out = _codeact(
            line + " --log-dir logs/words", tmp_path, f"openai-compatible:m@{server.url}"
        )
    assert "2/2 passed" in out, out
    assert _statuses(tmp_path / "logs" / "words") == ["passed"] * 2
