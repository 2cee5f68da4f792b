"""The one rule for names: what a script may bind or read, after private-name mangling.

Every identifier a script writes goes through :func:`name_error` (names it binds or
reads) or :func:`attribute_error` (attribute names), applied to the identifier as the
compiler will see it: inside a class body, CPython rewrites ``__x`` to ``_Class__x``
(:func:`mangle`). :data:`NODE_FIELDS` lists, for every AST node type the compiler
accepts, the fields that hold identifiers; a test checks it against ``ast`` so that a
new Python version cannot add an unchecked binding form, and the compiler refuses any
node type missing from it.

Names the compiler itself generates (:data:`GETATTR`, the match helpers...) hold a
``.``: no identifier can, so no script can spell, bind or read them, and CPython never
mangles a dotted name.

Worker side: standard library and RestrictedPython only.
"""

from __future__ import annotations

import functools
import re

from RestrictedPython.transformer import (
    ALLOWED_FUNC_NAMES,
    FORBIDDEN_FUNC_NAMES,
    INSPECT_ATTRIBUTES,
)

#: Names the compiler generates; the script's globals bind the first four.
GETATTR, WRITE, RERAISE, LAST_EXPR = ".getattr", ".write", ".reraise_control", ".last_expr"
#: The guard that vets the class of a class pattern (``guards.check_match_class``).
MATCH_CLASS = ".match_class"
#: The classes an ``except`` clause matches (``memory_errors.handled``).
HANDLED = ".handled"
#: The membrane (``membrane.py``): the real ``type``, the set of harmless exact types,
#: the check of one value, of an unpacked value's items.
EXACT_TYPE, HARMLESS, ENTER, UNPACK = ".exact_type", ".harmless", ".enter", ".unpack"
#: The check of an operator method's parameters (``proxied_dicts.py``): a dict a copy.
ENTER_OPERAND = ".enter_operand"
#: The check of a ``*args`` tuple's or ``**kwargs`` dict's items (each is a parameter).
ENTER_ITEMS = ".enter_items"
#: The classes the script's class statements made (the store guard's fast path).
SCRIPT_TYPES = ".script_types"
#: A method call's receiver: the check of its method, the types that need none.
METHOD_OF, RECEIVERS = ".method_of", ".receivers"
#: The receivers of a method that changes a dict: a dict is checked (it may be a namespace).
RECEIVERS_UNCHANGED = ".receivers_unchanged"
#: Locals the compiler binds: a value being checked (in a comprehension, a name of its
#: own), an item bound to a stored target.
HELD, HELD_IN_COMPREHENSION, ITEM = ".held", ".held_c", ".item"
#: The names bound in the script's globals (and passed to ``eval``/``exec`` code).
GUARD_NAMES: tuple[str, ...] = (GETATTR, WRITE, RERAISE, MATCH_CLASS, HANDLED, LAST_EXPR)
GUARD_NAMES += (EXACT_TYPE,)
GUARD_NAMES += (HARMLESS, ENTER, UNPACK, SCRIPT_TYPES, METHOD_OF, RECEIVERS)
GUARD_NAMES += (RECEIVERS_UNCHANGED, ENTER_OPERAND, ENTER_ITEMS)
GENERATED_NAMES = frozenset({*GUARD_NAMES, HELD, HELD_IN_COMPREHENSION, ITEM})

#: Names RestrictedPython reserves (``print``, ``printed``, ``builtins``, ``breakpoint``);
#: ``print`` may be read (it is the sandbox's capturing print).
RESERVED_NAMES = FORBIDDEN_FUNC_NAMES

#: Names a script may read although they start with an underscore.
READABLE_NAMES = frozenset({"__name__"})

_PRIVATE = re.compile(r"_[A-Za-z0-9](?:\w*[A-Za-z0-9])?")

#: Node type -> the fields holding identifiers (a str, a list of str, or None). Every
#: node type the compiler accepts is listed, the ones without identifiers too.
NODE_FIELDS: dict[str, tuple[str, ...]] = {
    # Binding and naming forms.
    "Name": ("id",),
    "arg": ("arg",),
    "keyword": ("arg",),
    "alias": ("name", "asname"),
    "ImportFrom": ("module",),
    "FunctionDef": ("name",),
    "AsyncFunctionDef": ("name",),
    "ClassDef": ("name",),
    "Global": ("names",),
    "Nonlocal": ("names",),
    "ExceptHandler": ("name",),
    "MatchAs": ("name",),
    "MatchStar": ("name",),
    "MatchMapping": ("rest",),
    # Attribute names: the attribute rule.
    "Attribute": ("attr",),
    "MatchClass": ("kwd_attrs",),
    # No identifiers (walrus and comprehension targets are Name nodes).
    **dict.fromkeys(
        "Module Expr Assign AugAssign AnnAssign For While If With withitem Match match_case "
        "AsyncFor AsyncWith Await "
        "Raise Try Assert Import Return Delete Pass Break Continue BoolOp NamedExpr BinOp "
        "UnaryOp Lambda IfExp Dict Set ListComp SetComp DictComp GeneratorExp Yield "
        "YieldFrom Compare Call FormattedValue JoinedStr Constant Subscript Starred List "
        "Tuple Slice comprehension arguments MatchValue MatchSingleton MatchSequence "
        "MatchOr".split(),
        (),
    ),
    # Contexts and operators: singletons the walk never visits.
    **dict.fromkeys(
        "Load Store Del And Or Add Sub Mult MatMult Div Mod Pow LShift RShift BitOr BitXor "
        "BitAnd FloorDiv Invert Not UAdd USub Eq NotEq Lt LtE Gt GtE Is IsNot In "
        "NotIn".split(),
        (),
    ),
}

#: Node types the compiler refuses, with the reason given to the script.
REFUSED_NODES: dict[str, str] = {
    "TryStar": "except* is not supported",
    "TypeAlias": "type parameter syntax is not supported",
    "TypeVar": "type parameter syntax is not supported",
    "ParamSpec": "type parameter syntax is not supported",
    "TypeVarTuple": "type parameter syntax is not supported",
    "TemplateStr": "template strings are not supported",
    "Interpolation": "template strings are not supported",
}


def mangle(private: str | None, name: str) -> str:
    """``name`` as CPython's compiler stores it inside class ``private`` (``_Py_Mangle``)."""
    if private is None or not name.startswith("__"):
        return name
    if name.endswith("__") or "." in name:
        return name
    stripped = private.lstrip("_")
    if not stripped:
        return name
    return f"_{stripped}{name}"


@functools.lru_cache(maxsize=4096)
def is_private_name(name: str) -> bool:
    """``_cache``, ``_helper``: one leading underscore, none trailing.

    Scripts may use such names for their own variables and attributes. Dunders,
    name-mangled ``__x``, ``_sunder_`` names and the generated names stay refused; a
    private *attribute* is checked at run time: only members the script defined are
    its own.
    """
    return _PRIVATE.fullmatch(name) is not None


def _spelling_error(name: str, definable: frozenset[str]) -> str | None:
    if not name.isidentifier():
        return f'"{name}" is not a name a script may use.'
    if name[0] == "_" and name != "_" and not is_private_name(name) and name not in definable:
        return f'"{name}" is an invalid variable name because it starts with "_"'
    if name.endswith("__roles__"):
        return f'"{name}" is an invalid variable name because it ends with "__roles__".'
    if name in RESERVED_NAMES:
        return f'"{name}" is a reserved name.'
    return None


def name_error(
    name: str, private: str | None, definable: frozenset[str] = frozenset()
) -> str | None:
    """Why a script may not bind or read ``name`` (inside class ``private``), or None.

    ``definable``: the special names allowed here (``__init__`` for a method, ``__name__``
    for a read). The name must pass both as written and as mangled.
    """
    error = _spelling_error(name, definable)
    if error is None:
        mangled = mangle(private, name)
        if mangled != name:
            error = _spelling_error(mangled, definable)
    return error


#: Attribute names whose meaning depends on the object: checked by the guard at run time.
RUNTIME_CHECKED_ATTRS = frozenset(
    {
        "format",
        "format_map",
        "obj",
        "mro",
        "register",
        "__class__",
        "__init__",
        "__new__",
        "__init_subclass__",
        # ``ndarray.resize(refcheck=False)`` frees the memory its views still read.
        "resize",
    }
)

#: Operator and protocol methods: ``list.__add__``, ``str.__contains__``, ``x.__eq__``.
#: Reading one gives nothing the operator does not (``a.__add__(b)`` is ``a + b``
#: without the reflected fallback). Not among them, because they would do what the
#: guards refuse: ``__getattribute__``/``__getattr__``/``__setattr__``/``__delattr__``
#: (any attribute), ``__get__``/``__set__``/``__delete__`` (a descriptor applied to an
#: object of the script's choice), ``__reduce__``/``__reduce_ex__``/``__getstate__``
#: (internal state), ``__copy__``/``__deepcopy__`` (the copy memo), ``__dict__`` and
#: ``__subclasses__``. (``__init__``, ``__new__`` and ``__init_subclass__`` are read
#: through the guard: they act on the script's own objects and classes only.)
OPERATOR_DUNDERS = frozenset(
    """__add__ __sub__ __mul__ __matmul__ __truediv__ __floordiv__ __mod__ __divmod__
    __pow__ __lshift__ __rshift__ __and__ __xor__ __or__ __radd__ __rsub__ __rmul__
    __rmatmul__ __rtruediv__ __rfloordiv__ __rmod__ __rdivmod__ __rpow__ __rlshift__
    __rrshift__ __rand__ __rxor__ __ror__ __iadd__ __isub__ __imul__ __imatmul__
    __itruediv__ __ifloordiv__ __imod__ __ipow__ __ilshift__ __irshift__ __iand__ __ixor__
    __ior__ __neg__ __pos__ __abs__ __invert__ __complex__ __int__ __float__ __index__
    __round__ __trunc__ __floor__ __ceil__ __lt__ __le__ __eq__ __ne__ __gt__ __ge__
    __hash__ __bool__ __len__ __length_hint__ __iter__ __next__ __reversed__ __contains__
    __getitem__ __setitem__ __delitem__ __missing__ __str__ __repr__ __format__ __bytes__
    __call__ __enter__ __exit__ __sizeof__""".split()
)

#: Dunder attributes a script may read (``super().__init__``, ``type(x).__name__``).
READABLE_DUNDERS = OPERATOR_DUNDERS | frozenset(
    {
        "__init__",
        "__new__",
        "__init_subclass__",
        "__name__",
        "__qualname__",
        "__doc__",
        "__class__",
        "__module__",
        "__version__",
    }
)

#: Attributes of frames, tracebacks, code objects and generators: never given out.
#: An asyncio task's or future's loop (it runs executors: threads; subprocesses,
#: connections) and stack (frames), and the coroutine it wraps.
FORBIDDEN_ATTRS = INSPECT_ATTRIBUTES | {
    "f_locals",
    "f_globals",
    "f_builtins",
    "f_back",
    "get_loop",
    "get_stack",
    "print_stack",
    "get_coro",
}


def attribute_error(attr: str, private: str | None, loading: bool) -> str | None:
    """Why a script may not name attribute ``attr`` (read if ``loading``), or None.

    Private attributes pass here; the guard decides at run time whose they are.
    """
    for spelled in dict.fromkeys((attr, mangle(private, attr))):
        if not spelled.isidentifier():
            return f'"{spelled}" is not an attribute name a script may use.'
        if (
            spelled.startswith("_")
            and spelled != "_"
            and not is_private_name(spelled)
            and not (loading and spelled in READABLE_DUNDERS)
        ):
            return f'"{spelled}" is an invalid attribute name because it starts with "_".'
        if spelled in FORBIDDEN_ATTRS:
            return f'"{spelled}" is a restricted name and cannot be accessed.'
    return None


def natively_readable(attr: object) -> bool:
    """Whether an attribute named ``attr`` may be read without the run-time guard
    (``case C(x)`` reads the names in ``C.__match_args__`` natively)."""
    return (
        type(attr) is str
        and attr.isidentifier()
        and not attr.startswith("_")
        and attr not in FORBIDDEN_ATTRS
        and attr not in RUNTIME_CHECKED_ATTRS
    )


#: Special methods a script may define in its own classes (directly in a class body),
#: by ``def`` or by assignment (``__init__ = helper``). Left out, because they would
#: let the script subvert a guard (see "Not supported" in ``docs/guide/scripts.md``):
#: ``__getattribute__`` and ``__class__`` (they decide what ``isinstance`` answers for
#: any class), ``__reduce__``/``__reduce_ex__`` (a reduce value makes ``copy`` store
#: attributes on any object it names), ``__dict__``, ``__annotations__`` (field names
#: that become dataclass source), ``__prepare__``/``__mro_entries__``/
#: ``__instancecheck__``/``__subclasscheck__`` (class machinery) and ``__del__`` (it
#: runs whenever the collector runs: after the script, outside its limits).
DEFINABLE_DUNDERS = (
    ALLOWED_FUNC_NAMES
    | (OPERATOR_DUNDERS - {"__sizeof__"})
    | frozenset(
        """__post_init__ __new__ __aiter__ __anext__ __aenter__ __aexit__ __await__
    __copy__ __deepcopy__ __getstate__ __setstate__ __getnewargs__ __getnewargs_ex__
    __getattr__ __setattr__ __delattr__ __dir__ __get__ __set__ __delete__ __set_name__
    __init_subclass__ __class_getitem__ __subclasshook__ __slots__ __doc__ __match_args__
    __sizeof__ __hash__""".split()
    )
)
