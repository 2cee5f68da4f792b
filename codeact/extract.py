"""Finding the code in a model's reply.

In order of preference: fenced blocks labelled ``python``/``py`` (or unlabelled fences
whose content parses as Python); ``<code>…</code>`` tags; a reply that is itself valid
Python (and more than a lone name or literal). Several blocks are joined in order,
or only the first/last is kept, as configured.
"""

from __future__ import annotations

import ast
import re
from typing import Literal

BlockChoice = Literal["join", "first", "last"]

_FENCE = re.compile(
    r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.S | re.M
)
_CODE_TAG = re.compile(r"<code>\s*\n?(.*?)</code>", re.S | re.I)
_PYTHON_LABELS = {"python", "py", "python3", "py3"}


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _is_program(text: str) -> bool:
    """Valid Python that is more than prose which happens to parse (``done``, ``42``)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    if not tree.body:
        return False
    if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr):
        return not isinstance(tree.body[0].value, (ast.Name, ast.Constant))
    return True


def _dedent_block(text: str) -> str:
    lines = text.splitlines()
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(indents, default=0)
    return "\n".join(line[cut:] for line in lines).strip("\n")


def code_blocks(reply: str) -> list[str]:
    """Every piece of code in ``reply``, in order (see the module docstring)."""
    fenced = []
    for match in _FENCE.finditer(reply):
        label, body = match.group(2).lower(), _dedent_block(match.group(3))
        if body.strip() and (label in _PYTHON_LABELS or (not label and _parses(body))):
            fenced.append(body)
    if fenced:
        return fenced
    tagged = [_dedent_block(m.group(1)) for m in _CODE_TAG.finditer(reply)]
    tagged = [block for block in tagged if block.strip()]
    if tagged:
        return tagged
    stripped = reply.strip()
    if stripped and _is_program(stripped):
        return [stripped]
    return []


def extract_code(reply: str, blocks: BlockChoice = "join") -> str | None:
    """The script to run for ``reply``, or None when it holds no code."""
    found = code_blocks(reply)
    if not found:
        return None
    if blocks == "first":
        return found[0]
    if blocks == "last":
        return found[-1]
    return "\n\n".join(found)
