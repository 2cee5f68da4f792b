"""The fuzzer has a form for every way the running Python's ``ast`` can bind a name.

Every node class of ``ast`` is read from its signature (``MatchMapping(expr* keys,
pattern* patterns, identifier? rest)``). A field can bind a name when it holds an
identifier or an ``arg``, or is a target (``target``, ``targets``, ``optional_vars``, a
``TypeAlias``'s ``name``), and a node with a ``ctx`` binds in ``Store`` and ``Del``
context. Each such field must be exercised by a form in ``binding_forms`` or be listed
below as no binding, with the reason. A new Python adding a binding form fails here
until the fuzzer covers it.
"""

from __future__ import annotations

import ast
import re

import pytest

from tests.fuzz.binding_forms import FORMS, Form, node_coverage
from tests.fuzz.binding_scripts import PLACES, SCOPES, fits, script

#: Fields that hold a name but bind none, and why.
NOT_BINDINGS = {
    ("Attribute", "attr"): "an attribute name; loads and stores are checked as attributes",
    ("Attribute", "ctx=Store"): "an attribute store goes through _write_, not a name",
    ("Attribute", "ctx=Del"): "an attribute delete goes through _write_, not a name",
    ("Subscript", "ctx=Store"): "an item store, not a name",
    ("Subscript", "ctx=Del"): "an item delete, not a name",
    ("Starred", "ctx=Del"): "del *x is a syntax error",
    ("List", "ctx=Del"): "del [a, b] deletes its Names (Name ctx=Del is covered)",
    ("Tuple", "ctx=Del"): "del (a, b) deletes its Names (Name ctx=Del is covered)",
    ("Name", "id"): "covered through Name ctx=Store and ctx=Del",
    ("ImportFrom", "module"): "the module's name; the bound names are its aliases",
    ("Interpolation", "str"): "the source text of a t-string field (3.14), no binding",
}

_FIELD = re.compile(r"(\w+)([*?]?) (\w+)")
_TARGET_FIELDS = frozenset({"target", "targets", "optional_vars"})


def _signature(cls: type) -> list[tuple[str, str]]:
    """``[(type, field), ...]`` from a node class's docstring, the ASDL signature."""
    doc = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else ""
    match = re.fullmatch(rf"{cls.__name__}\((.*)\)", doc)
    if match is None:
        return []
    return [(m.group(1), m.group(3)) for m in _FIELD.finditer(match.group(1))]


def node_classes() -> list[type]:
    """Every node class, without the deprecated aliases of ``Constant`` (``Num``, ``Str``)."""
    return sorted(
        (
            cls
            for cls in vars(ast).values()
            if isinstance(cls, type)
            and issubclass(cls, ast.AST)
            and not (issubclass(cls, ast.Constant) and cls is not ast.Constant)
        ),
        key=lambda cls: cls.__name__,
    )


def binding_fields() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for cls in node_classes():
        for kind, fieldname in _signature(cls):
            name = cls.__name__
            if (
                kind in ("identifier", "arg")
                or fieldname in _TARGET_FIELDS
                or (cls is getattr(ast, "TypeAlias", None) and fieldname == "name")
            ):
                found.add((name, fieldname))
            elif kind == "expr_context":
                found |= {(name, "ctx=Store"), (name, "ctx=Del")}
    return found


def test_every_binding_field_has_a_fuzzer_form() -> None:
    covered = {(node, f) for node, fields in node_coverage().items() for f in fields}
    missing = sorted(binding_fields() - covered - set(NOT_BINDINGS))
    assert not missing, f"binding forms the fuzzer does not generate: {missing}"


def test_the_signatures_are_read() -> None:
    """The docstring format this test relies on: every concrete node class has one."""
    assert ("MatchMapping", "rest") in binding_fields()
    assert ("arguments", "kwonlyargs") in binding_fields()
    unread = [
        cls.__name__
        for cls in node_classes()
        if cls._fields and not _signature(cls)  # abstract bases have no fields
    ]
    assert not unread


def test_every_listed_non_binding_is_real() -> None:
    fields = binding_fields()
    present = {cls.__name__ for cls in node_classes()}
    for node, fieldname in NOT_BINDINGS:
        if node in present:
            assert (node, fieldname) in fields, (node, fieldname)


def _exercises(tree: ast.AST, node: str, fieldname: str, name: str) -> bool:
    """Whether ``tree`` has a ``node`` whose ``fieldname`` binds (or holds) ``name``."""
    for found in ast.walk(tree):
        if type(found).__name__ != node:
            continue
        if fieldname.startswith("ctx="):
            wanted = getattr(ast, fieldname[4:])
            if isinstance(getattr(found, "ctx", None), wanted):
                return True
            continue
        value = getattr(found, fieldname, None)
        values = value if isinstance(value, list) else [value]
        for item in values:
            if item == name or item == [name]:
                return True
            if isinstance(item, ast.AST) and any(
                getattr(sub, "id", None) == name
                or getattr(sub, "arg", None) == name
                or getattr(sub, "name", None) == name
                or getattr(sub, "rest", None) == name
                or getattr(sub, "asname", None) == name
                for sub in ast.walk(item)
            ):
                return True
        if fieldname == "is_async" and value:
            return True
    return False


@pytest.mark.parametrize("form", FORMS, ids=[form.name for form in FORMS])
def test_each_form_exercises_the_nodes_it_claims(form: Form) -> None:
    place, scope = next((p, s) for p in PLACES for s in SCOPES if fits(form, p, s))
    tree = ast.parse(script(form, place, scope, "fz_marker"))
    for node, fieldname in form.nodes:
        assert _exercises(tree, node, fieldname, "fz_marker"), (form.name, node, fieldname)
