"""Inspect AI: codeact_agent solves a small task with Inspect's mockllm model, from
Python and from `inspect eval --solver codeact/codeact_agent`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.model import get_model
from inspect_ai.scorer import match

from codeact.integrations.inspect import codeact_agent
from tests.integrations.inspect_tasks import arithmetic

pytestmark = pytest.mark.timeout(180)

TASK = Path(arithmetic.__file__)


def test_the_agent_solves_the_task(tmp_path: Path) -> None:
    arithmetic.CALLS.clear()
    (log,) = inspect_eval(
        arithmetic.arithmetic(), solver=codeact_agent(), log_dir=str(tmp_path), display="none"
    )
    assert log.status == "success", log.error
    (sample,) = log.samples or []
    assert sample.scores is not None and sample.scores["match"].value == "C"
    assert sample.output.completion == "42"
    # The tool ran here, with the arguments the script gave (the bad call never did).
    assert arithmetic.CALLS == [(6, 7)]
    told = [m.text for m in sample.messages if m.role == "user"][1:]
    assert "validation error" in told[0].lower() or "TypeError" in told[0]
    # Inspect's own model calls: each request is in the log, with its tokens.
    assert len([e for e in sample.events if e.event == "model"]) == 2


def test_a_run_without_an_answer_is_said_so(tmp_path: Path) -> None:
    silent = get_model("mockllm/model", custom_outputs=[arithmetic.reply("Hmm.")] * 3)
    task = Task(
        dataset=[Sample(input="What is 6 times 7?", target="42")], scorer=match(), model=silent
    )
    (log,) = inspect_eval(
        task, solver=codeact_agent(max_steps=2), log_dir=str(tmp_path), display="none"
    )
    (sample,) = log.samples or []
    assert sample.output.completion == ""
    assert "max_steps_exceeded" in sample.messages[-1].text
    assert sample.scores is not None and sample.scores["match"].value == "I"


def test_inspect_eval_takes_it_as_a_solver(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "inspect_ai",
            "eval",
            TASK.name,
            "--solver",
            "codeact/codeact_agent",
            "--log-dir",
            str(tmp_path),
            "--log-format",
            "json",
            "--display",
            "none",
        ],
        cwd=TASK.parent,
        capture_output=True,
        text=True,
        timeout=170,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    (path,) = tmp_path.glob("*.json")
    log = json.loads(path.read_text())
    assert log["eval"]["solver"] == "codeact/codeact_agent"
    assert log["results"]["scores"][0]["metrics"]["accuracy"]["value"] == 1.0
