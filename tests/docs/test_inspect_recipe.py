"""docs/cookbook/inspect.md: the task file, run with codeact_agent and the solver arguments
of the page's command line, on Inspect's mockllm model.

The command line itself needs a real model: mockllm cannot be given replies from it, and
its default replies count tokens with encodings downloaded on first use.
``tests/integrations/test_inspect.py`` runs ``inspect eval --solver codeact/codeact_agent``
on a task that names its own model.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.docs.pages import commands, titled

pytest.importorskip("inspect_ai")

from inspect_ai import eval as inspect_eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model

from codeact.integrations.inspect import codeact_agent

PAGE = "cookbook/inspect.md"
COVERS = {PAGE: ["task.py"]}
FENCE = "`" * 3


def _reply(code: str) -> ModelOutput:
    output = ModelOutput.from_content("mockllm/model", f"{FENCE}python\n{code}\n{FENCE}")
    output.usage = ModelUsage(input_tokens=50, output_tokens=20, total_tokens=70)
    return output


def _solver_args() -> dict[str, object]:
    (line,) = [c for c in commands(PAGE) if " -S " in c]
    words = shlex.split(line)
    pairs = [words[i + 1].split("=", 1) for i, word in enumerate(words) if word == "-S"]
    return {key: int(value) if value.isdigit() else value for key, value in pairs}


@pytest.mark.timeout(180)
def test_the_task_file_runs_with_the_pages_solver_arguments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    task = tmp_path / "task.py"
    task.write_text(titled(PAGE, "task.py"))
    monkeypatch.chdir(tmp_path)  # Inspect takes task files relative to where it runs
    args = _solver_args()
    assert args == {"policy": "strict", "max_steps": 8}
    replies = [
        _reply("final_result(str(2 * price('cloak') + price('hat')))"),
        _reply("final_result(str(3 * price('wand')))"),
    ]
    model = get_model("mockllm/model", custom_outputs=replies)
    (log,) = inspect_eval(
        "task.py", solver=codeact_agent(**args), model=model, log_dir=str(tmp_path / "logs"),
        display="none", max_samples=1,
    )  # fmt: skip
    assert log.status == "success", log.error
    assert log.results is not None
    assert log.results.scores[0].metrics["accuracy"].value == 1.0
    assert [s.output.completion for s in log.samples or []] == ["58.25", "30.0"]
