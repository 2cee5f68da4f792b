"""What the library imports is what it declares: a package imported by ``sandbox/`` or
``codeact/`` is a runtime dependency, belongs to one of the optional extras (``dev`` is
for the tests and tools only, so it does not count), or is a declared package's own
requirement that the library uses through it (``pydantic_core`` of ``pydantic``)."""

from __future__ import annotations

import re
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, packages_distributions, requires

from tests.layout.imports import ROOT, imported, module_names


def _name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9._-]+", requirement)
    assert match is not None, requirement
    return re.sub(r"[-_.]+", "-", match.group(0)).lower()


def declared() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = {_name(r) for r in project["dependencies"]}
    for extra, requirements in project["optional-dependencies"].items():
        if extra != "dev":
            names |= {_name(r) for r in requirements}
    return names


def _with_requirements(names: set[str]) -> set[str]:
    found = set(names)
    for name in names:
        try:
            found |= {_name(r) for r in requires(name) or []}
        except PackageNotFoundError:
            continue
    return found


def test_the_library_imports_only_declared_packages() -> None:
    distributions = packages_distributions()
    allowed = _with_requirements(declared())
    undeclared: dict[str, list[str]] = {}
    for package in ("sandbox", "codeact"):
        modules = module_names(package)
        known = set(modules)
        for name, path in modules.items():
            for target in imported(name, path, known):
                top = target.partition(".")[0]
                if top in sys.stdlib_module_names or top in ("sandbox", "codeact", ""):
                    continue
                dists = {_name(d) for d in distributions.get(top, [top])}
                if not dists & allowed:
                    undeclared.setdefault(f"{top} ({', '.join(sorted(dists))})", []).append(name)
    assert not undeclared, f"imported but not declared in pyproject.toml: {undeclared}"


def test_psutil_is_for_the_tests_only() -> None:
    assert "psutil" not in declared()
