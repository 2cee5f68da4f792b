"""Every Python example of the documentation site (``docs/*.md``) runs, as the README's
do (``tests/test_readme.py``); the site itself is built with ``mkdocs build --strict``
by ``.ci/run``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))


def blocks() -> list[tuple[str, str]]:
    found = []
    for page in DOCS:
        for source in re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S):
            found.append((page.name, source))
    return found


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("page", "source"), blocks(), ids=lambda v: v if v.endswith(".md") else v.split("\n")[0][:40]
)
def test_python_examples_run(page: str, source: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", source], cwd=ROOT, capture_output=True, text=True, timeout=110
    )
    assert result.returncode == 0, f"{page}: {result.stderr[-3000:]}"


def test_every_page_is_in_the_site_and_every_picture_is_there() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    for page in DOCS:
        assert f" {page.name}" in nav, f"{page.name} is not in mkdocs.yml's nav"
    for page in DOCS:
        for picture in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page.read_text()):
            path = ROOT / "docs" / picture
            assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", picture


def test_the_readme_table_quotes_the_tested_examples() -> None:
    """Each usage line of the README's "Inside other frameworks" table is a line of an
    example in docs/integrations.md (run above), or of its command lines."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Inside other frameworks", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "`pip" in line]
    assert len(rows) == 4
    page = (ROOT / "docs" / "integrations.md").read_text()
    tested = {
        line.split("  # ")[0].strip()  # a trailing comment aside
        for block in re.findall(r"```(?:python|sh)\n(.*?)```", page, flags=re.S)
        for line in block.splitlines()
    }
    for row in rows:
        usage = row.split(" | ")[2]
        for line in re.findall(r"`([^`]+)`", usage):
            assert line.strip() in tested, f"not in a tested example: {line}"
