"""The special names a script object may carry, whatever route brings a name there.

A special name on an object changes what native code does with it: numpy reads
``__array_interface__`` (an address), ``copy`` calls ``__reduce_ex__`` (a setattr on any
object), a dataclass field becomes source code. So a dunder may become an attribute of
a script's object in one way only: a class body that defines it, where the compiler's
name rule allows the data model ``docs/guide/scripts.md`` documents (``names.DEFINABLE_DUNDERS``).
Every other route takes ordinary names only (:func:`ordinary_name`):

========================================  ============================================
route                                     enforced by
========================================  ============================================
class bodies                              the name rule at compile time
``obj.x = v``, ``setattr``, ``delattr``   the name rule; ``guards.safe_setattr``
``types.SimpleNamespace(**kw)``           :class:`SimpleNamespace` (and ``__replace__``)
``typing.TypedDict("T", {...})``          :func:`typed_dict`
``typing.NamedTuple``, ``namedtuple``     the library refuses underscore field names
dataclass fields                          ``stdlib_safe._safe_dataclass``
the functional ``Enum``                   ``stdlib_safe._enum_members``
``functools.update_wrapper``/``wraps``    ``stdlib_safe._safe_update_wrapper``
``copy`` filling state from __getstate__  :func:`guard_class` (``__getstate__``)
``sympy.Function("F", **kw)``, ``bases``  ``data_modules`` (in ``UndefinedFunction``)
``type(name, bases, dict)``               refused: the sandbox's ``type`` has one form
========================================  ============================================

and a script's ``__getattr__`` is never asked for a dunder (:func:`guard_class`): native
code looking one up (numpy's protocols, ``copy``, ``pickle``) finds none.

Worker side: standard library only.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from sandbox.worker.language.control import ForbiddenOperation
from sandbox.worker.language.names import DEFINABLE_DUNDERS
from sandbox.worker.language.proxied_dicts import guard_operators
from sandbox.worker.language.real_mro import real_mro

_real_type = type

#: The special names a class body may define: the data model (``names.py``).
DATA_MODEL = DEFINABLE_DUNDERS

#: Every route by which a name becomes an attribute, and what holds it (tested).
ROUTES: dict[str, str] = {
    "class body": "the compiler's name rule (names.DEFINABLE_DUNDERS)",
    "attribute store": "the compiler's name rule; setattr/delattr: guards.safe_setattr",
    "types.SimpleNamespace": "dunders.SimpleNamespace",
    "typing.TypedDict": "dunders.typed_dict",
    "typing.NamedTuple": "the library (no underscore field names)",
    "collections.namedtuple": "the library (no underscore field names)",
    "dataclass fields": "stdlib_safe._safe_dataclass",
    "enum functional API": "stdlib_safe._enum_members",
    "functools.update_wrapper": "stdlib_safe._safe_update_wrapper",
    "copy state": "dunders.guard_class (__getstate__)",
    "sympy.Function": "data_modules (UndefinedFunction.__new__)",
    "type with three arguments": "classes.SafeType (one argument only)",
}


def is_special(name: str) -> bool:
    """A dunder or a name CPython mangles (``__x``): never an ordinary name."""
    return name.startswith("__")


def ordinary_name(name: object, what: str) -> str:
    """``name`` if it is an identifier that is not special; raises otherwise."""
    # The exact type: a str subclass could answer ``startswith`` as it likes.
    if not (isinstance(name, str) and _real_type(name) is str and name.isidentifier()):
        raise ForbiddenOperation(f"{what} takes identifiers as names, not {name!r}")
    if is_special(name):
        raise ForbiddenOperation(
            f"{what} cannot make the special name {name!r} an attribute in the sandbox"
        )
    return name


def ordinary_names(names: Iterable[object], what: str) -> None:
    """Every one of ``names`` is an ordinary name (see :func:`ordinary_name`)."""
    for name in names:
        ordinary_name(name, what)


class SimpleNamespace(types.SimpleNamespace):
    """``types.SimpleNamespace`` whose keyword names are ordinary names."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        for mapping in args:  # 3.13 takes a mapping or an iterable of pairs
            items = mapping.items() if isinstance(mapping, Mapping) else mapping
            ordinary_names((key for key, _ in list(items)), "SimpleNamespace()")
        ordinary_names(kwargs, "SimpleNamespace()")
        super().__init__(*args, **kwargs)

    def __replace__(self, **changes: Any) -> SimpleNamespace:
        ordinary_names(changes, "copy.replace()")
        new = _real_type(self)()
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new


SimpleNamespace.__module__ = "types"


def typed_dict(real: Callable[..., Any]) -> Callable[..., Any]:
    """``typing.TypedDict`` whose keys are ordinary names (they become annotations, and
    a dataclass makes annotations attributes)."""

    def TypedDict(typename: Any, fields: Any = None, /, **kwargs: Any) -> Any:
        if isinstance(fields, Mapping):
            ordinary_names(list(fields), "TypedDict()")
        ordinary_names(kwargs, "TypedDict()")
        made = real(typename, **kwargs) if fields is None else real(typename, fields, **kwargs)
        return script_module(made)

    # ``class D(TypedDict)`` resolves through this.
    TypedDict.__mro_entries__ = mro_entries_of(real, TypedDict)  # type: ignore[attr-defined]
    TypedDict.__doc__ = real.__doc__
    return TypedDict


def mro_entries_of(real: Any, stand_in: Any) -> Callable[[tuple[Any, ...]], Any]:
    """``__mro_entries__`` for a stand-in of a function that classes inherit from
    (``class P(NamedTuple)``): the real function's, as if it had been named."""

    def __mro_entries__(bases: tuple[Any, ...]) -> Any:
        return real.__mro_entries__(tuple(real if b is stand_in else b for b in bases))

    return __mro_entries__


def script_module(cls: Any) -> Any:
    """A class library code made for the script, in the script's module (typing names
    the module of the function that called it: here, the sandbox's)."""
    if isinstance(cls, type) and cls.__dict__.get("__module__") == __name__:
        _real_type.__setattr__(cls, "__module__", "__main__")
    return cls


#: Special names a library's own attribute hook still answers: descriptive ones that no
#: native protocol acts on (``typing.Optional.__name__`` comes from such a hook).
LIBRARY_HOOK_NAMES = frozenset(
    "__name__ __qualname__ __module__ __doc__ __origin__ __args__ __parameters__".split()
)


def _getattr_without_dunders(
    original: Any, passing: frozenset[str] = frozenset()
) -> Callable[..., Any]:
    def __getattr__(self: Any, name: str) -> Any:
        if _real_type(name) is str and is_special(name) and name not in passing:
            raise AttributeError(f"{_real_type(self).__name__!r} object has no attribute {name!r}")
        get = getattr(_real_type(original), "__get__", None)
        bound = get(original, self, _real_type(self)) if get is not None else original
        return bound(name)

    return __getattr__


def _plain_dict(value: Any) -> Any:
    # A dict subclass as an exact copy of its own storage: ``copy`` reads ``keys()``,
    # which the subclass may answer otherwise than the check's iteration.
    return dict(dict.items(value)) if issubclass(_real_type(value), dict) else value


def _plain_state(state: Any) -> Any:
    # A tuple subclass as an exact tuple too (``copy`` asks its ``len`` and unpacks it).
    if issubclass(_real_type(state), tuple):
        return tuple(_plain_dict(part) for part in tuple.__iter__(state))
    return _plain_dict(state)


def _state_without_dunders(original: Any) -> Callable[..., Any]:
    def __getstate__(self: Any) -> Any:
        get = getattr(_real_type(original), "__get__", None)
        bound = get(original, self, _real_type(self)) if get is not None else original
        state = _plain_state(bound())
        # ``copy`` sets the keys of a dict state (or of a (dict, slots) pair) as
        # attributes of the copy.
        parts = state if _real_type(state) is tuple and len(state) == 2 else (state,)
        for part in parts:
            if _real_type(part) is dict:
                ordinary_names(
                    (k for k in part if _real_type(k) is not str or is_special(k)),
                    "__getstate__()",
                )
        return state

    return __getstate__


def guard_class(cls: type) -> None:
    """Make a script class's own ``__getattr__`` deaf to dunders, its ``__getstate__``
    return ordinary names only and its operator methods receive no dict that a mapping
    proxy lends out (``proxied_dicts``) (``build_class``)."""
    guard_operators(cls)
    own = cls.__dict__
    if "__getattr__" in own:
        hook = _getattr_without_dunders(own["__getattr__"])
        _deaf_hooks.add(id(hook))
        _real_type.__setattr__(cls, "__getattr__", hook)
    if "__getstate__" in own:
        _real_type.__setattr__(cls, "__getstate__", _state_without_dunders(own["__getstate__"]))


def _getattribute_without_dunders(original: Any, owner: type) -> Callable[..., Any]:
    def __getattribute__(self: Any, name: str) -> Any:
        if _real_type(name) is str and is_special(name) and name not in LIBRARY_HOOK_NAMES:
            # What the classes after ``owner`` would answer: the object's own slots
            # and its type's attributes, never the library's reading of its data.
            return super(owner, self).__getattribute__(name)  # type: ignore[arg-type]
        return original(self, name)

    return __getattribute__


#: Classes whose attribute hooks :func:`deafen` has seen (by id; the classes are kept).
_deafened: dict[int, type] = {}
_deaf_hooks: set[int] = set()


def _library_hook(hook: object) -> bool:
    return (
        _real_type(hook) is types.FunctionType
        and id(hook) not in _deaf_hooks
        and not hook.__code__.co_filename.startswith("<script")
    )


def deafen(cls: type) -> None:
    """Make every library ``__getattr__``/``__getattribute__`` in ``cls``'s MRO deaf to
    special names (the membrane, when a class or an instance first enters script code).

    Such a hook answers a name from the object's data (scipy's ``OptimizeResult`` reads
    its dict, matplotlib's ``Spines`` its mapping): native code looking up a protocol
    (numpy's ``__array_interface__``: an address) would find the script's value. A
    special name is answered as if the hook were not there."""
    if id(cls) in _deafened:
        return
    for klass in real_mro(cls):
        if id(klass) in _deafened:
            continue
        _deafened[id(klass)] = klass
        own = klass.__dict__
        hooks: dict[str, Any] = {}
        if _library_hook(own.get("__getattr__")):
            hooks["__getattr__"] = _getattr_without_dunders(own["__getattr__"], LIBRARY_HOOK_NAMES)
        if _library_hook(own.get("__getattribute__")):
            hooks["__getattribute__"] = _getattribute_without_dunders(
                own["__getattribute__"], klass
            )
        for name, hook in hooks.items():
            _deaf_hooks.add(id(hook))
            try:
                _real_type.__setattr__(klass, name, hook)
            except TypeError:  # a static type holds no Python hook
                continue


REPLACED: dict[str, dict[str, Any]] = {
    "types": {"SimpleNamespace": SimpleNamespace},
    "typing": {"TypedDict": typed_dict(typing.TypedDict)},  # type: ignore[arg-type]
}
