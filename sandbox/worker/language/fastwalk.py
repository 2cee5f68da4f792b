"""A faster walk for RestrictedPython's transformer.

``ast.NodeTransformer`` looks each visitor up by name and rebuilds every list of
children; a script has thousands of nodes, so here the lookup is done once per node
type and lists are rebuilt only when a visitor changed something. Visitors that only
visit their node's children are skipped altogether.

Worker side: standard library and RestrictedPython only.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any, TypeVar

from RestrictedPython.transformer import RestrictingNodeTransformer

#: RestrictedPython visitors that only visit their node's children (checked by a test):
#: dispatched straight to the fast child walk.
PASS_THROUGH = frozenset(
    "Interactive List Tuple Set Dict Expression BoolOp Delete Break Continue Try arguments".split()
)
# Fields that never hold AST nodes we need to visit (operator and context singletons,
# identifiers, flags).
_NOT_CHILDREN = frozenset(
    {
        "ctx",
        "op",
        "id",
        "attr",
        "name",
        "arg",
        "module",
        "level",
        "kind",
        "type_comment",
        "conversion",
        "is_async",
        "names",
        "ops",
    }
)
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {ast.Constant: ()}
_N = TypeVar("_N", bound=ast.AST)


def child_fields(cls: type) -> tuple[str, ...]:
    fields = _CHILD_FIELDS.get(cls)
    if fields is None:
        fields = tuple(f for f in getattr(cls, "_fields", ()) if f not in _NOT_CHILDREN)
        _CHILD_FIELDS[cls] = fields
    return fields


class FastNodeTransformer(RestrictingNodeTransformer):
    """RestrictingNodeTransformer with the walk above; subclasses add the policy."""

    def __init__(self) -> None:
        super().__init__()
        self._methods: dict[type, Callable[[Any], Any]] = {}

    def visit(self, node: ast.AST) -> Any:
        method = self._methods.get(type(node))
        if method is None:
            method = self._resolve(type(node))
        return method(node)

    def _resolve(self, cls: type) -> Callable[[Any], Any]:
        name = cls.__name__
        method: Callable[[Any], Any]
        if name in PASS_THROUGH or cls is ast.Constant:
            method = self.node_contents_visit
        else:
            method = getattr(self, "visit_" + name, self.generic_visit)
        self._methods[cls] = method
        return method

    def node_contents_visit(self, node: _N) -> _N:
        visit = self.visit
        fields = _CHILD_FIELDS.get(type(node))
        if fields is None:
            fields = child_fields(type(node))
        for field in fields:
            value = getattr(node, field, None)
            if value is None:
                continue
            if type(value) is list:
                for index, item in enumerate(value):
                    if not isinstance(item, ast.AST):
                        continue
                    new = visit(item)
                    if new is not item:
                        value[:] = self._rebuilt(value, index, new)
                        break
            elif isinstance(value, ast.AST):
                new = visit(value)
                if new is not value:
                    setattr(node, field, new)
        return node

    def _rebuilt(self, items: list[Any], index: int, first: Any) -> list[Any]:
        # Slow path once a visitor replaced, removed or expanded an item.
        result = items[:index]
        pending = [first]
        for item in items[index + 1 :]:
            pending.append(self.visit(item) if isinstance(item, ast.AST) else item)
        for new in pending:
            if new is None:
                continue
            if isinstance(new, list):
                result.extend(new)
            else:
                result.append(new)
        return result
