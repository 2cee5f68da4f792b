"""Run-time guards and the builtins a script sees.

The compiler (``compiler.py``) leaves most operations native and routes the few that
can reach the host through these functions (bound in the script's globals under the
generated names of ``names.py``):

- ``guarded_getattr`` (``names.GETATTR`` and the ``getattr`` builtin): refuses
  underscore names, frame/code/traceback attributes, ``mro`` of classes, ``obj`` of
  exceptions and ``register`` of library ABCs; a private name only where the script
  defined the member (``classes.owns_private``); hands out a ``str.format`` that cannot
  walk into ``__class__`` (however it was reached, ``super()`` included) and an
  ``__init__`` that only initialises the script's own objects;
- ``safe_type`` (``type(x)`` and ``x.__class__``, in ``classes.py``): the real class
  only where the script could name it;
- ``guarded_write`` (``names.WRITE``): attribute stores only on the script's own
  objects, private ones only to members the script defined;
- ``reraise_control`` (``names.RERAISE``): re-raises the sandbox's control exceptions
  at the start of every ``except`` block;
- ``build_class`` (``__build_class__``, in ``classes.py``): allowed bases and keywords
  only; records the classes a script defines;
- ``check_match_class`` (``names.MATCH_CLASS``): what a class pattern with positional
  sub-patterns matches against, so that ``__match_args__`` cannot name an attribute the
  guards refuse.

Worker side: standard library only.
"""

from __future__ import annotations

import abc
import builtins
import decimal
import functools
import sys
import types
import weakref
from collections.abc import Callable, Mapping
from typing import Any

from sandbox.worker.language.callables import builtin
from sandbox.worker.language.classes import (
    SCRIPT_MODULE,
    SCRIPT_TYPES,
    SafeType,
    build_class,
    expose_classes,
    is_pure_script_class,
    is_sandbox_class,
    is_script_class,
    owns_private,
    remember_target,
    safe_type,
    target_of,
)
from sandbox.worker.language.control import ControlFlow, ForbiddenAttribute, ToolError
from sandbox.worker.language.membrane import (
    membrane_names,
    refuse_on_entry,
    replace_family_on_entry,
    replace_on_entry,
)
from sandbox.worker.language.memory_errors import ScriptMemoryError, handled
from sandbox.worker.language.names import (
    FORBIDDEN_ATTRS,
    GETATTR,
    HANDLED,
    LAST_EXPR,
    MATCH_CLASS,
    READABLE_DUNDERS,
    RERAISE,
    RUNTIME_CHECKED_ATTRS,
    WRITE,
    is_private_name,
    natively_readable,
)
from sandbox.worker.language.names import SCRIPT_TYPES as SCRIPT_TYPES_NAME
from sandbox.worker.language.safe_format import safe_format_method, use_attribute_guard
from sandbox.worker.language.self_binding import self_checked

__all__ = ["SCRIPT_MODULE", "SafeType", "build_class", "safe_type"]

_real_type = builtins.type
#: Library classes whose instances are plain attribute bags meant to be written.
_writable_foreign_types: tuple[type, ...] = (decimal.Context, types.SimpleNamespace)
#: Instances of those that library code shares: the templates every new decimal
#: context copies (a script sets ``decimal.getcontext().prec`` instead). A script is
#: handed a copy of each (its methods and its ``traps``/``flags`` change the copy
#: only), read-only like the original.
_SHARED: dict[int, str] = {}
for _name in ("DefaultContext", "BasicContext", "ExtendedContext"):
    _shared = getattr(decimal, _name)
    _SHARED[id(_shared)] = _SHARED[id(_copy := _shared.copy())] = f"decimal.{_name}"
    replace_on_entry(_shared, _copy)


def allow_attribute_writes(*classes: type) -> None:
    """Let scripts store public attributes on instances of ``classes`` (curated library
    types whose setters are their API: ``df.columns = [...]``); zygote only."""
    global _writable_foreign_types
    _writable_foreign_types = (*_writable_foreign_types, *classes)


def reraise_control() -> None:
    """Re-raise the active exception when it is one of the sandbox's control exceptions."""
    exc = sys.exc_info()[1]
    if isinstance(exc, ControlFlow):
        raise exc


def guarded_write(obj: Any, name: str | None = None) -> Any:
    """``_write_``: allow attribute stores on the script's own objects and classes only.

    The compiler passes ``name`` when it is private: then the member must be the
    script's own too (not a slot or property of a library base class).
    """
    cls = _real_type(obj)
    if name is not None and not is_pure_script_class(cls):
        # (The compiler passes only private names; an instance of a class built from
        # script classes alone owns every private member it has.)
        _check_attr_name(name, obj)
    if cls in SCRIPT_TYPES:  # the common case: an instance of a script's class
        return obj
    if isinstance(obj, _real_type) and is_script_class(obj):
        return obj
    if cls is types.FunctionType and obj.__code__.co_filename.startswith("<script"):
        return obj
    if is_script_class(cls) or isinstance(obj, _writable_foreign_types):
        if id(obj) in _SHARED:
            raise TypeError(
                f"{_SHARED[id(obj)]} is read-only in the sandbox: library code shares it "
                "(set decimal.getcontext() or a context of your own instead)"
            )
        return obj
    raise TypeError(
        f"cannot set or delete attributes of {cls.__name__!r} objects in the sandbox; "
        "only objects of classes defined in the script can be modified"
    )


def _check_attr_name(name: object, obj: object) -> str:
    # The exact type: a str subclass could answer ``startswith`` as it likes.
    if _real_type(name) is not str:
        raise TypeError(f"attribute name must be a string, not {_real_type(name).__name__!r}")
    assert isinstance(name, str)
    if is_private_name(name):
        if not owns_private(obj, name):
            target = obj.__self__ if isinstance(obj, super) else obj  # type: ignore[attr-defined]
            raise ForbiddenAttribute(
                f"access to attribute {name!r} of a {_real_type(target).__name__!r} object "
                "is not allowed in the sandbox: private members are the script's own only "
                "where the script defined them"
            )
        return name
    if (name.startswith("_") and name not in READABLE_DUNDERS) or name in FORBIDDEN_ATTRS:
        raise ForbiddenAttribute(f"access to attribute {name!r} is not allowed in the sandbox")
    return name


_NO_DEFAULT = object()


def guarded_getattr(obj: Any, name: Any, default: Any = _NO_DEFAULT) -> Any:
    """``_getattr_`` and the script's ``getattr``."""
    # ``super(C, x).name`` finds the same attributes as ``x.name``: check ``x``.
    target = obj.__self__ if isinstance(obj, super) else obj  # type: ignore[attr-defined]
    name = _check_attr_name(name, obj)
    if name == "obj" and isinstance(target, BaseException):
        raise ForbiddenAttribute(
            "the 'obj' attribute of exceptions is not available in the sandbox"
        )
    if name == "mro" and isinstance(target, _real_type):
        raise ForbiddenAttribute("'mro' is not available in the sandbox")
    if name == "register" and isinstance(target, abc.ABCMeta) and not is_script_class(target):
        # ``collections.abc.Mapping.register(X)`` would change a library ABC for the
        # rest of the worker's life; the script's own ABCs register as they like.
        raise ForbiddenAttribute(
            f"'register' of {target.__qualname__!r} is not available in the sandbox: "
            "only the script's own ABCs take registrations"
        )
    if name == "__class__":
        return safe_type(obj)
    if name == "__init__":
        return _checked_init(getattr(obj, name), target)
    if name == "__new__":
        return _checked_new(getattr(obj, name))
    if name == "__init_subclass__":
        # Bound to a class; ``typing.Generic``'s stores on the class it is bound to.
        bound = obj.__self_class__ if isinstance(obj, super) else target  # type: ignore[attr-defined]
        owner = bound if isinstance(bound, _real_type) else _real_type(bound)
        if not is_script_class(owner):
            raise ForbiddenAttribute(
                "'__init_subclass__' is available on the script's own classes only"
            )
    value = getattr(obj, name) if default is _NO_DEFAULT else getattr(obj, name, default)
    for cls, check in _METHOD_CHECKS.get(name, ()):
        if isinstance(target, cls):
            return check(value)
    if name in ("format", "format_map"):
        # Whatever the route (``s.format``, ``super(S, s).format``, ``str.format``),
        # the native formatter never reaches the script.
        return safe_format_method(value)
    return value


#: Methods of library classes checked where a script reads them (each name is in
#: ``names.RUNTIME_CHECKED_ATTRS``): name -> [(class, wrapper of the bound method)].
_METHOD_CHECKS: dict[str, list[tuple[type, Callable[[Any], Any]]]] = {}


def check_method(cls: type, name: str, check: Callable[[Any], Any]) -> None:
    """Hand scripts ``check(obj.name)`` for ``name`` read on an instance of ``cls``."""
    if name not in RUNTIME_CHECKED_ATTRS:
        raise ValueError(f"{name!r} is read natively: add it to RUNTIME_CHECKED_ATTRS")
    _METHOD_CHECKS.setdefault(name, []).append((cls, check))


def safe_hasattr(obj: Any, name: Any) -> bool:
    """``hasattr`` under the same rules as ``getattr``."""
    try:
        guarded_getattr(obj, name)
    except AttributeError:
        return False
    return True


def safe_setattr(obj: Any, name: Any, value: Any) -> None:
    """``setattr`` under the same rules as ``obj.name = value``."""
    name = _check_attr_name(name, obj)
    if name.startswith("_") and not is_private_name(name):
        raise ForbiddenAttribute(f"setting attribute {name!r} is not allowed in the sandbox")
    setattr(guarded_write(obj), name, value)


def safe_delattr(obj: Any, name: Any) -> None:
    """``delattr`` under the same rules as ``del obj.name``."""
    name = _check_attr_name(name, obj)
    if name.startswith("_") and not is_private_name(name):
        raise ForbiddenAttribute(f"deleting attribute {name!r} is not allowed in the sandbox")
    delattr(guarded_write(obj), name)


def _checked_init(init: Any, target: Any) -> Any:
    """``x.__init__`` for the script: never one that would re-initialise an object the
    script did not create (``super().__init__()`` and ``Base.__init__(self)`` work)."""
    if isinstance(target, _real_type):
        if is_sandbox_class(target):
            raise ForbiddenAttribute("'__init__' of the sandbox's classes is not available")
        if is_script_class(target):
            # Inherited from a library class (or written by one): the script's own
            # objects only, never ``G.__init__(json.JSONEncoder, ...)``.
            return self_checked(init, target, "__init__")

        def init_own_object(self: Any, *args: Any, **kwargs: Any) -> Any:
            _check_own(self)
            return init(self, *args, **kwargs)

        return init_own_object
    _check_own(target)
    return init


def _checked_new(new: Any) -> Any:
    """``C.__new__`` for the script: it creates objects of the script's own classes
    only (``super().__new__(cls)`` in a script's ``__new__``), never an uninitialised
    object of a library class or of one of the sandbox's."""

    def __new__(cls: Any, *args: Any, **kwargs: Any) -> Any:
        if not (isinstance(cls, _real_type) and is_script_class(cls)):
            shown = cls.__qualname__ if isinstance(cls, _real_type) else repr(cls)
            raise ForbiddenAttribute(
                f"__new__() creates objects of the script's own classes only, not {shown!r}"
            )
        return new(cls, *args, **kwargs)

    return __new__


def _check_own(obj: Any) -> None:
    try:
        guarded_write(obj)
    except TypeError:
        raise ForbiddenAttribute(
            f"'__init__' cannot re-initialise {_real_type(obj).__name__!r} objects in the "
            "sandbox; only objects of classes defined in the script"
        ) from None


# -- class patterns ------------------------------------------------------------------


class _MatchClassMeta(_real_type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, target_of(cls))

    def __subclasscheck__(cls, sub: Any) -> bool:
        return issubclass(sub, target_of(cls))


_match_classes: weakref.WeakKeyDictionary[type, tuple[tuple[str, ...], type]] = (
    weakref.WeakKeyDictionary()
)


def check_match_class(cls: Any) -> Any:
    """The class a ``case cls(p1, p2)`` pattern matches against.

    Positional sub-patterns read the attributes named by ``cls.__match_args__`` natively.
    Those names are checked here, and the pattern gets a stand-in class holding the
    checked tuple, so that nothing the script runs between this check and the match can
    change which attributes are read. The compiler calls this by name.
    """
    if not isinstance(cls, _real_type):
        return cls  # the interpreter reports the error
    try:
        args = cls.__match_args__  # type: ignore[attr-defined]
    except AttributeError:
        return cls
    if _real_type(args) is not tuple:
        raise TypeError(f"{cls.__name__}.__match_args__ must be a tuple")
    for name in args:
        if _real_type(name) is not str:
            raise TypeError(f"{cls.__name__}.__match_args__ must hold str names")
        if not natively_readable(name):
            raise ForbiddenAttribute(
                f"{cls.__name__}() cannot be matched by position in the sandbox: its "
                f"__match_args__ names the attribute {name!r}"
            )
    cached = _match_classes.get(cls)
    if cached is not None and cached[0] == args:
        return cached[1]
    namespace = {"__match_args__": args, "__slots__": ()}
    stand_in = _MatchClassMeta(cls.__name__, (), namespace)
    stand_in.__qualname__ = cls.__qualname__
    remember_target(stand_in, cls)
    _match_classes[cls] = (args, stand_in)
    return stand_in


_SAFE_BUILTIN_NAMES = """
abs all any ascii bin bool bytearray bytes callable chr classmethod complex dict divmod
enumerate filter float format frozenset hash hex id int isinstance issubclass iter len
list map max min next object oct ord pow property range repr reversed round set slice
sorted staticmethod str sum super tuple zip
""".split()


def _exception_names() -> list[str]:
    return [
        name
        for name, value in vars(builtins).items()
        if isinstance(value, _real_type)
        and issubclass(value, BaseException)
        and not name.startswith("_")
    ]


def _unbound_eval(*args: Any) -> Any:
    raise RuntimeError("eval() is not bound to a script runtime")


def _unbound_exec(*args: Any) -> Any:
    raise RuntimeError("exec() is not bound to a script runtime")


@functools.cache
def builtin_catalog() -> Mapping[str, Any]:
    """Every builtin a policy may grant, by name (built once: the zygote's copy is what
    every worker reads; callers copy what they grant)."""
    catalog: dict[str, Any] = {name: getattr(builtins, name) for name in _SAFE_BUILTIN_NAMES}
    catalog.update({name: getattr(builtins, name) for name in _exception_names()})
    catalog.update(
        getattr=builtin(guarded_getattr, "getattr"),
        hasattr=builtin(safe_hasattr, "hasattr"),
        setattr=builtin(safe_setattr, "setattr"),
        delattr=builtin(safe_delattr, "delattr"),
        type=SafeType,
        MemoryError=ScriptMemoryError,
        ToolError=ToolError,
        NotImplemented=NotImplemented,
        Ellipsis=Ellipsis,
    )
    catalog["print"] = print  # replaced per run by the capturing print
    # Replaced per runtime by the sandbox's own (``evaluate.py``); never the real ones.
    catalog["eval"] = _unbound_eval
    catalog["exec"] = _unbound_exec
    return catalog


BUILTIN_NAMES: frozenset[str] = frozenset(builtin_catalog())


def generated_bindings(last_expr: Any) -> dict[str, Any]:
    """What compiled code finds under the compiler's generated names (``names.py``):
    the guards, the membrane's checks, and ``last_expr`` for the trailing expression."""
    return {
        GETATTR: guarded_getattr,
        WRITE: guarded_write,
        RERAISE: reraise_control,
        MATCH_CLASS: check_match_class,
        HANDLED: handled,
        LAST_EXPR: last_expr,
        SCRIPT_TYPES_NAME: SCRIPT_TYPES,
        **membrane_names(),
    }


def _refuse_interpreter_builtins() -> None:
    """The interpreter's builtins that a script's differ from or lack (``eval``,
    ``__import__``, ``getattr``, ``open``, ``help``) are refused wherever native code
    would hand them over (a library's globals name ``__builtins__``)."""
    catalog = builtin_catalog()
    for name, value in vars(builtins).items():
        if callable(value) and not isinstance(value, _real_type) and catalog.get(name) is not value:
            refuse_on_entry(value, f"the interpreter's {name}()")


use_attribute_guard(guarded_getattr)
expose_classes(builtin_catalog().values())
# A script's MemoryError is its own class: the real one means an allocation failed.
replace_family_on_entry(builtins.MemoryError, ScriptMemoryError)
replace_on_entry(type(ScriptMemoryError), SafeType)
_refuse_interpreter_builtins()
