"""Scripts that bind a chosen name in every way Python allows, in every kind of scope.

A script is built from three parts:

- a :class:`Form`: one way to bind a name (assignment, ``except ... as``, a lambda
  argument, ``case {**rest}``, a class keyword, ...), written with ``@N@`` for the name
  and ``@P@`` where the *probe* goes: a spot in the scope where the binding is visible;
- a :class:`Place`: where the form sits in its scope (a statement, a ``case`` body, a
  lambda default, a comprehension, a ``match`` guard just before a class pattern);
- a :class:`Scope`: the module, a function, a class body, a method, a nested class, a
  method of a nested class (where ``__x`` is mangled to ``_C__x`` or ``_D__x``), a
  generator.

The probe tries what the guards refuse — a private attribute of a library class, an
attribute walk through ``str.format``, a store to a library class — and prints what
happened; the script then ends with ``final_result`` inside a ``try`` that would swallow
it if ``_reraise_control_`` were rebound. Built with the name ``fz_plain`` instead, the
same script is the *baseline*: a binding has no effect on the guards exactly when the
script refuses to compile, or runs to the baseline's output (see ``test_fuzz_bindings``).
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass

#: The name the baseline binds; the prelude binds it too, so ``del`` and ``+=`` work.
PLAIN = "fz_plain"

PRELUDE = """\
import json as fz_json
import typing as fz_typing
import dataclasses as fz_dataclasses
fz_lib = fz_json.JSONEncoder
fz_final = final_result
def fz_evil(*fz_a, **fz_k):
    return "EVIL"
fz_plain = fz_evil
fz_one = 1
def fz_keep(*fz_a):
    return False
def fz_call(*fz_a, **fz_k):
    return fz_k
def fz_deco(*fz_a):
    return lambda fz_f: fz_f
def fz_base_of(*fz_a):
    return fz_Ctx
class fz_Ctx:
    def __enter__(self):
        return fz_evil
    def __exit__(self, *fz_a):
        return False
def fz_report(fz_label, fz_value):
    print(fz_label, type(fz_value).__name__, fz_value)
def fz_check(*fz_thunks):
    for fz_t in fz_thunks:
        try:
            fz_out = fz_t()
        except Exception as fz_e:
            fz_out = fz_e
        fz_report("thunk", fz_out)
    return 0
@fz_dataclasses.dataclass
class fz_Point:
    x: int
    y: int
fz_point = fz_Point(1, 2)
try:
    fz_base = type(fz_typing.List[int])
except Exception:
    fz_base = fz_Point
"""

#: The probe as statements: runs in any scope, class bodies included (where a nested
#: lambda would not see the class's names).
PROBE = """\
try:
    fz_out = fz_lib._fz_secret
except Exception as fz_e:
    fz_out = fz_e
fz_report("private", fz_out)
try:
    fz_out = "{0.__globals__}".format(fz_evil)
except Exception as fz_e:
    fz_out = fz_e
fz_report("format", fz_out)
try:
    fz_lib.item_separator = "!!"
    fz_out = "written"
except Exception as fz_e:
    fz_out = fz_e
fz_report("write", fz_out)
"""

#: The probe as an expression, for lambda bodies and comprehensions (no stores there).
PROBE_EXPR = 'fz_check(lambda: fz_lib._fz_secret, lambda: "{0.__globals__}".format(fz_evil))'

#: The end of every script: a rebound ``_reraise_control_`` would let it go on.
END = """\
try:
    fz_final("FZ-END")
except BaseException:
    pass
print("FZ-SWALLOWED")
"""

#: A match with a class pattern, so that the compiler's hidden names exist in the scope.
WITNESS = """\
match fz_point:
    case fz_Point(fz_px, fz_py):
        print("FZ-MATCH", fz_px, fz_py)
"""


@dataclass(frozen=True)
class Form:
    """One way to bind ``@N@``."""

    name: str
    template: str
    #: ``stmt``: statements, with ``@P@`` (statement probe) and maybe ``@END@``;
    #: ``expr``: an expression, with ``@E@`` (expression probe) where it binds inside.
    kind: str
    #: ``(node type, field)`` pairs of the ast this form exercises.
    nodes: tuple[tuple[str, str], ...]
    #: ``name``: binds a variable; ``import``: binds the name of a module or of a module's
    #: member (a module's underscore names are its internals); ``keyword``: names a
    #: parameter of someone else's code; ``attribute``: reads an attribute. Outside
    #: ``name``, underscore names may be refused.
    role: str = "name"
    #: Refused whatever the name (``async``): ordinary names need not compile.
    always_refused: bool = False
    min_version: tuple[int, int] = (3, 11)
    #: Scopes and places the form cannot stand in (a syntax error there).
    not_in: frozenset[str] = frozenset()
    #: Names the form cannot bind (a syntax error: ``case [x] as _``).
    not_names: frozenset[str] = frozenset()


def _f(name: str, template: str, kind: str, *nodes: tuple[str, str], **kw: object) -> Form:
    return Form(name, template, kind, tuple(nodes), **kw)  # type: ignore[arg-type]


_NAME_STORE = ("Name", "ctx=Store")
FORMS: tuple[Form, ...] = (
    _f("assign", "@N@ = fz_evil\n@P@", "stmt", ("Assign", "targets"), _NAME_STORE),
    _f(
        "assign_tuple",
        "fz_a, @N@ = 1, fz_evil\n@P@",
        "stmt",
        ("Tuple", "elts"),
        ("Tuple", "ctx=Store"),
        _NAME_STORE,
    ),
    _f(
        "assign_list",
        "[fz_a, @N@] = 1, fz_evil\n@P@",
        "stmt",
        ("List", "elts"),
        ("List", "ctx=Store"),
    ),
    _f(
        "assign_star",
        "fz_a, *@N@ = 1, fz_evil\n@P@",
        "stmt",
        ("Starred", "value"),
        ("Starred", "ctx=Store"),
    ),
    _f("assign_chain", "fz_a = @N@ = fz_evil\n@P@", "stmt", ("Assign", "targets")),
    _f(
        "augassign",
        "try:\n    @N@ += fz_one\nexcept (NameError, TypeError):\n    pass\n@P@",
        "stmt",
        ("AugAssign", "target"),
    ),
    _f("annassign", "@N@: int = fz_evil\n@P@", "stmt", ("AnnAssign", "target")),
    _f("annassign_bare", "@N@: int\n@P@", "stmt", ("AnnAssign", "target")),
    _f("for", "for @N@ in [fz_evil]:\n    pass\n@P@", "stmt", ("For", "target")),
    _f("for_tuple", "for fz_a, @N@ in [(1, fz_evil)]:\n    @P@", "stmt", ("For", "target")),
    _f("with", "with fz_Ctx() as @N@:\n    @P@", "stmt", ("withitem", "optional_vars")),
    _f(
        "with_tuple",
        "with fz_Ctx() as fz_a, fz_Ctx() as @N@:\n    pass\n@P@",
        "stmt",
        ("withitem", "optional_vars"),
    ),
    _f(
        "except",
        "try:\n    raise ValueError\nexcept ValueError as @N@:\n    @P@",
        "stmt",
        ("ExceptHandler", "name"),
    ),
    _f(
        "except_star",
        "try:\n    raise ValueError\nexcept* ValueError as @N@:\n    @P@",
        "stmt",
        ("TryStar", "handlers"),
        ("ExceptHandler", "name"),
        always_refused=True,
    ),
    _f("import_as", "import json as @N@\n@P@", "stmt", ("alias", "asname"), ("Import", "names")),
    _f(
        "import",
        "try:\n    import @N@\nexcept ImportError:\n    pass\n@P@",
        "stmt",
        ("alias", "name"),
        role="import",
    ),
    _f(
        "import_from_as",
        "from json import dumps as @N@\n@P@",
        "stmt",
        ("alias", "asname"),
        ("ImportFrom", "names"),
    ),
    _f(
        "import_from",
        "try:\n    from json import @N@\nexcept ImportError:\n    pass\n@P@",
        "stmt",
        ("alias", "name"),
        role="import",
    ),
    _f(
        "def",
        "def @N@(*fz_a, **fz_k):\n    return 'EVIL'\n@P@",
        "stmt",
        ("FunctionDef", "name"),
    ),
    _f(
        "async_def",
        "async def @N@():\n    pass\n@P@",
        "stmt",
        ("AsyncFunctionDef", "name"),
        always_refused=True,
    ),
    _f("class", "class @N@:\n    pass\n@P@", "stmt", ("ClassDef", "name")),
    _f(
        "arg",
        "def fz_f(@N@=fz_evil):\n    @P@\n    @END@\nfz_f()",
        "stmt",
        ("arguments", "args"),
        ("arg", "arg"),
    ),
    _f(
        "arg_posonly",
        "def fz_f(@N@=fz_evil, /):\n    @P@\n    @END@\nfz_f()",
        "stmt",
        ("arguments", "posonlyargs"),
    ),
    _f(
        "arg_kwonly",
        "def fz_f(*, @N@=fz_evil):\n    @P@\n    @END@\nfz_f()",
        "stmt",
        ("arguments", "kwonlyargs"),
    ),
    _f(
        "arg_vararg",
        "def fz_f(*@N@):\n    @P@\n    @END@\nfz_f(fz_evil)",
        "stmt",
        ("arguments", "vararg"),
    ),
    _f(
        "arg_kwarg",
        "def fz_f(**@N@):\n    @P@\n    @END@\nfz_f(fz_a=fz_evil)",
        "stmt",
        ("arguments", "kwarg"),
    ),
    _f(
        "arg_annotated",
        "def fz_f(@N@: int = fz_evil) -> int:\n    @P@\n    @END@\nfz_f()",
        "stmt",
        ("arg", "arg"),
    ),
    _f(
        "async_for",
        "async def fz_f():\n    async for @N@ in fz_a:\n        pass\n@P@",
        "stmt",
        ("AsyncFor", "target"),
        always_refused=True,
    ),
    _f(
        "async_with",
        "async def fz_f():\n    async with fz_a as @N@:\n        pass\n@P@",
        "stmt",
        ("AsyncWith", "items"),
        always_refused=True,
    ),
    _f(
        "global",
        "def fz_f():\n    global @N@\n    @N@ = fz_evil\nfz_f()\n@P@",
        "stmt",
        ("Global", "names"),
    ),
    _f(
        "nonlocal",
        "def fz_f():\n    @N@ = fz_evil\n    def fz_g():\n        nonlocal @N@\n"
        "        @N@ = fz_evil\n        @P@\n        @END@\n    fz_g()\nfz_f()",
        "stmt",
        ("Nonlocal", "names"),
    ),
    _f(
        "del",
        "try:\n    del @N@\nexcept NameError:\n    pass\n@P@",
        "stmt",
        ("Delete", "targets"),
        ("Name", "ctx=Del"),
    ),
    _f(
        "match_as",
        "match [fz_evil]:\n    case [fz_a] as @N@:\n        @P@",
        "stmt",
        ("MatchAs", "name"),
        not_names=frozenset({"_"}),
    ),
    _f("match_capture", "match fz_evil:\n    case @N@:\n        @P@", "stmt", ("MatchAs", "name")),
    _f(
        "match_star",
        "match [1, fz_evil]:\n    case [fz_a, *@N@]:\n        @P@",
        "stmt",
        ("MatchStar", "name"),
        ("MatchSequence", "patterns"),
    ),
    _f(
        "match_rest",
        "match {'k': fz_evil}:\n    case {**@N@}:\n        @P@",
        "stmt",
        ("MatchMapping", "rest"),
        not_names=frozenset({"_"}),
    ),
    _f(
        "match_or",
        "match [fz_evil]:\n    case [@N@] | (@N@):\n        @P@",
        "stmt",
        ("MatchOr", "patterns"),
    ),
    _f(
        "match_class_keyword",
        "match 5:\n    case int(@N@=fz_a):\n        print('FZ-MATCHED', fz_a)\n@P@",
        "stmt",
        ("MatchClass", "kwd_attrs"),
        role="attribute",
    ),
    _f(
        "class_keyword",
        "try:\n    class fz_G(fz_base, @N@=True):\n        pass\n    print('FZ-CREATED')\n"
        "except TypeError:\n    pass\n@P@",
        "stmt",
        ("ClassDef", "keywords"),
        ("keyword", "arg"),
        role="keyword",
    ),
    _f(
        "class_keyword_splat",
        "try:\n    class fz_G(fz_base, **{'@N@': True}):\n        pass\n    print('FZ-CREATED')\n"
        "except TypeError:\n    pass\n@P@",
        "stmt",
        role="keyword",
    ),
    # -- expressions ---------------------------------------------------------------------
    _f("walrus", "(@N@ := fz_evil)", "expr", ("NamedExpr", "target")),
    _f(
        "walrus_in_comprehension",
        "[(@N@ := fz_evil) for fz_i in [0]]",
        "expr",
        ("NamedExpr", "target"),
        not_in=frozenset({"class body", "nested class"}),
    ),
    _f("lambda_arg", "(lambda @N@=fz_evil: @E@)()", "expr", ("Lambda", "args")),
    _f("lambda_posonly", "(lambda @N@=fz_evil, /: @E@)()", "expr", ("arguments", "posonlyargs")),
    _f("lambda_kwonly", "(lambda *, @N@=fz_evil: @E@)()", "expr", ("arguments", "kwonlyargs")),
    _f("lambda_vararg", "(lambda *@N@: @E@)(fz_evil)", "expr", ("arguments", "vararg")),
    _f("lambda_kwarg", "(lambda **@N@: @E@)(fz_a=fz_evil)", "expr", ("arguments", "kwarg")),
    _f(
        "listcomp",
        "[@E@ for @N@ in [fz_evil]]",
        "expr",
        ("ListComp", "generators"),
        ("comprehension", "target"),
    ),
    _f("setcomp", "{@E@ for @N@ in [fz_evil]}", "expr", ("SetComp", "generators")),
    _f("dictcomp", "{0: @E@ for @N@ in [fz_evil]}", "expr", ("DictComp", "generators")),
    _f("genexp", "list(@E@ for @N@ in [fz_evil])", "expr", ("GeneratorExp", "generators")),
    _f(
        "async_comprehension",
        "async def fz_f():\n    return [fz_a async for @N@ in fz_a]\n@P@",
        "stmt",
        ("comprehension", "is_async"),
        always_refused=True,
    ),
    _f("call_keyword", "fz_call(@N@=fz_evil)", "expr", ("Call", "keywords"), role="keyword"),
    _f("call_keyword_splat", 'fz_call(**{"@N@": fz_evil})', "expr", role="keyword"),
    # -- type parameters (Python 3.12+) ------------------------------------------------
    _f(
        "type_alias",
        "type @N@ = int\n@P@",
        "stmt",
        ("TypeAlias", "name"),
        min_version=(3, 12),
        always_refused=True,
    ),
    _f(
        "type_var",
        "def fz_f[@N@](): pass\n@P@",
        "stmt",
        ("TypeVar", "name"),
        min_version=(3, 12),
        always_refused=True,
    ),
    _f(
        "param_spec",
        "class fz_K[**@N@]: pass\n@P@",
        "stmt",
        ("ParamSpec", "name"),
        min_version=(3, 12),
        always_refused=True,
    ),
    _f(
        "type_var_tuple",
        "type fz_A[*@N@] = int\n@P@",
        "stmt",
        ("TypeVarTuple", "name"),
        min_version=(3, 12),
        always_refused=True,
    ),
)
FORMS = tuple(form for form in FORMS if sys.version_info >= form.min_version)
FORMS_BY_NAME = {form.name: form for form in FORMS}


@dataclass(frozen=True)
class Place:
    """Where a form sits in its scope."""

    name: str
    #: ``@B@``: the form's statements; ``@X@``: the form's expression.
    template: str
    kinds: frozenset[str]


PLACES: tuple[Place, ...] = (
    Place("statement", "@B@", frozenset({"stmt"})),
    Place("expression statement", "fz_keep(@X@)\n@P@", frozenset({"expr"})),
    Place(
        "case body",
        "match fz_point:\n    case fz_Point(fz_px, fz_py):\n        @B@",
        frozenset({"stmt"}),
    ),
    Place(
        "match guard",
        "match fz_point:\n    case 0 if fz_keep(@X@):\n        pass\n"
        "    case fz_Point(fz_px, fz_py):\n        print('FZ-GUARDED', fz_px, fz_py)\n@P@",
        frozenset({"expr"}),
    ),
    Place("lambda default", "fz_l = lambda fz_p=(@X@): fz_p\nfz_l()\n@P@", frozenset({"expr"})),
    Place("lambda body", "(lambda: @X@)()\n@P@", frozenset({"expr"})),
    Place("comprehension", "[@X@ for fz_i in [0]]\n@P@", frozenset({"expr"})),
    Place("generator expression", "list(@X@ for fz_i in [0])\n@P@", frozenset({"expr"})),
    Place("decorator", "@fz_deco(@X@)\ndef fz_d():\n    pass\n@P@", frozenset({"expr"})),
    Place("class base", "class fz_B(fz_base_of(@X@)):\n    pass\n@P@", frozenset({"expr"})),
    Place(
        "class keyword value",
        "class fz_B(fz_Ctx, **fz_call(fz_k=@X@) and {}):\n    pass\n@P@",
        frozenset({"expr"}),
    ),
    Place(
        "def default", "def fz_d(fz_p=(@X@)):\n    return fz_p\nfz_d()\n@P@", frozenset({"expr"})
    ),
    Place("annotation", "def fz_d(fz_p: (@X@) = 0) -> (@X@):\n    pass\n@P@", frozenset({"expr"})),
    Place("f-string", "f'{ @X@ }'\n@P@", frozenset({"expr"})),
)


@dataclass(frozen=True)
class Scope:
    """The scope a place is in; ``classes`` are the enclosing classes, innermost last."""

    name: str
    template: str
    classes: tuple[str, ...] = ()


SCOPES: tuple[Scope, ...] = (
    Scope("module", "@S@"),
    Scope("function", "def fz_scope():\n    @S@\nfz_scope()"),
    Scope("class body", "class C:\n    @S@", ("C",)),
    Scope("method", "class C:\n    def fz_m(self):\n        @S@\nC().fz_m()", ("C",)),
    Scope("nested class", "class C:\n    class D:\n        @S@", ("C", "D")),
    Scope(
        "method of a nested class",
        "class C:\n    class D:\n        def fz_m(self):\n            @S@\nC.D().fz_m()",
        ("C", "D"),
    ),
    Scope("generator", "def fz_gen():\n    @S@\n    yield 0\nlist(fz_gen())"),
)
SCOPES_BY_NAME = {scope.name: scope for scope in SCOPES}
PLACES_BY_NAME = {place.name: place for place in PLACES}


def fits(form: Form, place: Place, scope: Scope) -> bool:
    """Whether the combination is valid Python."""
    # A walrus in a comprehension cannot stand directly in a class body.
    walrus_in_class = (
        form.name == "walrus"
        and place.name in ("comprehension", "generator expression")
        and scope.name in ("class body", "nested class")
    )
    return (
        form.kind in place.kinds
        and place.name not in form.not_in
        and scope.name not in form.not_in
        and not walrus_in_class
    )


def _indent(text: str, spaces: int) -> str:
    lines = text.splitlines()
    return "\n".join([lines[0], *(" " * spaces + line if line else "" for line in lines[1:])])


def _fill(template: str, **parts: str) -> str:
    """Replace ``@KEY@`` markers, indenting multi-line parts to their marker's column."""
    out = []
    for line in template.splitlines():
        for key, part in parts.items():
            marker = "@" + key + "@"
            if marker in line:
                column = len(line) - len(line.lstrip()) if line.strip() == marker else 0
                line = line.replace(marker, _indent(part, column))
        out.append(line)
    return "\n".join(out)


def script(form: Form, place: Place, scope: Scope, name: str) -> str:
    """The whole script: prelude, the binding in its place and scope, witness, end."""
    body = form.template.replace("@N@", name).replace("@E@", PROBE_EXPR)
    ends_inside = "@END@" in body
    body = _fill(body, P=PROBE.rstrip(), END=END.rstrip())
    if form.kind == "expr":
        placed = _fill(place.template, X=body, P=PROBE.rstrip())
    else:
        placed = _fill(place.template, B=body)
    # END runs once, last: inside the form when it says where, else at the scope's end.
    inner = placed + "\n" + WITNESS + ("" if ends_inside else END)
    source = PRELUDE + _fill(scope.template, S=inner.rstrip()) + "\n"
    return source


# -- the names ------------------------------------------------------------------------

#: Names the sandbox's runtime and RestrictedPython's conventions give a meaning:
#: guards and hooks (runtime.py, guards.py), builtins the interpreter itself looks up,
#: and dunders the data model reads.
RESERVED = (
    "_getattr_",
    "_write_",
    "_reraise_control_",
    "_last_expr_",
    "_print_",
    "_getiter_",
    "_getitem_",
    "_apply_",
    "_inplacevar_",
    "_unpack_sequence_",
    "_iter_unpack_sequence_",
    "__builtins__",
    "__build_class__",
    "__import__",
    "__name__",
    "__metaclass__",
    "__dict__",
    "__class__",
    "__annotations__",
    "__module__",
    "__qualname__",
    "__init_subclass__",
    "__match_args__",
    "__slots__",
    "__getattr__",
    "__getattribute__",
    "__deepcopy__",
    "__reduce_ex__",
    "__globals__",
    "_sunder_",
    "_value_",
    "_root",
    "__x",
    "__",
    "print",
    "printed",
    "builtins",
)

#: The compiler's hidden names as a script can spell them: directly, and mangled for
#: each enclosing class (``__match_class_1_1`` inside class ``R`` is
#: ``_R__match_class_1_1``). ``generated_names`` adds whatever the compiler emits.
GENERATED_STEMS = ("__match_class_1_1", "__match_class_2_1", "__match_subject_1")

#: Names with no meaning to the sandbox: every binding form must accept them.
ORDINARY = (PLAIN, "_fz_private", "final_result", "observation", "_", "fz_x1")


def spellings(stem: str, classes: tuple[str, ...]) -> list[str]:
    """``stem`` and every mangled spelling of it for ``classes`` (and a stranger, R)."""
    found = [stem]
    if stem.startswith("__") and not stem.endswith("__"):
        found += [f"_{cls.lstrip('_')}{stem}" for cls in (*classes, "R")]
    return found


def mangle(name: str, classes: tuple[str, ...]) -> str:
    """The name the interpreter uses for ``name`` inside the innermost of ``classes``."""
    if classes and name.startswith("__") and not name.endswith("__") and "." not in name:
        return f"_{classes[-1].lstrip('_')}{name}"
    return name


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def generated_names(source: str, stored: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """``(scope, name)`` the compiled code binds but the source never spells: the
    compiler's own."""
    spelled = set(_IDENT.findall(source))
    return {(scope, name) for scope, name in stored if name.isidentifier() and name not in spelled}


_PRIVATE = re.compile(r"_[A-Za-z0-9](?:\w*[A-Za-z0-9])?")


def is_private(name: str) -> bool:
    """``_x``: one leading underscore, none trailing — a script's own name by design."""
    return _PRIVATE.fullmatch(name) is not None


def must_compile(name: str, form: Form) -> bool:
    """Ordinary names: every form that is not refused outright accepts them (keywords
    and class-pattern attributes may refuse every underscore name)."""
    if form.always_refused or name not in ORDINARY or name in form.not_names:
        return False
    return form.role == "name" or not name.startswith("_")


def protected(scope: str, name: str, generated: set[tuple[str, str]]) -> bool:
    """Names no script may bind in ``scope``: the compiler's own there, and every
    underscore name that is not private (guards, hooks, dunders, ``_sunder_``). Other
    names are the script's own."""
    if (scope, name) in generated:
        return True
    return name.startswith("_") and name != "_" and not is_private(name)


def node_coverage() -> dict[str, set[str]]:
    """``node type -> fields`` the forms exercise (for the coverage test)."""
    covered: dict[str, set[str]] = {}
    for form in FORMS:
        for node, fieldname in form.nodes:
            covered.setdefault(node, set()).add(fieldname)
    return covered


def parses(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True
