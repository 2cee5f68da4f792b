"""``codeact bench report --html``: a self-contained page, rendered in headless Chromium."""

from __future__ import annotations

import asyncio
import itertools
import math
import re
from pathlib import Path

import pytest

from codeact.bench import BenchTask, Suite
from codeact.bench.html_chart import chart_svg
from codeact.bench.logdir import LogDir
from codeact.bench.records import GroupStats
from codeact.bench.runner import BenchConfig, run_bench
from codeact.bench.summarize import summarize
from codeact.cli import main
from tests.bench.chromium import dump_dom, screenshot, visible_samples

FENCE = "`" * 3


def _golden(task: BenchTask) -> list[str]:
    value = int(task.id[1:])
    # Task t2 answers wrong on purpose; t3's script raises until its retry.
    answer = value + 1 if value == 2 else value
    replies = [f"Answering.\n{FENCE}python\nfinal_result({answer})\n{FENCE}"]
    if value == 3:
        replies.insert(0, f"Trying <b>this</b> & that.\n{FENCE}python\n1 / 0\n{FENCE}")
    return replies


SUITE = Suite(
    name="html",
    tasks=[
        BenchTask(id=f"t{i}", input=f"Say {i}.", expected=i, domain=f"d{i % 2}") for i in range(4)
    ],
    golden=_golden,
)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    log = tmp_path_factory.mktemp("log")
    asyncio.run(run_bench(BenchConfig(suite=SUITE, model="golden", log_dir=log, epochs=2)))
    page = log / "report.html"
    assert main(["bench", "report", str(log), "--html", str(page)]) == 0
    return page


@pytest.mark.timeout(120)
def test_the_page_is_self_contained_and_escaped(report: Path) -> None:
    text = report.read_text()
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", text)
    assert "url(" not in text and "@import" not in text
    assert "https://" not in text and text.count("http://") == 1  # the SVG namespace
    assert "Trying &lt;b&gt;this&lt;/b&gt; &amp; that." in text
    assert text.count('class="sample"') == 8
    assert text.count('class="spread"') >= 1  # epochs > 1: the per-epoch whisker
    records = LogDir(report.parent).read_samples()
    assert sum(r.status == "failed" for r in records) == 2


@pytest.mark.timeout(120)
def test_the_page_has_what_the_cli_prints_and_more(report: Path) -> None:
    text = report.read_text()
    for table in ("summary", "side-by-side", "tasks", "failures", "samples"):
        assert f'id="{table}"' in text, table
    assert "pass@2" in text and "± " in text  # pass@k and standard errors
    # Each sample row carries its tokens, duration, tool calls and failure code.
    for key in ("tokens", "duration", "tools", "failure"):
        assert f'data-sort="{key}"' in text and f"data-{key}=" in text
    assert "<td class=l>wrong answer</td>" in text  # t2's failures, by code


def _group(domain: str) -> GroupStats:
    return GroupStats(action_mode="code", domain=domain, samples=4, passed=3, failed=1,
                      errors=0, success_rate=0.75, stderr=0.1, mean_turns=1.0,
                      tokens_per_sample=10.0)  # fmt: skip


@pytest.mark.timeout(60)
def test_chart_labels_never_overlap_with_one_mode() -> None:
    domains = [f"a_rather_long_domain_name_{i}" for i in range(6)]
    summary = summarize("s", "m", "codeact", []).model_copy(
        update={"groups": [_group(d) for d in domains], "modes": [_group("all")]}
    )
    svg = chart_svg(summary)
    labels = re.findall(r'<text class="domain" x="([\d.]+)" y="[\d.]+"[^>]*rotate\(-(\d+)', svg)
    assert len(labels) == len(domains) + 1
    xs = [float(x) for x, _ in labels]
    angle = math.radians(int(labels[0][1]))
    # Slanted labels are parallel: their distance apart, across the text, beats the font.
    gaps = [(b - a) * math.sin(angle) for a, b in itertools.pairwise(xs)]
    assert min(gaps) > 13, gaps
    # The first label, slanted left from its group, still starts inside the picture.
    assert xs[0] - len(domains[0]) * 6.2 * math.cos(angle) >= 0
    assert "a_rather_long_domain_name_0" in svg  # written out, not cut at 12 characters


@pytest.mark.timeout(240)
def test_chromium_renders_rows_filters_search_and_sort(report: Path, tmp_path: Path) -> None:
    profile = tmp_path / "profile"
    dom = dump_dom(report, "", profile)
    assert len(visible_samples(dom)) == 8 and '<span id="shown">8</span>' in dom
    filtered = dump_dom(report, "#status=failed", profile)
    visible = visible_samples(filtered)
    assert len(visible) == 2 and all('data-task="t2"' in t for t in visible)
    both = dump_dom(report, "#domain=d1&mode=code", profile)
    assert len(visible_samples(both)) == 4
    found = dump_dom(report, "#q=t3", profile)
    assert [t for t in visible_samples(found) if 'data-task="t3"' not in t] == []
    assert len(visible_samples(found)) == 2
    ordered = dump_dom(report, "#sort=-turns", profile)
    turns = [int(t) for t in re.findall(r'<tbody class="sample"[^>]*data-turns="(\d+)"', ordered)]
    assert turns == sorted(turns, reverse=True) and turns[0] == 2  # t3 needed two
    assert 'class="desc"' in ordered


@pytest.mark.timeout(240)
def test_a_screenshot_shows_the_report(report: Path, tmp_path: Path) -> None:
    png = screenshot(report, tmp_path / "report.png", tmp_path / "profile", height=1400)
    assert png.stat().st_size > 20_000
