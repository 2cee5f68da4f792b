"""Every Python example of the documentation site (``docs/**/*.md``) runs, as the README's
do (``tests/test_readme.py``); the site itself is built with ``mkdocs build --strict``
by ``.ci/run``.

An untitled ``python`` block is a whole program, run here as it is; an untitled ``toml``
block is a policy file, loaded here. A titled one
(```` ```python title="app.py" ````) is a file of a larger program — an app a server
runs, a module a command imports — and a test module of ``tests/docs/`` runs it, naming
it in its ``COVERS``; so do the pages' commands where they can run on this machine.
"""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from sandbox import SandboxPolicy
from tests.docs import pages

ROOT = Path(__file__).resolve().parents[1]


def blocks() -> list[tuple[str, str]]:
    return [(b.page, b.source) for b in pages.blocks() if b.language == "python" and not b.title]


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("page", "source"), blocks(), ids=lambda v: v if v.endswith(".md") else v.split("\n")[0][:40]
)
def test_python_examples_run(page: str, source: str, tmp_path: Path) -> None:
    # Run from a file, as a reader would (some libraries read their callers' source).
    program = tmp_path / "example.py"
    program.write_text(source)
    result = subprocess.run(
        [sys.executable, str(program)], cwd=ROOT, capture_output=True, text=True, timeout=110,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    assert result.returncode == 0, f"{page}: {result.stderr[-3000:]}"


def policies() -> list[tuple[str, str]]:
    return [(b.page, b.source) for b in pages.blocks() if b.language == "toml" and not b.title]


def test_the_pages_have_their_examples() -> None:
    assert len(blocks()) > 20 and len(policies()) >= 3


@pytest.mark.parametrize(
    ("page", "text"), policies(), ids=lambda v: v if v.endswith(".md") else v.split("\n")[0][:40]
)
def test_policy_examples_load(page: str, text: str, tmp_path: Path) -> None:
    tomllib.loads(text)
    path = tmp_path / "policy.toml"
    path.write_text(text)
    assert SandboxPolicy.from_file(path).limits.wall_s > 0, page


def test_py_blocks_are_only_the_ray_example() -> None:
    """A ``py`` block is not run above: the one there is needs Ray, and
    ``tests/ray/test_ray_docs.py`` runs it; any other would be run by no test."""
    assert {b.page for b in pages.blocks() if b.language == "py"} == {"guide/scaling.md"}


def test_every_titled_block_is_run_by_a_test() -> None:
    titled = {(b.page, b.title) for b in pages.blocks() if b.title}
    covered = set()
    for module in sorted((ROOT / "tests" / "docs").glob("test_*.py")):
        covers = importlib.import_module(f"tests.docs.{module.stem}").COVERS
        covered |= {(page, title) for page, titles in covers.items() for title in titles}
    assert titled - covered == set(), "titled blocks no test runs"
    assert covered - titled == set(), "blocks a test claims to run that no page has"


def test_every_page_is_in_the_site_and_every_picture_is_there() -> None:
    nav = (ROOT / "mkdocs.yml").read_text()
    for page in pages.pages():
        assert f" {page}\n" in nav, f"{page} is not in mkdocs.yml's nav"
    for page in pages.pages():
        for picture in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", (pages.DOCS / page).read_text()):
            path = (pages.DOCS / page).parent / picture
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
