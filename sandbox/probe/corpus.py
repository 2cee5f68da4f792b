"""The adversarial corpus: one ``.py`` file per attack, described by a header comment.

Header (the first comment lines)::

    # id: import-dotted-submodule
    # category: imports
    # technique: import json.tool to reach a real submodule
    # success: the script obtains a real module object
    # expected: rejected

``expected`` is the outcome under the default policy (``rejected`` or ``contained``);
the ``data`` category is meant for ``--policy data`` (under ``default`` its imports are
rejected).
"""

from __future__ import annotations

import site
import sys
import sysconfig
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from sandbox.errors import CorpusError

CATEGORIES = (
    "imports",
    "module-walk",
    "introspection",
    "format-string",
    "frames",
    "exception-attrs",
    "guard-shadowing",
    "stdlib-tricks",
    "serialization",
    "ctypes",
    "signals-threads",
    "processes",
    "environment",
    "procfs",
    "network",
    "filesystem",
    "symlink",
    "os",
    "output-flood",
    "exception-flood",
    "cpu",
    "memory",
    "recursion",
    "sleep",
    "channel",
    "data",
)
_REQUIRED = ("id", "category", "technique", "success", "expected")


class AttackCase(BaseModel):
    """One attack snippet and its header."""

    model_config = ConfigDict(frozen=True)

    id: str
    category: str
    technique: str
    success: str
    expected: str
    source: str
    path: str


#: What each shipped suite is called in messages, by its directory.
SUITE_NAMES = {
    "corpus": "the security corpus (benchmarks/security/corpus)",
    "redcode": "the RedCode-Exec suite (benchmarks/security/redcode)",
}


def install_prefixes() -> list[Path]:
    """Where an install puts the wheel's data files: the environment, then the user's."""
    prefixes = [Path(sysconfig.get_path("data")), Path(sys.prefix)]
    if site.ENABLE_USER_SITE and site.USER_BASE:
        prefixes.append(Path(site.USER_BASE))
    return list(dict.fromkeys(prefixes))


def security_dir(suite: str = "corpus", prefixes: Sequence[Path] | None = None) -> Path:
    """``benchmarks/security`` of a checkout, or ``share/codeact/security`` of an
    install (the wheel ships both suites as data files), holding ``suite``."""
    checkout = Path(__file__).resolve().parents[2] / "benchmarks" / "security"
    roots = [root / "share" / "codeact" / "security" for root in prefixes or install_prefixes()]
    for candidate in [checkout, *roots]:
        if (candidate / suite).is_dir():
            return candidate
    raise FileNotFoundError(f"{SUITE_NAMES.get(suite, suite)} is not installed")


def parse_case(path: Path) -> AttackCase:
    """Read one corpus file."""
    text = path.read_text(encoding="utf-8")
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        key, sep, value = line[1:].strip().partition(":")
        if sep and key.strip() in _REQUIRED:
            fields[key.strip()] = value.strip()
    missing = [k for k in _REQUIRED if not fields.get(k)]
    if missing:
        raise CorpusError(f"{path}: header misses {', '.join(missing)}")
    if fields["category"] not in CATEGORIES:
        raise CorpusError(f"{path}: unknown category {fields['category']!r}")
    if fields["expected"] not in ("rejected", "contained"):
        raise CorpusError(f"{path}: expected must be rejected or contained")
    return AttackCase(source=text, path=str(path), **fields)


def load_corpus(directory: Path | str | None = None) -> list[AttackCase]:
    """Every case of a corpus directory (default: the shipped one), sorted by category."""
    root = Path(directory) if directory is not None else security_dir() / "corpus"
    cases = [parse_case(path) for path in sorted(root.glob("*.py"))]
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            raise CorpusError(f"{case.path}: duplicate id {case.id!r}")
        seen.add(case.id)
    order = {name: index for index, name in enumerate(CATEGORIES)}
    return sorted(cases, key=lambda c: (order[c.category], c.id))
