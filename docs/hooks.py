"""mkdocs hook: the docstrings' Sphinx roles (``:class:`~sandbox.Sandbox```) as code.

The code's docstrings name other objects the Sphinx way; mkdocstrings renders the role
as text before the name. The role is dropped, and ``~pkg.mod.Name`` becomes ``Name``
(as Sphinx shows it).
"""

from __future__ import annotations

import re
from typing import Any

_ROLE = re.compile(r":(?:class|mod|meth|func|attr|data|exc|obj|const):<code>(~?)([^<]+)</code>")


def _shown(match: re.Match[str]) -> str:
    tilde, name = match.groups()
    return f"<code>{name.rsplit('.', 1)[-1] if tilde else name}</code>"


def on_page_content(html: str, **kwargs: Any) -> str:
    """Rewrite the page's rendered roles."""
    return _ROLE.sub(_shown, html)
