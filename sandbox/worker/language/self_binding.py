"""Library code never runs with a ``self`` the script chose.

Methods that library code writes for a script's class (a dataclass's ``__init__`` and
``__eq__``, a named tuple's ``__repr__``, an enum's helpers) run in the library's
privilege: called unbound with another object as ``self`` (``D.__init__(json.
JSONEncoder, "!!")``) they would store on it. So every such method is replaced, as the
class is made, by one that first checks that ``self`` is an instance of that class (a
real instance: a registered virtual subclass does not count); and ``C.__init__`` of a
script class that inherits its ``__init__`` from a library class is bound the same way
(``guards._checked_init``). The routes:

- class statements (``build_class``): NamedTuple, TypedDict and Enum bodies;
- ``dataclasses.dataclass`` (``stdlib_safe``);
- ``collections.namedtuple``, ``typing.NamedTuple`` and the functional ``Enum``
  (``stdlib_safe``);
- inherited ``__init__`` read from a script class (``guards``).

The script's own functions run in its own privilege and are left as they are.

Worker side: standard library only.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Callable, Collection
from typing import Any

from sandbox.worker.language.control import ForbiddenOperation
from sandbox.worker.language.membrane import trust_function, use_binder
from sandbox.worker.language.names import DEFINABLE_DUNDERS
from sandbox.worker.language.real_mro import real_mro

_real_type = type
_checked: set[int] = set()

#: The methods library code writes for a class that take an instance first: the data
#: model's instance methods and a named tuple's. (``__new__``, ``__init_subclass__``,
#: ``__class_getitem__``, ``__subclasshook__`` take a class; a library's private
#: helpers are never the script's to call.)
INSTANCE_METHODS = (
    DEFINABLE_DUNDERS - {"__new__", "__init_subclass__", "__class_getitem__", "__subclasshook__"}
) | {"_asdict", "_replace", "__replace__"}


def own_code(function: object) -> bool:
    """A function the script wrote (compiled from one of its sources)."""
    if (
        not isinstance(function, types.FunctionType)
        or _real_type(function) is not types.FunctionType
    ):
        return False
    return function.__code__.co_filename.startswith("<script")


#: (function, class) -> the self-checked method, made once (``C.__init__`` is read anew
#: by every ``C.__init__(self)`` of a subclass).
_made: dict[tuple[int, int], tuple[Any, type, Callable[..., Any]]] = {}


def self_checked(function: Callable[..., Any], cls: type, name: str) -> Callable[..., Any]:
    """``function`` run only with an instance of ``cls`` as its first argument."""
    if own_code(function) or id(function) in _checked:
        return function
    made = _made.get((id(function), id(cls)))
    if made is not None and made[0] is function and made[1] is cls:
        return made[2]
    shown = f"{cls.__qualname__}.{name}"

    def method(self: Any, /, *args: Any, **kwargs: Any) -> Any:
        if cls not in real_mro(_real_type(self)):
            raise ForbiddenOperation(
                f"{shown}() applies to {cls.__qualname__!r} objects only in the sandbox, "
                f"not to {_real_type(self).__qualname__!r}"
            )
        return function(self, *args, **kwargs)

    method.__name__ = name
    method.__qualname__ = shown
    method.__doc__ = getattr(function, "__doc__", None)
    _checked.add(id(method))
    trust_function(method)
    _made[(id(function), id(cls))] = (function, cls, method)
    return method


_bound_methods: dict[int, tuple[Callable[..., Any], Callable[..., Any]]] = {}


def bound_to_owner(function: types.FunctionType) -> Callable[..., Any] | None:
    """An unbound method of a library class, checking that ``self`` is one of that
    class's objects (None where the class cannot be found from the function's own
    module and qualified name)."""
    known = _bound_methods.get(id(function))
    if known is not None and known[0] is function:
        return known[1]
    owner: Any = (
        sys.modules.get(function.__module__) if _real_type(function.__module__) is str else None
    )
    *path, name = function.__qualname__.split(".")
    for part in path:
        owner = getattr(owner, part, None) if "<" not in part else None
    if not isinstance(owner, type):
        return None
    member = owner.__dict__.get(name)
    if isinstance(member, staticmethod) and member.__func__ is function:
        return function  # takes no self
    if member is not function:
        return None
    checked = self_checked(function, owner, name)
    _bound_methods[id(function)] = (function, checked)
    return checked


def bind_generated(cls: type, written: Collection[str] = ()) -> type:
    """Replace the methods library code wrote into ``cls`` by self-checked ones.

    ``written``: the names the script's class body stored (a library function it put
    there itself, ``dumps = json.dumps``, stays as it is: it is no method of ``cls``).
    """
    for name, value in list(cls.__dict__.items()):
        generated = (
            _real_type(value) is types.FunctionType
            and name in INSTANCE_METHODS
            and name not in written
        )
        if generated and not own_code(value) and id(value) not in _checked:
            _real_type.__setattr__(cls, name, self_checked(value, cls, name))
    return cls


def generated_by(apply: Callable[[type], type], cls: type) -> type:
    """``apply(cls)`` (a decorator such as ``dataclass``), its new methods bound."""
    before = dict(cls.__dict__)
    made = apply(cls)
    if isinstance(made, type):
        kept = {name for name, value in made.__dict__.items() if before.get(name) is value}
        bind_generated(made, kept)
    return made


use_binder(bound_to_owner)
