"""The sandbox's functions as a script sees them: named and shown like Python's own.

A script's ``print`` is the runtime's capturing method, its ``getattr`` the attribute
guard; their error messages and reprs must not show that (``guarded_getattr()``,
``ScriptRuntime._print``, an address inside the worker). :func:`builtin` gives a
function the name Python's builtin has, in its code object too (argument errors use
it), behind a ``builtin_function_or_method`` whose repr is Python's.

Worker side: standard library only.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any


def renamed(function: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``function`` (a function or a bound method) with ``name`` in its code object."""
    target = function.__func__ if isinstance(function, types.MethodType) else function
    assert isinstance(target, types.FunctionType)
    code = target.__code__.replace(co_name=name, co_qualname=name)
    copy = types.FunctionType(
        code, target.__globals__, name, target.__defaults__, target.__closure__
    )
    copy.__kwdefaults__ = target.__kwdefaults__
    copy.__doc__ = target.__doc__
    copy.__qualname__ = name
    if isinstance(function, types.MethodType):
        return types.MethodType(copy, function.__self__)
    return copy


class builtin_function_or_method:
    """A builtin of the sandbox: calls the function it wraps, shows only its name."""

    __slots__ = ("_call", "_name")

    def __init__(self, function: Callable[..., Any], name: str) -> None:
        object.__setattr__(self, "_call", renamed(function, name))
        object.__setattr__(self, "_name", name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._call(*args, **kwargs)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"'builtin_function_or_method' object attribute {name!r} is read-only")

    def __repr__(self) -> str:
        return f"<built-in function {self._name}>"

    def __getattr__(self, name: str) -> Any:
        # Reached for ``__name__``/``__qualname__`` only: instances have no others.
        if name in ("__name__", "__qualname__"):
            return self._name
        raise AttributeError(f"'builtin_function_or_method' object has no attribute {name!r}")


def builtin(function: Callable[..., Any], name: str) -> builtin_function_or_method:
    """``function`` shown to scripts as the builtin ``name``."""
    return builtin_function_or_method(function, name)
