"""The names the fuzzer binds, and which of them no script may bind."""

from __future__ import annotations

import re

from tests.fuzz.binding_forms import Form
from tests.fuzz.binding_scripts import PLAIN

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
