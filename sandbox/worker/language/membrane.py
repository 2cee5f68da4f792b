"""The membrane: what a value must be to enter script code.

Native code hands values to a script at a few kinds of places: the parameters of the
script's functions (native code calls back: ``__eq__``, ``__hash__``, ``__getattr__``,
``__format__``, sort keys, ``re`` callbacks, hooks), the results of calls, the items
taken out of containers (iteration, unpacking, subscripts), ``with``/``except``/
``match`` targets, ``await`` results and the values a generator is sent. The compiler
passes every such value through :func:`enter`
(``membrane_positions.py`` lists the positions; a test walks ``ast`` so that a new
one cannot be missed). ``enter`` refuses the values no script may hold, whatever route
brought them:

- frames, code objects and cells (the interpreter's state: globals, builtins, closures);
- real modules (a script holds only the sandbox's proxies);
- module namespaces, the real builtins dict and the script's own globals (where the
  compiler's guards live);
- library metaclasses (they build classes from any namespace); the real ``type`` is
  replaced by the sandbox's, the real ``MemoryError`` and its library subclasses by the
  script's own (``memory_errors.py``: the memory limit cannot be forged);
- the interpreter's own builtins the script's differ from (``eval``, ``__import__``,
  ``getattr``, ``open``...: :func:`refuse_on_entry`), however they were reached;
- an alias that calls its origin (``type[int]`` is the real ``type`` behind a
  subscript): its origin is checked like the value itself (``type[int]`` becomes the
  sandbox's ``type`` subscripted);
- ``super`` objects past a class the script did not write: they find the methods that
  class overrides, where the sandbox's stand-ins check their arguments
  (``super(types.SimpleNamespace, ns).__init__(**kw)``);
- unbound Python methods of library classes run library code with a ``self`` of the
  script's choice: each is replaced by one that takes its class's objects only
  (``self_binding.bound_to_owner``), or refused where its class cannot be found.

A container may hold any of these (``__closure__`` is a tuple of cells): its items are
checked as they come out, so containers themselves pass. A script function's ``*args``
tuple and ``**kwargs`` dict are the interpreter's, made from what native code called it
with: their items are parameters, checked on entry (:func:`enter_items`).

A method call keeps CPython's native method call (no bound method made): the compiler
checks its receiver with the method (:func:`method_of`), and not at all for the builtin
types, whose attributes are their own methods (:data:`METHOD_SAFE`).

Cheap by construction: the compiler tests ``type(value) in HARMLESS_TYPES`` inline (an
exact-type set lookup, no call) and calls :func:`enter` only when that fails.
``HARMLESS_TYPES`` holds the scalar types, the containers, the script's own classes,
and every class :func:`enter` has found to be none of the above (instances of
``Decimal``, ``ndarray``...): a type is vetted once. Dicts (a namespace is refused by
identity), functions and classes are decided per value.

Worker side: standard library only.
"""

from __future__ import annotations

import builtins
import ctypes
import functools
import operator
import sys
import types
from collections.abc import Callable, Mapping
from typing import Any

from sandbox.worker.language.control import ForbiddenOperation
from sandbox.worker.language.dunders import deafen
from sandbox.worker.language.names import (
    ENTER,
    ENTER_ITEMS,
    ENTER_OPERAND,
    EXACT_TYPE,
    HARMLESS,
    METHOD_OF,
    RECEIVERS,
    RECEIVERS_UNCHANGED,
    UNPACK,
)
from sandbox.worker.language.real_mro import real_mro

_real_type = type

#: Exact types whose every instance a script may hold; grows as :func:`enter` vets types.
HARMLESS_TYPES: set[type] = {
    int,
    float,
    complex,
    bool,
    str,
    bytes,
    bytearray,
    type(None),
    type(NotImplemented),
    type(Ellipsis),
    # Containers: every item that comes out of one (iteration, unpacking, subscript,
    # a match) is checked there.
    list,
    tuple,
    set,
    frozenset,
    types.MappingProxyType,
    range,
    slice,
    types.TracebackType,  # its frame is refused by name (``tb_frame``, ``tb_next``)
}

#: Types whose instances a script never holds, with what the refusal calls them.
#: ctypes objects and types read and write raw memory (numpy hands some out:
#: ``BitGenerator.ctypes``); their common base.
_CTYPES_DATA: type = ctypes.c_int.__mro__[-2]

FORBIDDEN: dict[type, str] = {
    types.FrameType: "a frame",
    types.CodeType: "a code object",
    types.CellType: "a closure cell",
    types.ModuleType: "a module",
    _CTYPES_DATA: "a ctypes object (raw memory)",
}

#: Values replaced by the sandbox's own on entry (the real ``type``: ``safe_type``).
_replacements: dict[int, tuple[Any, Any]] = {}

#: Single values no script may hold, by id, with what the refusal calls them.
_refused: dict[int, tuple[Any, str]] = {}

#: Dicts no script may hold, by id (strong references keep the ids unique).
_namespaces: dict[int, dict[str, Any]] = {}
_modules_seen = 0

#: Functions the sandbox made that may run with any argument (they check it).
_sandbox_functions: set[int] = set()


def replace_on_entry(value: Any, replacement: Any) -> None:
    """Hand scripts ``replacement`` wherever native code would hand them ``value`` (a
    class or a Python function)."""
    _replacements[id(value)] = (value, replacement)
    if not isinstance(value, _real_type):
        _per_value(_real_type(value))


#: Classes replaced with all their subclasses but the replacement's (``MemoryError``).
_families: list[tuple[type, type]] = []


def replace_family_on_entry(base: type, replacement: type) -> None:
    """Hand scripts ``replacement`` (a subclass of ``base``) wherever native code would
    hand them ``base`` or a subclass of it that does not derive from ``replacement``."""
    _families.append((base, replacement))


def refuse_on_entry(value: Any, what: str) -> None:
    """Never hand scripts ``value`` (the interpreter's ``eval``: the script has its own).
    Its type is then decided per value, never vetted once for all its instances."""
    _refused[id(value)] = (value, what)
    _per_value(_real_type(value))


def _per_value(cls: type) -> None:
    # Instances of ``cls`` are looked up by id as they enter, never vetted by type.
    if cls not in _PER_VALUE:
        HARMLESS_TYPES.discard(cls)
        _PER_VALUE[cls] = _enter_listed


def register_namespace(namespace: dict[str, Any]) -> None:
    """A dict no script may hold (a script's globals, its builtins)."""
    _namespaces[id(namespace)] = namespace


def trust_function(function: Callable[..., Any]) -> None:
    """A function of the sandbox's that checks its own arguments (a ``self`` check)."""
    _sandbox_functions.add(id(function))
    _keep.append(function)


_keep: list[Any] = []
#: Makes an unbound library method take its own class's objects only (None: refused).
_binder: Callable[[types.FunctionType], Any] | None = None


def _no_script_class(cls: type) -> bool:
    return False


#: Whether a class is the script's own (``classes.is_script_class``).
_script_class: Callable[[type], bool] = _no_script_class


def use_script_class_test(test: Callable[[type], bool]) -> None:
    """How the membrane tells the script's classes from the others."""
    global _script_class
    _script_class = test


def _enter_super(value: super) -> super:
    this = value.__thisclass__  # type: ignore[attr-defined]
    if not _script_class(this):
        raise _refuse(
            f"super() past the class {this.__qualname__!r}, which the script did not write,"
        )
    return value


def _every_class_shown(cls: type) -> type:
    return cls


#: What a script may hold of a class (``classes.shown_class``: the class itself where
#: the script could name it anyway, else a stand-in that answers ``isinstance`` only).
_shown_class: Callable[[type], type] = _every_class_shown


def use_class_view(view: Callable[[type], type]) -> None:
    """How a class reaches scripts: the same view ``type(x)`` gives."""
    global _shown_class
    _shown_class = view


def use_binder(binder: Callable[[types.FunctionType], Any]) -> None:
    """How an unbound library method is handed to scripts (``self_binding``)."""
    global _binder
    _binder = binder


def _refuse(what: str) -> ForbiddenOperation:
    return ForbiddenOperation(f"{what} cannot be handed to a script in the sandbox")


def _refresh_namespaces() -> None:
    global _modules_seen
    for module in list(sys.modules.values()):
        namespace = getattr(module, "__dict__", None)
        if _real_type(namespace) is dict:
            _namespaces[id(namespace)] = namespace
    _namespaces[id(vars(builtins))] = vars(builtins)
    _modules_seen = len(sys.modules)


def _enter_dict(value: dict[Any, Any]) -> dict[Any, Any]:
    if len(sys.modules) != _modules_seen:
        _refresh_namespaces()
    if id(value) in _namespaces and _namespaces[id(value)] is value:
        raise _refuse("a namespace (module globals or builtins)")
    return value


def _enter_function(value: types.FunctionType) -> Any:
    if value.__code__.co_filename.startswith("<script") or id(value) in _sandbox_functions:
        return value
    replaced = _replacements.get(id(value))
    if replaced is not None and replaced[0] is value:
        return replaced[1]
    # ``JSONEncoder.encode``: defined in a class body, it runs with any ``self``; it
    # arrives bound to its class's objects (``self_binding``), or not at all.
    qualname = value.__qualname__
    tail = qualname.rpartition("<locals>.")[2] if _real_type(qualname) is str else ""
    if "." in tail:
        bound = _binder(value) if _binder is not None else None
        if bound is None:
            raise _refuse(f"the unbound library method {tail!r}")
        return bound
    return value


def _enter_class(value: type) -> Any:
    replaced = _replacements.get(id(value))
    if replaced is not None and replaced[0] is value:
        return replaced[1]
    if issubclass(value, _real_type):
        raise _refuse(f"the metaclass {value.__qualname__!r}")
    mro = real_mro(value)
    if _CTYPES_DATA in mro:
        raise _refuse(f"the ctypes type {value.__qualname__!r} (raw memory)")
    for base, replacement in _families:
        if base in mro and replacement not in mro:
            return replacement
    shown = _shown_class(value)
    if shown is not value:
        return shown
    deafen(value)
    return value


def _enter_listed(value: Any) -> Any:
    # Builtin functions and the bound methods of native objects share one type; the
    # interpreter's ``help`` and ``exit`` are objects of their own classes.
    refused = _refused.get(id(value))
    if refused is not None and refused[0] is value:
        raise _refuse(refused[1])
    replaced = _replacements.get(id(value))
    if replaced is not None and replaced[0] is value:
        return replaced[1]
    return value


def _enter_alias(value: types.GenericAlias) -> Any:
    # Calling ``list[int]`` calls ``list``: the origin is what the script would call.
    origin = value.__origin__
    entered = enter(origin)
    if entered is origin:
        return value
    return types.GenericAlias(entered, value.__args__)


def _enter_partial(value: functools.partial[Any]) -> Any:
    # Calling it calls what it holds, natively: each part is checked like a value the
    # script holds (the real ``type`` inside one, from native code, builds classes).
    func, args = enter(value.func), tuple(map(enter, value.args))
    keywords = {key: enter(item) for key, item in value.keywords.items()}
    same = func is value.func and all(map(operator.is_, args, value.args))
    if same and all(keywords[key] is item for key, item in value.keywords.items()):
        return value
    return functools.partial(func, *args, **keywords)


_PER_VALUE: dict[type, Callable[[Any], Any]] = {
    functools.partial: _enter_partial,
    dict: _enter_dict,
    types.FunctionType: _enter_function,
    types.BuiltinFunctionType: _enter_listed,
    types.GenericAlias: _enter_alias,
    super: _enter_super,
}


def _enter_library_tuple(value: tuple[Any, ...]) -> Any:
    # A library's named tuple (``BitGenerator.ctypes``'s holds ctypes functions): native
    # code may take its items without the script (``map(operator.call, islice(t, 2))``),
    # so they are checked as it enters, like a call's ``*args``.
    if HARMLESS_TYPES.issuperset(map(_real_type, value)):
        return value
    for item in tuple.__iter__(value):
        if enter(item) is not item:
            raise _refuse(f"a {_real_type(value).__name__} holding a replaced value")
    return value


def enter(value: Any) -> Any:
    """``value`` as a script may hold it (the same object, or the sandbox's stand-in);
    raises ``TypeError`` for a value no script may hold."""
    cls = _real_type(value)
    if cls in HARMLESS_TYPES:
        return value
    check = _PER_VALUE.get(cls)
    if check is not None:
        return check(value)
    if issubclass(cls, _real_type):
        return _enter_class(value)
    for kind, what in FORBIDDEN.items():
        if issubclass(cls, kind):
            raise _refuse(what)
    deafen(cls)
    if issubclass(cls, tuple) and not _script_class(cls):
        _PER_VALUE[cls] = _enter_library_tuple
        return _enter_library_tuple(value)
    HARMLESS_TYPES.add(cls)
    return value


def unpack(value: Any) -> Any:
    """The value of an unpacking assignment, its items checked (``a, b = pair``)."""
    cls = _real_type(value)
    if cls is tuple or cls is list:
        if HARMLESS_TYPES.issuperset(map(_real_type, value)):
            return value
        return [enter(item) for item in value]
    return [enter(item) for item in enter(value)]


def enter_operand(value: Any) -> Any:
    """A parameter of a script's operator method: a dict as a copy (a mapping proxy's
    operators hand over the dict behind it: ``proxied_dicts.py``), else :func:`enter`."""
    if _real_type(value) is dict:
        return dict(value)
    return enter(value)


def enter_items(collected: Any, operands: bool = False) -> Any:
    """A ``*args`` tuple or ``**kwargs`` dict as a script function may hold it: native
    code that calls back builds it, so each item is a parameter and is checked like one
    (:func:`enter_operand` for an operator method's)."""
    check = enter_operand if operands else enter
    if _real_type(collected) is dict:
        if HARMLESS_TYPES.issuperset(map(_real_type, collected.values())):
            return collected
        return {key: check(item) for key, item in collected.items()}
    if HARMLESS_TYPES.issuperset(map(_real_type, collected)):
        return collected
    return tuple(map(check, collected))


def admit_class(cls: type) -> None:
    """A class the script defined: its instances are the script's own."""
    HARMLESS_TYPES.add(cls)


#: Exact types whose every attribute is a method of the type or a harmless value: a
#: method called on one needs no check (``xs.append(x)``, ``d.get(k)``). A dict may be a
#: namespace no script may hold, which a method could change: the methods that change a
#: dict (``NAMESPACE_CHANGERS``) are checked on every dict (``METHOD_SAFE_UNCHANGING``).
METHOD_SAFE: set[type] = {int, float, complex, bool, str, bytes, bytearray, list, tuple, dict}
METHOD_SAFE |= {set, frozenset, range, type(None)}
METHOD_SAFE_UNCHANGING = METHOD_SAFE - {dict}
NAMESPACE_CHANGERS = frozenset(
    {"update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__", "__ior__"}
)


class _Checked:
    """The receiver of one method call whose method the membrane replaced: its own
    ``__dict__`` holds the checked method under the method's name (found before any
    method of this class, ``__repr__`` included)."""


def method_of(receiver: Any, name: str) -> Any:
    """The receiver of ``receiver.name(...)``, with the method checked like any value
    entering script code (the compiler keeps the call a native method call): an object
    holding the checked method under its name, so that it is looked up once."""
    if _real_type(receiver) not in HARMLESS_TYPES:
        receiver = enter(receiver)
    method = getattr(receiver, name)
    holder = _Checked()
    vars(holder)[name] = method if _real_type(method) in HARMLESS_TYPES else enter(method)
    return holder


def safe_receivers(*classes: type) -> None:
    """Classes whose attributes are vetted once (the module proxies, built from vetted
    members and read-only): a method called on one needs no check."""
    METHOD_SAFE.update(classes)
    METHOD_SAFE_UNCHANGING.update(classes)


def vetted(members: Mapping[str, Any]) -> dict[str, Any]:
    """A module's members as a script may hold them (when a proxy is built): each
    passed through :func:`enter`, the refused ones left out."""
    held: dict[str, Any] = {}
    for key, value in members.items():
        try:
            held[key] = enter(value)
        except ForbiddenOperation:
            continue
    return held


def membrane_names() -> dict[str, Any]:
    """The membrane's generated names and what the compiled code finds under them."""
    return {
        EXACT_TYPE: _real_type,
        HARMLESS: HARMLESS_TYPES,
        ENTER: enter,
        ENTER_OPERAND: enter_operand,
        ENTER_ITEMS: enter_items,
        UNPACK: unpack,
        METHOD_OF: method_of,
        RECEIVERS: METHOD_SAFE,
        RECEIVERS_UNCHANGED: METHOD_SAFE_UNCHANGING,
    }


_refresh_namespaces()
