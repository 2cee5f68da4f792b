"""Safe stand-ins for standard-library members that reach host state.

``functools.update_wrapper``/``wraps`` (default attribute lists, script-owned wrappers
only), ``functools.singledispatch`` (never evaluates string annotations),
``copy.deepcopy`` (no memo), ``dataclasses.dataclass`` (the script's classes only,
identifier field names), ``operator.attrgetter``/``methodcaller`` (through the
attribute guard), the ``enum`` bases (identifier member names only), and the
decorators that store on their argument (``abc.abstractmethod`` and friends,
``typing.final``/``no_type_check``/``no_type_check_decorator``/``dataclass_transform``/
``runtime_checkable``, ``functools.total_ordering``: the script's own functions and
classes only).

Worker side: standard library only.
"""

from __future__ import annotations

import abc
import collections
import copy
import dataclasses
import enum
import functools
import inspect
import keyword
import sys
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from sandbox.worker.language import dunders
from sandbox.worker.language.classes import allow_subclassing, subclassable
from sandbox.worker.language.control import ForbiddenOperation
from sandbox.worker.language.copy_hooks import unwrap_memo
from sandbox.worker.language.guards import SCRIPT_MODULE, guarded_getattr, guarded_write
from sandbox.worker.language.membrane import enter, replace_on_entry
from sandbox.worker.language.real_mro import real_mro
from sandbox.worker.language.self_binding import bind_generated, generated_by

_DEFAULT_ASSIGNED = functools.WRAPPER_ASSIGNMENTS
_DEFAULT_UPDATED = functools.WRAPPER_UPDATES


def _writable(obj: Any, what: str) -> None:
    try:
        guarded_write(obj)
    except TypeError:
        raise ForbiddenOperation(
            f"{what} applies only to functions, classes and objects defined in the script"
        ) from None


def _safe_update_wrapper(
    wrapper: Any, wrapped: Any, assigned: Any = _DEFAULT_ASSIGNED, updated: Any = _DEFAULT_UPDATED
) -> Any:
    """``functools.update_wrapper`` for the script's own ``wrapper``.

    The stock one copies ``wrapped.__dict__`` wholesale; with a library class (or a
    stand-in) as ``wrapped``, its private members would land on the script's function,
    where the private-member rule counts them as the script's own. Only the script's own
    objects pass private members on; from anything else only public names are copied.
    """
    if tuple(assigned) != _DEFAULT_ASSIGNED or tuple(updated) != _DEFAULT_UPDATED:
        raise TypeError("update_wrapper() accepts only the default 'assigned' and 'updated'")
    _writable(wrapper, "update_wrapper()")
    for attr in _DEFAULT_ASSIGNED:
        try:
            value = getattr(wrapped, attr)
        except AttributeError:
            continue
        if attr == "__annotations__" and isinstance(value, dict):
            value = dict(value)  # never the library's own dict, which the script could edit
        setattr(wrapper, attr, value)
    try:
        guarded_write(wrapped)
        own = True
    except TypeError:
        own = False
    members = getattr(wrapped, "__dict__", None)
    if members is not None and hasattr(members, "items"):
        for key, value in list(members.items()):
            # Special names never travel as data (``dunders.py``).
            if type(key) is str and not dunders.is_special(key) and (own or key[:1] != "_"):
                setattr(wrapper, key, value)
    wrapper.__wrapped__ = wrapped
    return wrapper


def _safe_wraps(
    wrapped: Any, assigned: Any = _DEFAULT_ASSIGNED, updated: Any = _DEFAULT_UPDATED
) -> Callable[[Any], Any]:
    if tuple(assigned) != _DEFAULT_ASSIGNED or tuple(updated) != _DEFAULT_UPDATED:
        raise TypeError("wraps() accepts only the default 'assigned' and 'updated'")
    return functools.partial(_safe_update_wrapper, wrapped=wrapped)


def _is_dispatch_type(cls: Any) -> bool:
    if isinstance(cls, type):
        return True
    args = getattr(cls, "__args__", None)
    return isinstance(cls, types.UnionType) or (
        type(cls).__name__ == "_UnionGenericAlias" and isinstance(args, tuple)
    )


def _safe_singledispatch(func: Any) -> Any:
    dispatcher = functools.singledispatch(func)
    register = dispatcher.register

    def safe_register(cls: Any, func: Any = None) -> Any:
        # ``@f.register`` on an annotated function: take the first annotation as it is.
        # The real register evaluates string annotations with typing.get_type_hints.
        if func is None and not _is_dispatch_type(cls):
            annotations = getattr(cls, "__annotations__", None)
            if not isinstance(annotations, dict) or not annotations:
                raise TypeError(
                    f"Invalid first argument to `register()`: {cls!r}. Use either "
                    "`@register(some_class)` or plain `@register` on an annotated function."
                )
            argname, hint = next(iter(annotations.items()))
            if not _is_dispatch_type(hint):
                raise TypeError(
                    f"Invalid annotation for {argname!r}: {hint!r} is not a class "
                    "(string annotations are not evaluated in the sandbox)"
                )
            cls, func = hint, cls
        return register(cls, func)

    dispatcher.register = safe_register  # type: ignore[method-assign]
    return dispatcher


def _safe_deepcopy(x: Any, memo: Any = None) -> Any:
    if memo is None:
        return copy.deepcopy(x)
    real = unwrap_memo(memo)
    if real is None:
        # The memo keeps every object copied, including ones the script cannot reach:
        # only the one a ``__deepcopy__`` method received may be passed on.
        raise TypeError("deepcopy() accepts only the memo its __deepcopy__ received")
    return copy.deepcopy(x, real)


def _dataclass_names(cls: type) -> list[Any]:
    names: list[Any] = []
    for klass in real_mro(cls):
        names.extend(inspect.get_annotations(klass))
        fields = getattr(klass, dataclasses._FIELDS, None)  # type: ignore[attr-defined]
        if isinstance(fields, dict):
            names.extend(fields)
            names.extend(getattr(f, "name", None) for f in fields.values())
    return names


def _safe_dataclass(cls: Any = None, /, **options: Any) -> Any:
    def wrap(cls: Any) -> Any:
        if not isinstance(cls, type):
            raise TypeError("dataclass() takes a class")
        _writable(cls, "dataclass()")
        for name in _dataclass_names(cls):
            # Field names are pasted into the source of the generated methods and
            # become attributes: ordinary names only (``dunders.py``).
            dunders.ordinary_name(name, "dataclass()")
            if keyword.iskeyword(name):
                raise TypeError(f"dataclass field names must be identifiers, not {name!r}")
        return generated_by(lambda c: dataclasses.dataclass(c, **options), cls)

    return wrap if cls is None else wrap(cls)


def _safe_attrgetter(*names: str) -> Callable[[Any], Any]:
    for name in names:
        if type(name) is not str:
            raise TypeError("attribute name must be a string")
    paths = [str.split(name, ".") for name in names]

    # Each value read is checked like one the script read itself: an attrgetter in a
    # native pipeline (``map``) hands it to native code, never to the script first.
    def resolve(obj: Any, path: list[str]) -> Any:
        for part in path:
            obj = enter(guarded_getattr(obj, part))
        return obj

    if len(paths) == 1:
        return lambda obj: resolve(obj, paths[0])
    return lambda obj: tuple(resolve(obj, path) for path in paths)


def _safe_methodcaller(name: str, /, *args: Any, **kwargs: Any) -> Callable[[Any], Any]:
    if type(name) is not str:
        raise TypeError("method name must be a string")
    return lambda obj: enter(enter(guarded_getattr(obj, name))(*args, **kwargs))


def _safe_itemgetter(*items: Any) -> Callable[[Any], Any]:
    # Items read are checked like ones the script took out itself.
    if len(items) == 1:
        return lambda obj: enter(obj[items[0]])
    return lambda obj: tuple(enter(obj[item]) for item in items)


def _enum_members(names: Any) -> list[Any]:
    """The functional API's ``names``, read once, with plain member names only."""
    if isinstance(names, str):
        names = names.replace(",", " ").split()
    if isinstance(names, (tuple, list)) and names and isinstance(names[0], str):
        items: list[Any] = [str(name) for name in names]
        checked = items
    else:
        if isinstance(names, Mapping):
            items = [(key, names[key]) for key in list(names)]
        else:
            items = []
            for item in names:
                if isinstance(item, str):
                    raise TypeError("enum member names need values: use (name, value) pairs")
                key, value = item
                items.append((key, value))
        checked = [key for key, _ in items]
    for name in checked:
        if not (type(name) is str and name.isidentifier() and not name.startswith("_")):
            raise ValueError(
                f"enum member names must be identifiers not starting with '_', not {name!r}"
            )
    return items


class _SandboxEnumType(enum.EnumType):
    """Metaclass of the sandbox's enum bases: ``Enum('Color', names)`` takes member names
    only (the real one accepts any class attribute, dunders included)."""

    def __call__(cls, value: Any, names: Any = None, **options: Any) -> Any:
        if names is None:
            return super().__call__(value, **options)
        options.setdefault("module", SCRIPT_MODULE)
        mixin = options.get("type")
        if mixin is not None and not subclassable(mixin):
            # The new class is the script's own: its bases follow the class statement's rule.
            raise ForbiddenOperation(f"an enum cannot mix in {mixin!r} in the sandbox")
        made = super().__call__(value, _enum_members(names), **options)
        return bind_generated(made) if isinstance(made, type) else made

    def __instancecheck__(cls, obj: Any) -> bool:
        real = _REAL_ENUMS.get(cls)
        return isinstance(obj, real) if real is not None else super().__instancecheck__(obj)

    def __subclasscheck__(cls, sub: Any) -> bool:
        real = _REAL_ENUMS.get(cls)
        return issubclass(sub, real) if real is not None else super().__subclasscheck__(sub)


def _sandbox_enum(real: type) -> type:
    namespace = _SandboxEnumType.__prepare__(real.__name__, (real,))
    namespace["__module__"] = "enum"
    namespace["__qualname__"] = real.__qualname__
    namespace["__doc__"] = real.__doc__
    return _SandboxEnumType(real.__name__, (real,), namespace)


_ENUM_BASES = ("Enum", "IntEnum", "StrEnum", "Flag", "IntFlag")
_SANDBOX_ENUMS = {name: _sandbox_enum(getattr(enum, name)) for name in _ENUM_BASES}
_REAL_ENUMS = {cls: getattr(enum, name) for name, cls in _SANDBOX_ENUMS.items()}
allow_subclassing(*_SANDBOX_ENUMS.values(), dunders.SimpleNamespace)


# -- decorators that store on their argument -------------------------------------------
# ``abc.abstractmethod(f)`` sets ``f.__isabstractmethod__``, ``typing.final`` sets
# ``__final__``...: on a library object that would change it for the rest of the worker's
# life. These take only what the script may modify (its functions and classes).


def _marking(real: Callable[..., Any], what: str) -> Callable[..., Any]:
    def mark(obj: Any) -> Any:
        _writable(obj, what)
        return real(obj)

    mark.__name__ = mark.__qualname__ = getattr(real, "__name__", what)
    mark.__doc__ = real.__doc__
    return mark


def _safe_no_type_check_decorator(decorator: Any) -> Any:
    no_type_check = _MARKS["no_type_check"]

    @functools.wraps(decorator)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return no_type_check(decorator(*args, **kwargs))

    return wrapped


def _safe_dataclass_transform(**kwargs: Any) -> Callable[[Any], Any]:
    return _marking(typing.dataclass_transform(**kwargs), "dataclass_transform()")


_MARKS: dict[str, Callable[..., Any]] = {
    name: _marking(getattr(module, name), f"{name}()")
    for module, names in (
        (abc, ("abstractmethod", "abstractclassmethod", "abstractstaticmethod")),
        (typing, ("final", "no_type_check", "runtime_checkable", "override")),
        (functools, ("total_ordering",)),
    )
    for name in names
    if hasattr(module, name)
}


def _safe_namedtuple(typename: Any, field_names: Any, **options: Any) -> Any:
    options.setdefault("module", SCRIPT_MODULE)
    return bind_generated(collections.namedtuple(typename, field_names, **options))


def _typed_namedtuple(real: Any) -> Any:
    def NamedTuple(typename: Any, fields: Any = None, /, **kwargs: Any) -> Any:
        made = real(typename, fields, **kwargs) if fields is not None else real(typename, **kwargs)
        if isinstance(made, type) and made.__dict__.get("__module__") == __name__:
            type.__setattr__(made, "__module__", SCRIPT_MODULE)
        return bind_generated(made)

    # ``class P(NamedTuple)`` resolves through this (build_class binds its methods).
    NamedTuple.__mro_entries__ = dunders.mro_entries_of(real, NamedTuple)  # type: ignore[attr-defined]
    NamedTuple.__doc__ = real.__doc__
    return NamedTuple


def _entered_deeply(value: Any) -> Any:
    if type(value) is tuple or type(value) is list:
        return type(value)(map(_entered_deeply, value))
    return enter(value)


def _entering_results(real: Any) -> Any:
    """``real`` (a function that reads special members for its caller: ``get_origin``
    reads ``__origin__``) with its results passed through the membrane, nested tuples
    and lists item by item. The script holds this function, so native code that calls
    it for the script (``map``, ``functools.partial``) gets what the script would."""

    def checked(*args: Any, **kwargs: Any) -> Any:
        return _entered_deeply(real(*args, **kwargs))

    checked.__name__ = checked.__qualname__ = real.__name__
    checked.__doc__, checked.__module__ = real.__doc__, real.__module__
    return checked


#: Members replaced by safe stand-ins, per module (with ``dunders.REPLACED``).
REPLACED: dict[str, dict[str, Any]] = {
    "abc": {
        name: _MARKS[name]
        for name in ("abstractmethod", "abstractclassmethod", "abstractstaticmethod")
    },
    "collections": {"namedtuple": _safe_namedtuple},
    "copy": {"deepcopy": _safe_deepcopy},
    "dataclasses": {"dataclass": _safe_dataclass},
    "enum": _SANDBOX_ENUMS,
    "functools": {
        "update_wrapper": _safe_update_wrapper,
        "wraps": _safe_wraps,
        "singledispatch": _safe_singledispatch,
        "total_ordering": _MARKS["total_ordering"],
    },
    "typing": {
        **{
            name: _MARKS[name]
            for name in ("final", "no_type_check", "runtime_checkable", "override")
            if name in _MARKS
        },
        "no_type_check_decorator": _safe_no_type_check_decorator,
        "dataclass_transform": _safe_dataclass_transform,
        "NamedTuple": _typed_namedtuple(typing.NamedTuple),
        "get_origin": _entering_results(typing.get_origin),
        "get_args": _entering_results(typing.get_args),
        **dunders.REPLACED["typing"],
    },
    "types": {
        **dunders.REPLACED["types"],
        "resolve_bases": _entering_results(types.resolve_bases),
    },
    "operator": {
        "attrgetter": _safe_attrgetter,
        "methodcaller": _safe_methodcaller,
        "itemgetter": _safe_itemgetter,
    },
}

# A member replaced in its module is reachable by other routes: ``type()`` of an object
# library code made (``type(time.get_clock_info("time"))`` is the real SimpleNamespace,
# which takes any keyword as an attribute), another module's re-export
# (``matplotlib.patches.SimpleNamespace``, ``namedtuple``): the membrane hands the
# stand-in there too.
for _module, _members in REPLACED.items():
    for _name, _stand_in in _members.items():
        _real = getattr(sys.modules[_module], _name, None)
        replaceable = isinstance(_real, (type, types.FunctionType))
        if replaceable and _real is not _stand_in:
            replace_on_entry(_real, _stand_in)
