"""The architecture page (``docs/architecture.md``) names the tree exactly.

Every path it names exists, and every path the README's overview names; every module of
``sandbox/`` is named by its path; every top-level module and subpackage of ``codeact/``
is named (a subpackage by its folder).
"""

from __future__ import annotations

import re

from tests.layout.imports import ROOT

_PATH = re.compile(r"`((?:sandbox|codeact|tests|benchmarks|examples)/[\w/.*-]*)`")


def architecture_section() -> str:
    return (ROOT / "docs" / "architecture.md").read_text()


def readme_overview() -> str:
    readme = (ROOT / "README.md").read_text()
    start = readme.index("\n## Architecture\n")
    end = readme.index("\n## ", start + 1)
    return readme[start:end]


def named_paths() -> set[str]:
    return set(_PATH.findall(architecture_section()))


def _exists(path: str) -> bool:
    if "*" in path:
        return any(ROOT.glob(path))
    return (ROOT / path).exists()


def _modules_to_name() -> set[str]:
    """``sandbox/``'s modules, ``codeact/``'s top-level modules and subpackage folders."""
    wanted = {str(p.relative_to(ROOT)) for p in (ROOT / "sandbox").rglob("*.py")}
    wanted |= {str(p.relative_to(ROOT)) for p in (ROOT / "codeact").glob("*.py")}
    wanted |= {f"{p.parent.relative_to(ROOT)}/" for p in (ROOT / "codeact").glob("*/__init__.py")}
    return {path for path in wanted if "__pycache__" not in path}


def test_every_path_the_architecture_section_names_exists() -> None:
    named = named_paths()
    assert len(named) > 50, "the architecture section names almost no paths"
    missing = sorted(path for path in named if not _exists(path))
    assert not missing, "docs/architecture.md names paths that do not exist: " + ", ".join(missing)


def test_every_module_is_named_in_the_architecture_section() -> None:
    unnamed = sorted(_modules_to_name() - named_paths())
    assert not unnamed, (
        "modules missing from docs/architecture.md's tables (add a row each): " + ", ".join(unnamed)
    )


def test_every_path_the_readme_overview_names_exists() -> None:
    named = set(_PATH.findall(readme_overview()))
    assert len(named) > 5, "the README's architecture overview names almost no paths"
    missing = sorted(path for path in named if not _exists(path))
    assert not missing, "the README's architecture overview names paths that do not exist: " + (
        ", ".join(missing)
    )
