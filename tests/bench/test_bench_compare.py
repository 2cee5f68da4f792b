"""``codeact bench report A B``: two runs compared sample by sample (text, JSON, HTML)."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from codeact.bench import BenchTask, Suite
from codeact.bench.compare import Comparison
from codeact.bench.runner import BenchConfig, run_bench
from codeact.cli import main
from tests.bench.chromium import dump_dom, screenshot, visible_samples

FENCE = "`" * 3
TASKS = [BenchTask(id=f"t{i}", input=f"Say {i}.", expected=i, domain=f"d{i % 2}") for i in range(4)]


def _suite(wrong: int) -> Suite:
    def golden(task: BenchTask) -> list[str]:
        value = int(task.id[1:])
        answer = value + 1 if value == wrong else value
        return [f"{FENCE}python\nfinal_result({answer})\n{FENCE}"]

    return Suite(name="compare", tasks=TASKS, golden=golden)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    a, b = tmp_path_factory.mktemp("a"), tmp_path_factory.mktemp("b")
    # Run A gets t2 wrong; run B fixes it and gets t0 wrong instead.
    for log, wrong in ((a, 2), (b, 0)):
        asyncio.run(run_bench(BenchConfig(suite=_suite(wrong), model="golden", log_dir=log)))
    return a, b


@pytest.mark.timeout(120)
def test_the_text_names_what_changed(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = runs
    assert main(["bench", "report", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "1 fixed, 1 broke, 2 same" in out
    assert "fixed: t2 [code · epoch 1]" in out and "broke: t0 [code · epoch 1]" in out
    # d0 holds t0 and t2: one of two passed in each run; d1 passed in both.
    assert re.search(r"code +d0 +50.0% +50.0% +\+0.0 pts", out)


@pytest.mark.timeout(120)
def test_json_pairs_every_sample(
    runs: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = runs
    assert main(["bench", "report", str(a), str(b), "--json"]) == 0
    comparison = Comparison.model_validate(json.loads(capsys.readouterr().out))
    assert comparison.counts == {"fixed": 1, "broke": 1, "same": 2, "only in A": 0, "only in B": 0}
    assert {p.task: p.change for p in comparison.pairs} == {
        "t0": "broke", "t1": "same", "t2": "fixed", "t3": "same"
    }  # fmt: skip


@pytest.mark.timeout(120)
def test_a_missing_run_is_bad_usage(runs: tuple[Path, Path], tmp_path: Path) -> None:
    assert main(["bench", "report", str(runs[0]), str(tmp_path)]) == 2


@pytest.mark.timeout(240)
def test_the_page_filters_by_change_in_chromium(runs: tuple[Path, Path], tmp_path: Path) -> None:
    a, b = runs
    page = tmp_path / "compare.html"
    assert main(["bench", "report", str(a), str(b), "--html", str(page)]) == 0
    text = page.read_text()
    assert 'id="groups"' in text and 'id="changes"' in text and "https://" not in text
    dom = dump_dom(page, "#change=broke", tmp_path / "profile")
    (broke,) = visible_samples(dom)
    assert 'data-task="t0"' in broke and 'data-sa="passed"' in broke and 'data-sb="failed"' in broke
    png = screenshot(page, tmp_path / "compare.png", tmp_path / "profile", height=900)
    assert png.stat().st_size > 10_000
