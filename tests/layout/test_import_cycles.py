"""No import cycles inside ``sandbox/`` or ``codeact/``; ``sandbox`` never imports ``codeact``.

The graph is read from the source (``tests/layout/imports.py``): imports inside
functions count, imports under ``if TYPE_CHECKING:`` do not.
"""

from __future__ import annotations

from pathlib import Path

from tests.layout.imports import cycles, describe, graph, imported, module_names


def _cycles_report(package: str) -> str:
    edges = graph(package)
    assert len(edges) > 10, f"no modules found under {package}/"
    return "\n".join(describe(edges, component) for component in cycles(edges))


def test_no_import_cycles_in_sandbox() -> None:
    report = _cycles_report("sandbox")
    assert not report, f"import cycles in sandbox/:\n{report}"


def test_no_import_cycles_in_codeact() -> None:
    report = _cycles_report("codeact")
    assert not report, f"import cycles in codeact/:\n{report}"


def test_sandbox_never_imports_codeact() -> None:
    modules = module_names("sandbox")
    known = set(modules)
    found = {
        name: sorted(t for t in imported(name, path, known) if t.partition(".")[0] == "codeact")
        for name, path in modules.items()
    }
    offending = {name: targets for name, targets in found.items() if targets}
    assert not offending, f"sandbox modules importing codeact: {offending}"


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    # The rules above are only as good as the reader: check it on a package made for it.
    root = tmp_path
    package = root / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from pkg import a\n")
    (package / "a.py").write_text("def f():\n    from .sub import b\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n"
        "from .. import c\n"
    )
    (package / "c.py").write_text("import pkg.sub.b\nfrom pkg.sub import b as again\n")
    edges = graph("pkg", root)
    assert edges == {
        "pkg": {"pkg.a"},
        "pkg.a": {"pkg.sub.b"},
        "pkg.sub": set(),
        "pkg.sub.b": {"pkg.c"},
        "pkg.c": {"pkg.sub.b"},
    }
    assert cycles(edges) == [["pkg.c", "pkg.sub.b"]]
    assert "pkg.c → pkg.sub.b" in describe(edges, ["pkg.c", "pkg.sub.b"])
