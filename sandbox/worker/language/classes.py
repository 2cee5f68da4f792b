"""Which classes a script may see, subclass, and call its own.

- **The script's own classes** are the ones its class statements create (through
  :func:`build_class`) and the ones library code creates on its behalf in its module
  (``collections.namedtuple``, the functional ``Enum``).
- **Subclassing** is allowed from the script's own classes and from an explicit list of
  classes meant to be subclassed (:func:`subclassable`): builtin scalars and containers,
  exceptions, ``abc.ABC`` and the ``collections.abc`` ABCs, the ``collections`` and
  ``datetime`` classes, ``enum``'s bases, ``typing.Generic``/``Protocol``/``NamedTuple``/
  ``TypedDict``, ``json``'s encoder and decoder, ``string.Template``, ``random.Random``,
  ``fractions.Fraction`` and ``decimal.Decimal``. Never from a library's internal class.
- **``type(x)``** hands out the real class only when the script could name it anyway
  (its own classes, builtin types, members of the modules it may import); metaclasses
  are the sandbox's ``type``, and any other class (the sandbox's own, a library's
  internal ``typing._GenericAlias``...) is a stand-in that answers ``isinstance`` only.
- **Private members** (``_x``) are the script's own only where the script defined them
  (:func:`owns_private`): in its class bodies, on its instances, on its functions;
  never members inherited from a library class.

Worker side: standard library only.
"""

from __future__ import annotations

import abc
import builtins
import collections
import collections.abc
import datetime
import decimal
import fractions
import json
import random
import string
import sys
import types
import typing
import weakref
from collections.abc import Callable, Iterable
from typing import Any

from sandbox.worker.language.control import ControlFlow, ForbiddenOperation, ToolError
from sandbox.worker.language.copy_hooks import check_slots, default_deepcopy, memo_guarded
from sandbox.worker.language.dunders import guard_class
from sandbox.worker.language.membrane import (
    admit_class,
    enter,
    replace_on_entry,
    use_class_view,
    use_script_class_test,
)
from sandbox.worker.language.names import is_private_name as _is_private
from sandbox.worker.language.real_mro import real_mro
from sandbox.worker.language.self_binding import bind_generated

#: Module name a script's globals carry; classes defined by the script get it too.
SCRIPT_MODULE = "__main__"

_real_type = builtins.type
_user_types: set[type] = set()
#: Private names library code put into a script class's namespace as it was created
#: (``ABCMeta``'s ``_abc_impl``, ``Protocol``'s ``_is_protocol``): not the script's.
_foreign_privates: weakref.WeakKeyDictionary[type, frozenset[str]] = weakref.WeakKeyDictionary()
#: Script classes whose every base is a script class (or ``object``): all their private
#: members are the script's. The common case, decided without walking the MRO; each
#: with the MRO it had then (a changed ``__bases__`` makes a new MRO tuple, and the
#: class is decided afresh).
_pure_script: dict[type, tuple[type, ...]] = {}


def is_pure_script_class(cls: type) -> bool:
    """A script class built from script classes alone, as it still is."""
    return _pure_script.get(cls) is real_mro(cls)


#: A namedtuple's documented API, whoever generated the class.
NAMEDTUPLE_API = frozenset({"_make", "_replace", "_asdict", "_fields", "_field_defaults"})
#: The classes the script's class statements created (read-only outside this module).
SCRIPT_TYPES: frozenset[type] | set[type] = _user_types
_exposed: set[type] = set()

_SUBCLASSABLE: set[Any] = {
    int,
    float,
    complex,
    str,
    bytes,
    bytearray,
    list,
    dict,
    set,
    frozenset,
    tuple,
    abc.ABC,
    collections.OrderedDict,
    collections.defaultdict,
    collections.Counter,
    collections.deque,
    collections.ChainMap,
    collections.UserDict,
    collections.UserList,
    collections.UserString,
    datetime.date,
    datetime.datetime,
    datetime.time,
    datetime.timedelta,
    datetime.tzinfo,
    decimal.Decimal,
    fractions.Fraction,
    json.JSONEncoder,
    json.JSONDecoder,
    random.Random,
    string.Template,
    typing.Generic,
    typing.Protocol,
    # What ``class P(NamedTuple)`` and ``class D(TypedDict)`` resolve to.
    *typing.NamedTuple.__mro_entries__((typing.NamedTuple,)),  # type: ignore[attr-defined]
    *typing.TypedDict.__mro_entries__((typing.TypedDict,)),  # type: ignore[attr-defined]
    *(getattr(collections.abc, name) for name in collections.abc.__all__),
}


def allow_subclassing(*classes: type) -> None:
    """Add classes meant to be subclassed (the sandbox's ``enum`` bases)."""
    _SUBCLASSABLE.update(classes)


def expose_classes(values: Iterable[Any]) -> None:
    """Record the classes among ``values`` (members of module proxies) as ones a script
    may name, so that ``type(x)`` may hand them out."""
    _exposed.update(value for value in values if isinstance(value, _real_type))


def is_script_class(cls: type) -> bool:
    """A class the script's own code created (see the module docstring)."""
    return cls in _user_types or cls.__dict__.get("__module__") == SCRIPT_MODULE


use_script_class_test(is_script_class)


def is_sandbox_class(cls: type) -> bool:
    """One of the sandbox's own classes (module proxies, file wrappers, stand-ins)."""
    module = cls.__dict__.get("__module__")
    return (
        isinstance(module, str)
        and (module == "sandbox" or module.startswith("sandbox."))
        and cls is not ToolError
    )


def subclassable(base: Any) -> bool:
    """Whether a script's class may inherit from ``base``."""
    if not isinstance(base, _real_type) or isinstance(base, (_OpaqueMeta, _TypeMeta)):
        return False
    if is_script_class(base) or base in _SUBCLASSABLE:
        return True
    return issubclass(base, BaseException) and not issubclass(base, ControlFlow) and _visible(base)


def build_class(func: Callable[..., Any], name: str, *bases: Any, **kwargs: Any) -> type:
    """``__build_class__``: only allowed bases and keywords; remembers the class."""
    for key in kwargs:
        # ``class G(Base, **{"_root": True})`` reaches here: check what was passed.
        if key == "metaclass" or not (_real_type(key) is str and key.isidentifier()):
            raise ForbiddenOperation(f"class keyword {key!r} is not allowed in the sandbox")
        if key.startswith("_"):
            raise ForbiddenOperation(f"class keyword {key!r} is not allowed in the sandbox")
    for base in types.resolve_bases(bases):
        if not subclassable(base):
            shown = base.__qualname__ if isinstance(base, _real_type) else repr(base)
            raise ForbiddenOperation(
                f"classes cannot inherit from {shown!r} in the sandbox: only from the "
                "script's own classes and classes meant to be subclassed"
            )
    cls = builtins.__build_class__(func, name, *bases, **kwargs)
    check_slots(cls)
    bind_generated(cls, func.__code__.co_names)
    guard_class(cls)
    copier = cls.__dict__.get("__deepcopy__")
    if copier is not None:
        _real_type.__setattr__(cls, "__deepcopy__", memo_guarded(copier))
    elif "__getattr__" in cls.__dict__ and getattr(cls, "__deepcopy__", None) is None:
        _real_type.__setattr__(cls, "__deepcopy__", default_deepcopy)
    # The class body stores only names its code object lists.
    spelled = set(func.__code__.co_names) | NAMEDTUPLE_API
    foreign = frozenset(key for key in cls.__dict__ if _is_private(key) and key not in spelled)
    if foreign:
        _foreign_privates[cls] = foreign
    _user_types.add(cls)
    admit_class(cls)
    if _real_type(cls) is _real_type and all(is_pure_script_class(k) for k in real_mro(cls)[1:-1]):
        _pure_script[cls] = real_mro(cls)
    return cls  # type: ignore[no-any-return]


# -- whose private members -------------------------------------------------------


def _definer(mro: Iterable[type], name: str) -> type | None:
    for klass in mro:
        if name in klass.__dict__:
            return klass
    return None


def _defined_by_script(klass: type, name: str) -> bool:
    return is_script_class(klass) and name not in _foreign_privates.get(klass, ())


# A plain dict: script classes live as long as the worker anyway (``_user_types``), and
# a weak mapping costs a weakref per lookup. Each index with the MRO it was built from.
_unsafe_index: dict[type, tuple[tuple[type, ...], frozenset[str] | None]] = {}


def _unsafe_names(cls: type) -> frozenset[str] | None:
    """The private names that a library class in ``cls``'s MRO defines, or that library
    code put on one of its script classes; None if a library base computes members.

    Built on first use: the MRO and the script classes' foreign names are fixed when a
    class is created; the standard library's classes do not gain private members
    after import (and scripts cannot add any to them).
    """
    names: set[str] = set()
    computed = False
    for klass in real_mro(cls):
        if is_script_class(klass):
            names |= _foreign_privates.get(klass, frozenset())
        else:
            names.update(key for key in klass.__dict__ if _is_private(key))
            computed = computed or ("__getattr__" in klass.__dict__ and klass is not object)
    index = None if computed else frozenset(names)
    _unsafe_index[cls] = (real_mro(cls), index)
    return index


def _is_data_descriptor(value: Any) -> bool:
    kind = _real_type(value)
    return hasattr(kind, "__set__") or hasattr(kind, "__delete__")


def owns_private(obj: Any, name: str) -> bool:
    """Whether ``obj.name`` (a private name) is a member the script defined."""
    cls = _real_type(obj)
    # Instances first: the common case. (A class's class is a metaclass, a super
    # object's is ``super``, a function's is ``function``: never script classes.)
    if _pure_script.get(cls) is real_mro(cls):
        return True
    if is_script_class(cls):
        indexed = _unsafe_index.get(cls)
        current = indexed is not None and indexed[0] is real_mro(cls)
        unsafe = indexed[1] if indexed is not None and current else _unsafe_names(cls)
        if unsafe is not None and name not in unsafe:
            return True  # wherever it is defined, a script class defined it
        return _instance_owns(obj, cls, name)
    if cls is types.FunctionType:
        return bool(obj.__code__.co_filename.startswith("<script"))
    if cls is super:
        owner = obj.__self_class__
        if owner is None or not is_script_class(owner):
            return False
        mro = real_mro(owner)
        start = obj.__thisclass__
        after = mro[mro.index(start) + 1 :] if start in mro else ()
        definer = _definer(after, name)
        return definer is None or _defined_by_script(definer, name)
    if isinstance(obj, _real_type):
        if is_pure_script_class(obj):
            return True
        if not is_script_class(obj):
            return False
        definer = _definer(real_mro(obj), name)
        if definer is None:  # the metaclass's members are never the script's
            return _definer(real_mro(cls), name) is None
        return _defined_by_script(definer, name)
    return False


def _instance_owns(obj: Any, cls: type, name: str) -> bool:
    definer = _definer(real_mro(cls), name)
    if definer is not None and _is_data_descriptor(definer.__dict__[name]):
        return _defined_by_script(definer, name)
    try:
        own = object.__getattribute__(obj, "__dict__")
    except AttributeError:
        own = {}
    if _real_type(own) is dict and name in own:
        return True
    if definer is not None:
        return _defined_by_script(definer, name)
    # Missing: the lookup fails, unless a library base computes members (the script's
    # own ``__getattr__`` answers for its own objects).
    computes = _definer(real_mro(cls), "__getattr__")
    return computes in (None, object) or (computes is not None and is_script_class(computes))


# -- type() with one argument --------------------------------------------------------


class _TypeMeta(_real_type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, _real_type)

    def __subclasscheck__(cls, sub: Any) -> bool:
        return issubclass(sub, _real_type)

    def __call__(cls, *args: Any) -> Any:
        if len(args) != 1:
            raise TypeError(
                "type() takes exactly one argument in the sandbox; use a class statement"
            )
        return safe_type(args[0])

    def __repr__(cls) -> str:
        return "<class 'type'>"


class SafeType(metaclass=_TypeMeta):
    """The script's ``type``: ``type(x)`` works, ``isinstance(x, type)`` works, no 3-arg form."""

    def __class_getitem__(cls, item: Any) -> types.GenericAlias:
        # ``type[int]`` in an annotation, as Python's own: an alias calling this class.
        return types.GenericAlias(cls, item)


# Scripts see it as Python's own (``type.__name__``, error messages).
SafeType.__name__ = SafeType.__qualname__ = "type"
SafeType.__module__ = "builtins"
# Wherever native code would hand a script the real one (``typing.get_origin(Type)``).
replace_on_entry(_real_type, SafeType)


def _visible(cls: type) -> bool:
    if is_sandbox_class(cls):
        return False
    return cls in _exposed or is_script_class(cls) or cls.__module__ == "builtins"


def safe_type(obj: Any) -> Any:
    """``type(obj)``, except that metaclasses are reported as the sandbox's ``type`` and
    classes the script could not name otherwise by a stand-in (see :func:`_opaque`)."""
    cls = _real_type(obj)
    if issubclass(cls, _real_type):
        return SafeType
    if _visible(cls):
        # The membrane's stand-in where it has one (``numpy.ndarray``), also where the
        # result is an operand (``type(a) is np.ndarray``), which it does not see.
        return enter(cls)
    return _opaque(cls)


#: Stand-in → the real class it answers for. Kept out of the stand-in's own ``__dict__``,
#: where anything that copies or walks a class's members (``functools.wraps``) finds it.
_targets: weakref.WeakKeyDictionary[type, type] = weakref.WeakKeyDictionary()


def target_of(stand_in: type) -> type:
    """The real class behind a stand-in made here or for a class pattern."""
    return _targets[stand_in]


def remember_target(stand_in: type, cls: type) -> None:
    """Record that ``stand_in`` answers ``isinstance``/``issubclass`` for ``cls``."""
    _targets[stand_in] = cls


class _OpaqueMeta(_real_type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, target_of(cls))

    def __subclasscheck__(cls, sub: Any) -> bool:
        return issubclass(sub, target_of(cls))

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(f"{cls.__name__} objects cannot be created directly in the sandbox")

    def __repr__(cls) -> str:
        return f"<class {cls.__qualname__!r}>"


_opaque_classes: weakref.WeakKeyDictionary[type, type] = weakref.WeakKeyDictionary()


def stand_in(cls: type) -> type:
    """A class with ``cls``'s name that answers ``isinstance``/``issubclass`` for it and
    builds nothing (``types.FunctionType`` as a module member)."""
    return _opaque(cls)


def show_as(classes: Iterable[type], base: type, name: str) -> None:
    """``type(x)`` of an instance of any of ``classes`` is one stand-in for ``base``
    named ``name`` (every module proxy shows as ``module``)."""
    shown = _opaque_classes.get(base)
    if shown is None or shown.__name__ != name:
        namespace = {"__slots__": (), "__module__": "builtins"}
        shown = _OpaqueMeta(name, (), namespace)
        remember_target(shown, base)
        _opaque_classes[base] = shown
    for cls in classes:
        _opaque_classes[cls] = shown


def _defined_in_a_module(cls: type) -> bool:
    # A library's own class, defined where its module names it (``typing._GenericAlias``),
    # as opposed to one a library made at run time for the script (``sympy.Function``'s).
    module = sys.modules.get(cls.__dict__.get("__module__") or "")
    return module is not None and getattr(module, cls.__name__, None) is cls


def shown_class(cls: type) -> type:
    """``cls`` as a script may hold it wherever it reaches one (the membrane's view):
    itself where the script could name it anyway or a library made it for the script at
    run time, else (a library's internal class) what ``type()`` shows."""
    if _visible(cls) or not _defined_in_a_module(cls):
        return cls
    return _opaque(cls)


use_class_view(shown_class)


def _opaque(cls: type) -> type:
    """What ``type()`` shows for a class the script may not hold: the nearest exception
    class it may hold, or a class with its name that only answers ``isinstance``."""
    if issubclass(cls, BaseException):
        return next(c for c in real_mro(cls) if _visible(c) and not issubclass(c, ControlFlow))
    stand_in = _opaque_classes.get(cls)
    if stand_in is None:
        namespace = {"__slots__": (), "__module__": cls.__module__}
        stand_in = _OpaqueMeta(cls.__name__, (), namespace)
        stand_in.__qualname__ = cls.__qualname__
        remember_target(stand_in, cls)
        _opaque_classes[cls] = stand_in
    return stand_in
