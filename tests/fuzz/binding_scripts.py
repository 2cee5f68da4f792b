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
attribute walk through ``str.format``, a store to a library class, a class pattern whose
``__match_args__`` names a private attribute — and prints what
happened; the script then ends with ``final_result`` inside a ``try`` that would swallow
it if the re-raise of control exceptions were rebound. Built with the name ``fz_plain`` instead, the
same script is the *baseline*: a binding has no effect on the guards exactly when the
script refuses to compile, or runs to the baseline's output (see ``binding_oracle``).
"""

from __future__ import annotations

from dataclasses import dataclass

from tests.fuzz.binding_forms import Form

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
@fz_dataclasses.dataclass
class fz_Hidden:
    _fz_s: int
fz_hidden = fz_Hidden(7)
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
try:
    match fz_hidden:
        case fz_Hidden(fz_v):
            fz_out = fz_v
except Exception as fz_e:
    fz_out = fz_e
fz_report("match", fz_out)
"""

#: The probe as an expression, for lambda bodies and comprehensions (no stores there).
PROBE_EXPR = 'fz_check(lambda: fz_lib._fz_secret, lambda: "{0.__globals__}".format(fz_evil))'

#: The end of every script: a rebound re-raise of control exceptions would let it go on.
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
