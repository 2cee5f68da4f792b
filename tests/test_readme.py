"""Every code example in the README works (the site's pages: ``tests/test_docs.py``)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("source", blocks("python"), ids=lambda s: s.splitlines()[0][:40])
def test_python_examples_run(source: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", source], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr


def test_the_readme_has_its_example() -> None:
    assert blocks("python"), "the README's example is gone"


def test_readme_links_reach_the_pages() -> None:
    """The README is the site's landing page on GitHub: each link it has is to a file."""
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    local = [link for link in links if "://" not in link]
    assert len(local) > 10, local
    assert [link for link in local if not (ROOT / link).is_file()] == []


def test_readme_starts_with_install_and_test_commands() -> None:
    first, second = blocks("sh")[:2]
    assert "pip install" in first and "codeact" in first
    assert "pytest" in second
    ci = (ROOT / ".ci" / "run").read_text()
    assert second.strip().replace(".venv/bin/", "") in ci.replace('"$VENV"/bin/', "")
