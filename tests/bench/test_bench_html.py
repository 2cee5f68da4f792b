"""``codeact bench report --html``: a self-contained page, rendered in headless Chromium."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from codeact.bench import BenchTask, Suite
from codeact.bench.logdir import LogDir
from codeact.bench.runner import BenchConfig, run_bench
from codeact.cli import main

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
    import asyncio

    log = tmp_path_factory.mktemp("log")
    asyncio.run(run_bench(BenchConfig(suite=SUITE, model="golden", log_dir=log, epochs=2)))
    page = log / "report.html"
    assert main(["bench", "report", str(log), "--html", str(page)]) == 0
    return page


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


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium on this machine: .ci/run installs Debian's chromium when root")


def _dump(page: Path, fragment: str, profile: Path) -> str:
    argv = [
        _chromium(), "--headless", "--no-sandbox", "--disable-gpu",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", f"--user-data-dir={profile}", "--dump-dom",
        f"{page.as_uri()}{fragment}",
    ]  # fmt: skip
    result = subprocess.run(argv, capture_output=True, text=True, timeout=90)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def _visible(dom: str) -> list[str]:
    tags = re.findall(r"<details class=\"sample\"[^>]*>", dom)
    return [t for t in tags if " hidden" not in t]


@pytest.mark.timeout(240)
def test_chromium_renders_rows_and_filters(report: Path, tmp_path: Path) -> None:
    dom = _dump(report, "", tmp_path / "profile")
    assert len(_visible(dom)) == 8 and '<span id="shown">8</span>' in dom
    assert dom.count("<tr") == 1 + 2 + 1  # header, two domains, the mode total
    filtered = _dump(report, "#status=failed", tmp_path / "profile")
    visible = _visible(filtered)
    assert len(visible) == 2 and all('data-task="t2"' in t for t in visible)
    assert '<span id="shown">2</span>' in filtered
    both = _dump(report, "#domain=d1&mode=code", tmp_path / "profile")
    assert len(_visible(both)) == 4
