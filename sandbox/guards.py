"""Run-time guards and the builtins a script sees.

The compiler (``compiler.py``) leaves most operations native and routes the few that
can reach the host through these functions:

- ``guarded_getattr`` (``_getattr_`` and the ``getattr`` builtin): refuses underscore
  names, frame/code/traceback attributes, ``mro`` of classes and ``obj`` of exceptions,
  and hands out a ``str.format`` that cannot walk into ``__class__``;
- ``guarded_write`` (``_write_``): attribute stores only on the script's own objects;
- ``reraise_control`` (``_reraise_control_``): re-raises the sandbox's control
  exceptions at the start of every ``except`` block;
- ``build_class`` (``__build_class__``): records the classes a script defines.

Worker side: standard library only.
"""

from __future__ import annotations

import _string  # type: ignore[import-not-found]
import builtins
import decimal
import string
import sys
import types
from collections.abc import Callable, Mapping
from typing import Any

from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from .compiler import READABLE_DUNDERS

#: Module name a script's globals carry; classes defined by the script get it too.
SCRIPT_MODULE = "__main__"


class ControlFlow(BaseException):
    """Base of the exceptions the sandbox uses to stop a script; scripts cannot catch them."""


class ScriptExit(ControlFlow):
    """A result helper was called: the script ends with the recorded output."""


class LimitExceeded(ControlFlow):
    """A limit was hit inside the worker (CPU, output, tool calls, result size)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class ToolError(Exception):
    """A host tool failed; the message says how."""


class PolicyRefusal(Exception):
    """Mixin marking an exception raised because the policy refused something."""


class ForbiddenAttribute(AttributeError, PolicyRefusal):
    """An attribute the sandbox does not give out."""


class ForbiddenImport(ImportError, PolicyRefusal):
    """A module the policy does not allow."""


# Scripts see (and catch) them as the builtin exceptions they extend.
ForbiddenAttribute.__name__ = ForbiddenAttribute.__qualname__ = "AttributeError"
ForbiddenImport.__name__ = ForbiddenImport.__qualname__ = "ImportError"


_real_type = builtins.type
_user_types: set[type] = set()
_writable_foreign_types: tuple[type, ...] = (decimal.Context,)
_FORBIDDEN_ATTRS = INSPECT_ATTRIBUTES | {"f_locals", "f_globals", "f_builtins", "f_back"}


def reraise_control() -> None:
    """Re-raise the active exception when it is one of the sandbox's control exceptions."""
    exc = sys.exc_info()[1]
    if isinstance(exc, ControlFlow):
        raise exc


def build_class(func: Callable[..., Any], name: str, *bases: Any, **kwargs: Any) -> type:
    """``__build_class__`` that remembers which classes belong to the script."""
    if "metaclass" in kwargs:
        raise TypeError("metaclasses are not allowed in the sandbox")
    cls = builtins.__build_class__(func, name, *bases, **kwargs)
    _user_types.add(cls)
    return cls  # type: ignore[no-any-return]


def _is_script_class(cls: type) -> bool:
    return cls in _user_types or cls.__dict__.get("__module__") == SCRIPT_MODULE


def guarded_write(obj: Any) -> Any:
    """``_write_``: allow attribute stores on the script's own objects and classes only."""
    cls = _real_type(obj)
    if cls in _user_types:
        return obj
    if isinstance(obj, _real_type) and _is_script_class(obj):
        return obj
    if cls is types.FunctionType and obj.__code__.co_filename.startswith("<script"):
        return obj
    if _is_script_class(cls) or isinstance(obj, _writable_foreign_types):
        return obj
    raise TypeError(
        f"cannot set or delete attributes of {cls.__name__!r} objects in the sandbox; "
        "only objects of classes defined in the script can be modified"
    )


def _check_attr_name(name: object) -> str:
    if _real_type(name) is not str:
        raise TypeError(f"attribute name must be a string, not {_real_type(name).__name__!r}")
    assert isinstance(name, str)
    if (name.startswith("_") and name not in READABLE_DUNDERS) or name in _FORBIDDEN_ATTRS:
        raise ForbiddenAttribute(f"access to attribute {name!r} is not allowed in the sandbox")
    return name


_NO_DEFAULT = object()


def guarded_getattr(obj: Any, name: Any, default: Any = _NO_DEFAULT) -> Any:
    """``_getattr_`` and the script's ``getattr``."""
    name = _check_attr_name(name)
    if name in ("format", "format_map"):
        if isinstance(obj, str):
            return _bound_safe_format(obj, name)
        if isinstance(obj, _real_type) and issubclass(obj, str):
            return _safe_format_unbound if name == "format" else _safe_format_map_unbound
    elif name == "obj" and isinstance(obj, BaseException):
        raise ForbiddenAttribute(
            "the 'obj' attribute of exceptions is not available in the sandbox"
        )
    elif name == "mro" and isinstance(obj, _real_type):
        raise ForbiddenAttribute("'mro' is not available in the sandbox")
    elif name == "__class__":
        return safe_type(obj)
    if default is _NO_DEFAULT:
        return getattr(obj, name)
    return getattr(obj, name, default)


def safe_hasattr(obj: Any, name: Any) -> bool:
    """``hasattr`` under the same rules as ``getattr``."""
    try:
        guarded_getattr(obj, name)
    except AttributeError:
        return False
    return True


def safe_setattr(obj: Any, name: Any, value: Any) -> None:
    """``setattr`` under the same rules as ``obj.name = value``."""
    name = _check_attr_name(name)
    if name.startswith("_"):
        raise ForbiddenAttribute(f"setting attribute {name!r} is not allowed in the sandbox")
    setattr(guarded_write(obj), name, value)


def safe_delattr(obj: Any, name: Any) -> None:
    """``delattr`` under the same rules as ``del obj.name``."""
    name = _check_attr_name(name)
    if name.startswith("_"):
        raise ForbiddenAttribute(f"deleting attribute {name!r} is not allowed in the sandbox")
    delattr(guarded_write(obj), name)


# -- str.format without attribute walks -------------------------------------------


class _SafeFormatter(string.Formatter):
    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        first, rest = _string.formatter_field_name_split(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attr, key in rest:
            obj = guarded_getattr(obj, key) if is_attr else obj[key]
        return obj, first


_formatter = _SafeFormatter()


def _needs_safe_formatting(template: str) -> bool:
    # Only ``{x.attr}`` fields and nested fields in format specs can walk attributes;
    # everything else is left to the native, much faster, str.format.
    if "." not in template:
        return False
    for _, field, spec, _ in _string.formatter_parser(template):
        if field and "." in field:
            return True
        if spec and "{" in spec:
            return True
    return False


def _bound_safe_format(template: str, name: str) -> Callable[..., str]:
    if not _needs_safe_formatting(template):
        return getattr(template, name)  # type: ignore[no-any-return]
    if name == "format":
        return lambda *args, **kwargs: _formatter.vformat(template, args, kwargs)
    return lambda mapping: _formatter.vformat(template, (), mapping)


def _safe_format_unbound(template: str, *args: Any, **kwargs: Any) -> str:
    return _bound_safe_format(template, "format")(*args, **kwargs)


def _safe_format_map_unbound(template: str, mapping: Mapping[str, Any]) -> str:
    return _bound_safe_format(template, "format_map")(mapping)


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


def safe_type(obj: Any) -> Any:
    """``type(obj)``, except that metaclasses are reported as the sandbox's ``type``."""
    cls = _real_type(obj)
    if issubclass(cls, _real_type):
        return SafeType
    return cls


_SAFE_BUILTIN_NAMES = [
    "abs",
    "all",
    "any",
    "ascii",
    "bin",
    "bool",
    "bytearray",
    "bytes",
    "callable",
    "chr",
    "classmethod",
    "complex",
    "dict",
    "divmod",
    "enumerate",
    "filter",
    "float",
    "format",
    "frozenset",
    "hash",
    "hex",
    "int",
    "isinstance",
    "issubclass",
    "iter",
    "len",
    "list",
    "map",
    "max",
    "min",
    "next",
    "oct",
    "ord",
    "pow",
    "property",
    "range",
    "repr",
    "reversed",
    "round",
    "set",
    "slice",
    "sorted",
    "staticmethod",
    "str",
    "sum",
    "super",
    "tuple",
    "zip",
]


def _exception_names() -> list[str]:
    return [
        name
        for name, value in vars(builtins).items()
        if isinstance(value, _real_type)
        and issubclass(value, BaseException)
        and not name.startswith("_")
        and value not in (KeyboardInterrupt, SystemExit, GeneratorExit)
    ]


def builtin_catalog() -> dict[str, Any]:
    """Every builtin a policy may grant, by name."""
    catalog: dict[str, Any] = {name: getattr(builtins, name) for name in _SAFE_BUILTIN_NAMES}
    catalog.update({name: getattr(builtins, name) for name in _exception_names()})
    catalog.update(
        getattr=guarded_getattr,
        hasattr=safe_hasattr,
        setattr=safe_setattr,
        delattr=safe_delattr,
        type=SafeType,
        ToolError=ToolError,
        NotImplemented=NotImplemented,
        Ellipsis=Ellipsis,
    )
    catalog["print"] = print  # replaced per run by the capturing print
    return catalog


BUILTIN_NAMES: frozenset[str] = frozenset(builtin_catalog())
