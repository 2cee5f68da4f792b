"""Every way to bind a name: the forms the fuzzer builds its scripts from.

Each :class:`Form` is a template with ``@N@`` for the name and ``@P@`` where the probe
goes (see ``binding_scripts``), and names the ``(node type, field)`` pairs of ``ast`` it
exercises, so that ``test_binding_coverage`` can check that every binding field of the
running Python has a form.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass


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


def node_coverage() -> dict[str, set[str]]:
    """``node type -> fields`` the forms exercise (for the coverage test)."""
    covered: dict[str, set[str]] = {}
    for form in FORMS:
        for node, fieldname in form.nodes:
            covered.setdefault(node, set()).add(fieldname)
    return covered
