"""The one rule for names, checked against ``ast`` and CPython themselves.

- every node type in ``ast`` is accepted (with its identifier fields listed) or refused;
- every identifier field the parser fills is one the rule checks;
- the rule's mangling is CPython's;
- the generated names cannot be spelled, and CPython keeps them as they are;
- every binding form, in every nesting context, refuses the reserved names.
"""

from __future__ import annotations

import ast
import sys
import textwrap

import pytest

from sandbox.worker.language.compiler import CompileFailure, SandboxTransformer, compile_script
from sandbox.worker.language.names import GENERATED_NAMES, NODE_FIELDS, REFUSED_NODES, mangle

#: Classes ``ast.parse(..., "exec")`` never produces (deprecated aliases, other modes).
NEVER_PARSED = {
    "Num",
    "Str",
    "Bytes",
    "NameConstant",
    "Ellipsis",
    "Index",
    "ExtSlice",
    "Suite",
    "AugLoad",
    "AugStore",
    "Param",
    "Interactive",
    "Expression",
    "FunctionType",
    "TypeIgnore",
}
#: str fields that are not identifiers (``type_comment`` is filled only by
#: ``ast.parse(type_comments=True)``, which the compiler never asks for).
NOT_IDENTIFIERS = {("Constant", "value"), ("Constant", "kind")} | {
    (name, "type_comment")
    for name in ("FunctionDef", "AsyncFunctionDef", "Assign", "For", "AsyncFor", "With", "arg")
} | {("AsyncWith", "type_comment")}


def node_classes() -> dict[str, type]:
    classes = {
        name: value
        for name, value in vars(ast).items()
        # (3.12 keeps a private alias, ``_ast_Ellipsis``, beside the public names)
        if isinstance(value, type)
        and issubclass(value, ast.AST)
        and value is not ast.AST
        and not name.startswith("_")
    }
    # Abstract bases (stmt, expr, pattern...) have subclasses of their own.
    bases = {base for cls in classes.values() for base in cls.__bases__}
    return {
        name: cls
        for name, cls in classes.items()
        if cls not in bases or cls is ast.Constant  # Num/Str... derive from Constant
    }


def test_every_ast_node_type_is_accepted_or_refused() -> None:
    unknown = [
        name
        for name in node_classes()
        if name not in NODE_FIELDS and name not in REFUSED_NODES and name not in NEVER_PARSED
    ]
    assert not unknown, f"node types the compiler has not decided on: {unknown}"


@pytest.mark.parametrize("name", sorted(NEVER_PARSED | set(REFUSED_NODES)))
def test_node_types_outside_the_table_are_refused(name: str) -> None:
    cls = getattr(ast, name, None)
    if cls is None:
        pytest.skip(f"this Python has no ast.{name}")
    if name in {"Num", "Str", "Bytes", "NameConstant", "Ellipsis", "Index", "ExtSlice"}:
        pytest.skip(f"ast.{name}() builds another node type (a deprecated alias)")
    node = cls()
    transformer = SandboxTransformer()
    transformer.visit(node)
    assert any(name in error for error in transformer.errors), transformer.errors


EVERY_FORM = """
import json, os.path as p
async def co(q):
    async for r in q:
        await r
    async with q as s:
        pass
from json import dumps as d
x = y = 1
x += 1
a: int = 1
del a
for i in range(1):
    continue
while False:
    break
if x:
    pass
elif y:
    pass
with open(x) as (f, g):
    pass
try:
    raise ValueError(x) from None
except ValueError as e:
    pass
finally:
    pass
assert x, "m"
def f(a, /, b=1, *c, d, e=2, **g) -> int:
    global x
    def h():
        nonlocal a
    return (yield from (yield 1))
class C(B, k=1):
    z = lambda q=1: q
v = [n for n in x if n]
w = {n for n in x}
u = {k: v for k, v in x}
t = (n for n in x)
s = {"a": 1, **x}
r = x if y else not -x + y @ x | y
q = (w := 5) and f(*x, k=1, **y)
o = f"{x!r:>{y}}" + x.a[1:2, ::3]
m = x < y <= x is not y in x
match x:
    case 1 | 2 | None | True:
        pass
    case [1, *rest]:
        pass
    case {"k": v, **others}:
        pass
    case C(1, k=v) as whole:
        pass
    case _:
        pass
"""


def test_every_identifier_field_the_parser_fills_is_checked() -> None:
    tree = ast.parse(EVERY_FORM)
    seen: set[str] = set()
    unchecked: set[tuple[str, str]] = set()
    for node in ast.walk(tree):
        kind = type(node).__name__
        seen.add(kind)
        for field in node._fields:
            value = getattr(node, field, None)
            values = value if isinstance(value, list) else [value]
            named = any(isinstance(item, str) for item in values)
            if named and (kind, field) not in NOT_IDENTIFIERS and field not in NODE_FIELDS[kind]:
                unchecked.add((kind, field))
    assert not unchecked
    # The sample holds every accepted node type that carries an identifier.
    assert {kind for kind, fields in NODE_FIELDS.items() if fields} <= seen
    # Python 3.13+ says which fields are identifiers: check them all.
    for name, cls in node_classes().items():
        types = getattr(cls, "_field_types", None)
        if types is None or name not in NODE_FIELDS:
            continue
        for field, kind in types.items():
            if "str" in repr(kind) and (name, field) not in NOT_IDENTIFIERS:
                assert field in NODE_FIELDS[name], (name, field)


@pytest.mark.parametrize("cls", ["C", "_C", "__C", "___", "C_", "Ç"])
@pytest.mark.parametrize("name", ["__x", "__x__", "_x", "x", "__", "___x", "__x_", "__é"])
def test_mangling_is_cpythons(cls: str, name: str) -> None:
    source = f"class {cls}:\n    def m(self, {name}):\n        import json as {name}\n"
    code = compile(source, "<m>", "exec")
    body = next(c for c in code.co_consts if hasattr(c, "co_consts"))
    method = next(c for c in body.co_consts if hasattr(c, "co_varnames"))
    assert method.co_varnames[1] == mangle(cls, name)
    assert mangle(None, name) == name


@pytest.mark.parametrize("name", sorted(GENERATED_NAMES))
def test_generated_names_cannot_be_spelled_and_stay_as_they_are(name: str) -> None:
    assert not name.isidentifier()
    assert mangle("C", name) == name
    tree = ast.parse("class __C:\n    pass\n")
    tree.body[0].body = [ast.Assign([ast.Name(name, ast.Store())], ast.Constant(1))]  # type: ignore[attr-defined]
    code = compile(ast.fix_missing_locations(tree), "<g>", "exec")
    body = next(c for c in code.co_consts if hasattr(c, "co_names"))
    assert name in body.co_names


# -- every binding form x every context refuses the reserved names ------------------

FORMS = {
    "assign": "{n} = 1",
    "augassign": "{n} += 1",
    "annassign": "{n}: int = 1",
    "for": "for {n} in []:\n    pass",
    "with": "with x as {n}:\n    pass",
    "except": "try:\n    pass\nexcept E as {n}:\n    pass",
    "import": "import json as {n}",
    "from import": "from json import dumps as {n}",
    "def": "def {n}():\n    pass",
    "async def": "async def {n}():\n    pass",
    "async for": "async def co():\n    async for {n} in x:\n        pass",
    "async with": "async def co():\n    async with x as {n}:\n        pass",
    "class": "class {n}:\n    pass",
    "arg": "def f({n}):\n    pass",
    "posonly": "def f({n}, /):\n    pass",
    "vararg": "def f(*{n}):\n    pass",
    "kwarg": "def f(**{n}):\n    pass",
    "kwonly": "def f(*, {n}=1):\n    pass",
    "lambda": "lambda {n}: 0",
    "walrus": "({n} := 1)",
    "comprehension": "[0 for {n} in []]",
    "walrus in comprehension": "[({n} := 1) for i in []]",
    "global": "global {n}",
    "nonlocal": "def g():\n    {n} = 0\n    def h():\n        nonlocal {n}",
    "del": "del {n}",
    "read": "print({n})",
    "case capture": "match x:\n    case {n}:\n        pass",
    "case star": "match x:\n    case [*{n}]:\n        pass",
    "case rest": "match x:\n    case {{**{n}}}:\n        pass",
    "case as": "match x:\n    case C() as {n}:\n        pass",
    "call keyword": "f({n}=1)",
    "class keyword": "class A(B, {n}=1):\n    pass",
}
CONTEXTS = {
    "module": "{s}",
    "function": "def outer():\n{s}",
    "class body": "class K:\n{s}",
    "method": "class K:\n    def m(self):\n{s}",
    "nested class": "class K:\n    class L:\n        def m(self):\n{s}",
    "lambda default": "g = lambda d=[0 for _ in []]: 0\ndef outer():\n{s}",
}
NAMES = [
    "_getattr_",
    "_write_",
    "_reraise_control_",
    "_last_expr_",
    "__builtins__",
    "__annotations__",
    "__dict__",
    "__class__",
    "__import__",
    "_sunder_",
    "__x",
    "__match_class_1_1",
    "printed",
    "builtins",
    "breakpoint",
]


def _embed(context: str, statement: str) -> str:
    depth = context.count(":\n")
    body = textwrap.indent(statement, "    " * (depth + 1 if depth else 0))
    return context.format(s=body) if depth else context.format(s=statement)


@pytest.mark.parametrize("context", list(CONTEXTS))
@pytest.mark.parametrize("form", list(FORMS))
def test_no_binding_form_binds_a_reserved_name(form: str, context: str) -> None:
    for name in NAMES:
        source = _embed(CONTEXTS[context], FORMS[form].format(n=name))
        if context == "module" and form == "nonlocal":
            continue
        try:
            ast.parse(source)
        except SyntaxError:
            continue  # not Python in this context (``nonlocal`` at module level...)
        result = compile_script(source, "<script>")
        assert isinstance(result, CompileFailure), (form, context, name, source)
        assert result.kind == "policy", result.message


@pytest.mark.skipif(sys.version_info < (3, 12), reason="type parameter syntax is 3.12+")
@pytest.mark.parametrize(
    "source",
    [
        "def f[T](x: T) -> T:\n    return x",
        "async def f[T](x: T) -> T:\n    return x",
        "class C[T]:\n    pass",
        "class C[*Ts, **P]:\n    pass",
        "type Alias = list[int]",
        "type Pair[T] = tuple[T, T]",
    ],
)
def test_type_parameters_are_refused(source: str) -> None:
    result = compile_script(source, "<script>")
    assert isinstance(result, CompileFailure), source
    assert "type parameter" in result.message


@pytest.mark.skipif(sys.version_info < (3, 14), reason="template strings are 3.14+")
def test_template_strings_are_refused() -> None:
    result = compile_script('t"{x}"', "<script>")
    assert isinstance(result, CompileFailure)
    assert "template strings" in result.message


@pytest.mark.parametrize(
    "source", ["_getattr\uff3f = 1", "\uff50rinted = 1", "x._\uff3fdict_\uff3f", "_\uff3fx = 1"]
)
def test_names_are_checked_after_unicode_normalisation(source: str) -> None:
    # The parser applies NFKC to identifiers; the rule sees what the compiler will use.
    result = compile_script(source, "<script>")
    assert isinstance(result, CompileFailure), source
    assert result.kind == "policy"


def test_every_name_the_compiled_code_uses_is_the_scripts_or_unspellable() -> None:
    source = EVERY_FORM + textwrap.dedent(
        """
        class K:
            match x:
                case C(a, b):
                    pass
            def m(self, _p):
                match self:
                    case C(q):
                        return q
        """
    )
    code = compile_script(source, "<script>")
    assert not isinstance(code, CompileFailure), code
    spelled = {
        getattr(node, field)
        for node in ast.walk(ast.parse(source))
        for field in ("id", "arg", "name", "attr", "asname", "rest")
        if isinstance(getattr(node, field, None), str)
    } | {
        name
        for node in ast.walk(ast.parse(source))
        for name in getattr(node, "names", [])
        if isinstance(name, str)
    }
    stack, used = [code], set()
    while stack:
        current = stack.pop()
        used |= set(current.co_names) | set(current.co_varnames) | set(current.co_cellvars)
        stack += [c for c in current.co_consts if hasattr(c, "co_names")]
    mangled = {mangle("K", name) for name in spelled}
    imported = {"json", "os", "path", "p", "d", "dumps"}
    # What CPython's compiler itself stores in a class body (3.13 adds the last two).
    special = {"__name__", "__module__", "__qualname__", "__class__", "__annotations__", ".0"}
    special |= {"__firstlineno__", "__static_attributes__"}
    foreign = used - spelled - mangled - imported - special
    assert foreign, "the match lowering generates names"
    assert [name for name in foreign if name.isidentifier()] == []
