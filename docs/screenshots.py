"""Remake the reports' screenshots in this folder with headless Chromium.

``python docs/screenshots.py`` runs a small demonstration suite twice (scripted replies,
no model), writes its HTML report, the comparison of the two runs and a probe report of
three categories under three layer configurations, and photographs each page:
``bench-report.png``, ``bench-compare.png``, ``probe-report.png``. The tests render the
same pages and check their elements (``tests/bench/test_bench_html.py``,
``tests/bench/test_bench_compare.py``, ``tests/security/test_policy_probe_html.py``).
"""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from codeact.bench import BenchTask, Suite
from codeact.bench.runner import BenchConfig, run_bench
from codeact.cli import main

HERE = Path(__file__).resolve().parent
FENCE = "`" * 3
DOMAINS = ("arithmetic", "travel_planning", "web_browsing", "string_manipulation")
TASKS = [
    BenchTask(id=f"{DOMAINS[i % 4]}/{i}", input=f"Compute {i} squared.", expected=i * i,
              domain=DOMAINS[i % 4])
    for i in range(12)
]  # fmt: skip


def _suite(flaky: float, broken: int | None = None) -> Suite:
    """Replies that are right, wrong on some epochs (the sandbox's seeded random), always
    wrong (task ``broken``), or never finish (a reply without code, twice)."""

    def golden(task: BenchTask) -> list[str]:
        n = int(task.id.split("/")[1])
        if n == 7:
            return ["I am not sure how to start.", "Still thinking."]
        chance = 1.0 if n == broken else flaky if n % 3 else 0
        script = (
            f"import random\nanswer = {n} * {n}\n"
            f"final_result(answer if random.random() >= {chance} else answer + 1)"
        )
        return [f"Squaring.\n{FENCE}python\n{script}\n{FENCE}"]

    return Suite(name="demo", tasks=TASKS, golden=golden)


def _shoot(page: Path, out: Path, height: int) -> None:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        sys.exit("no Chromium: apt-get install chromium")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             "--no-first-run", f"--user-data-dir={profile}", f"--screenshot={out}",
             f"--window-size=1280,{height}", page.as_uri()],
            check=True, capture_output=True, timeout=120,
        )  # fmt: skip
    print(f"wrote {out}")


def main_() -> None:
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        for name, flaky, broken in (("before", 0.5, None), ("after", 0.2, 6)):
            config = BenchConfig(
                suite=_suite(flaky, broken),
                model="golden",
                log_dir=root / name,
                epochs=3,
                max_steps=2,
            )
            asyncio.run(run_bench(config))
        report, compare, probe = root / "report.html", root / "compare.html", root / "probe.html"
        main(["bench", "report", str(root / "before"), "--html", str(report)])
        main(["bench", "report", str(root / "before"), str(root / "after"), "--html", str(compare)])
        main(
            ["policy", "probe", "--category", "introspection", "--category", "imports",
             "--category", "network", "--layers", "language,os", "--layers", "language",
             "--layers", "os", "--display", "none", "--html", str(probe)]
        )  # fmt: skip
        _shoot(report, HERE / "bench-report.png", 1500)
        _shoot(compare, HERE / "bench-compare.png", 1000)
        _shoot(probe, HERE / "probe-report.png", 1300)


if __name__ == "__main__":
    main_()
