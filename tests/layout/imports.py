"""The import graph of a package, read from its source (no module is imported).

An edge A → B for every ``import B`` and ``from B import n`` in A, wherever it stands
(inside a function too), except under ``if TYPE_CHECKING:``. Relative imports are
resolved against A's package; where ``B.n`` is itself a module, the edge goes to
``B.n``, not ``B``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def module_names(package: str, root: Path = ROOT) -> dict[str, Path]:
    """Every module of ``package`` (its ``__init__`` under the package's own name)."""
    found: dict[str, Path] = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, skipping the bodies of ``if TYPE_CHECKING:``."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node
            continue
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _base(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".") if is_package else module.split(".")[:-1]
    if node.level > 1:
        package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, node.module] if node.module else package)


def imported(module: str, path: Path, known: set[str]) -> set[str]:
    """The modules ``module`` (at ``path``) imports; submodules named in ``known``."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    targets: set[str] = set()
    for node in _imports(tree):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
            continue
        base = _base(module, is_package, node)
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            targets.add(sub if sub in known else base)
    return targets


def graph(package: str, root: Path = ROOT) -> dict[str, set[str]]:
    """Edges between the modules of ``package`` (imports from outside it left out)."""
    modules = module_names(package, root)
    known = set(modules)
    return {
        name: {t for t in imported(name, path, known) if t in known and t != name}
        for name, path in modules.items()
    }


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module, each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return sorted(found)


def describe(edges: dict[str, set[str]], component: list[str]) -> str:
    """A component as the imports that tie it: ``a → b (a imports b)`` lines."""
    members = set(component)
    lines = [
        f"  {source} → {target}"
        for source in component
        for target in sorted(edges[source] & members)
    ]
    return f"cycle among {', '.join(component)}:\n" + "\n".join(lines)
