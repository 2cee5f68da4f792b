"""The documentation site's code blocks, as the tests read them.

A block is fenced with its language and, for a file of a larger program, a title:
```` ```python title="app.py" ````. Untitled Python blocks are whole programs that
``tests/test_docs.py`` runs as they are; titled blocks (an app a server runs, a module a
command imports, a page a browser opens) and command blocks are run by the tests of
``tests/docs/``, each of which names the blocks it covers in ``COVERS``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

_FENCE = re.compile(r'^```(\w+)(?: title="([^"]+)")?\n(.*?)^```$', flags=re.S | re.M)


@dataclass(frozen=True)
class Block:
    page: str  # relative to docs/, e.g. "cookbook/sse.md"
    language: str
    title: str | None
    source: str


def pages() -> list[str]:
    """Every page of the site, relative to docs/."""
    return sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))


def blocks(page: str | None = None) -> list[Block]:
    """The fenced blocks of one page, or of every page, in order."""
    found = []
    for name in [page] if page else pages():
        for language, title, source in _FENCE.findall((DOCS / name).read_text()):
            found.append(Block(name, language, title or None, source))
    return found


def titled(page: str, title: str) -> str:
    """The source of the block titled ``title`` on ``page``."""
    (source,) = [b.source for b in blocks(page) if b.title == title]
    return source


def commands(page: str, language: str = "sh") -> list[str]:
    """The command lines of a page's shell blocks: comments and continuations joined."""
    lines = []
    for block in blocks(page):
        if block.language != language or block.title:
            continue
        for line in block.source.replace("\\\n", " ").splitlines():
            line = re.sub(r"\s+#\s.*$", "", line).strip()
            if line and not line.startswith("#"):
                lines.append(line)
    return lines
