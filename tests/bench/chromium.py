"""Headless Chromium for the HTML reports' tests: the DOM after the page's script ran,
and screenshots."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

#: Flags that keep a headless run quiet, offline and free of first-run work.
_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run",
)  # fmt: skip


def chromium() -> str:
    """The browser's path, or a skip saying why there is none."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium on this machine: .ci/run installs Debian's chromium when root")


def _run(argv: list[str]) -> str:
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def dump_dom(page: Path, fragment: str, profile: Path) -> str:
    """The page's DOM once its script has run, opened at ``fragment``."""
    argv = [chromium(), *_FLAGS, f"--user-data-dir={profile}", "--dump-dom"]
    return _run([*argv, f"{page.as_uri()}{fragment}"])


def screenshot(
    page: Path, out: Path, profile: Path, *, width: int = 1280, height: int = 1600
) -> Path:
    """A PNG of the page's top ``width`` × ``height`` pixels."""
    argv = [chromium(), *_FLAGS, f"--user-data-dir={profile}", f"--screenshot={out}"]
    _run([*argv, f"--window-size={width},{height}", page.as_uri()])
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return out


def visible_samples(dom: str) -> list[str]:
    """The opening tags of the sample bodies that are not hidden."""
    tags = re.findall(r"<tbody class=\"sample\"[^>]*>", dom)
    return [t for t in tags if " hidden" not in t]
