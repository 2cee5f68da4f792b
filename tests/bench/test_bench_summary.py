"""The summary's statistics and the progress displays."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest

from codeact.bench import BenchTask, Suite
from codeact.bench.display import PlainDisplay, RichDisplay, make_display
from codeact.bench.runner import BenchConfig, Observer, run_bench
from codeact.bench.summarize import pass_at_k

FENCE = "`" * 3


def test_pass_at_k_is_the_unbiased_estimator() -> None:
    assert pass_at_k(4, 0, 2) == 0.0
    assert pass_at_k(4, 4, 1) == 1.0
    assert math.isclose(pass_at_k(4, 1, 2), 1 - math.comb(3, 2) / math.comb(4, 2))
    assert pass_at_k(3, 1, 3) == 1.0


def _flaky_suite() -> Suite:
    # With the model below: t0 passes in every epoch, t1 only in the second, t2 never.
    tasks = [BenchTask(id=f"t{i}", input=f"Say {i}.", expected=i) for i in range(3)]
    return Suite(name="flaky", tasks=tasks)


@pytest.mark.timeout(60)
def test_epochs_give_task_means_standard_errors_and_pass_at_k(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from codeact.models import FunctionModel

    def model_for(task: BenchTask) -> FunctionModel:
        value = int(task.id[1:])

        def reply(messages: object, info: object) -> str:
            model.count += 1
            right = value == 0 or (value == 1 and model.count == 1 and task_epochs[task.id] == 2)
            answer = value if right else -1
            return f"Answering.\n{FENCE}python\nfinal_result({answer})\n{FENCE}"

        task_epochs[task.id] = task_epochs.get(task.id, 0) + 1
        model = FunctionModel(reply)
        model.count = 0  # type: ignore[attr-defined]
        return model

    task_epochs: dict[str, int] = {}
    config = BenchConfig(
        suite=_flaky_suite(), model="fn", log_dir=tmp_path, epochs=2, concurrency=1,
        model_factory=model_for,
    )  # fmt: skip
    summary = asyncio.run(run_bench(config, RichDisplay()))
    stats = {t.task: t for t in summary.tasks}
    assert (stats["t0"].mean, stats["t0"].pass_at_k) == (1.0, 1.0)
    assert (stats["t1"].mean, stats["t1"].pass_at_k, stats["t1"].stderr) == (0.5, 1.0, 0.5)
    assert (stats["t2"].mean, stats["t2"].pass_at_k) == (0.0, 0.0)
    (mode,) = summary.modes
    assert math.isclose(mode.success_rate, 0.5) and mode.epoch_rates == [1 / 3, 2 / 3]
    assert math.isclose(mode.stderr, 0.5 / math.sqrt(3) * math.sqrt(1.0), rel_tol=1e-9)
    assert "6/6" in capsys.readouterr().err  # the live display's last frame


def test_display_choice() -> None:
    assert type(make_display("none")) is Observer
    assert isinstance(make_display("plain"), PlainDisplay)
    assert isinstance(make_display(None), PlainDisplay)  # stderr is not a terminal here
