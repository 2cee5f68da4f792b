"""A script's ``MemoryError``: raising one is not running out of memory.

A run that ends in a ``MemoryError`` is reported as the memory limit. The interpreter
makes the real class's objects where an allocation fails; nothing tells them apart from
one a script made (``raise MemoryError``, ``gen.throw(MemoryError)``, a library handed
the class), so a script never holds the real class:

- its ``MemoryError`` is :class:`ScriptMemoryError`, a subclass shown as Python's own;
- the membrane hands that out wherever native code would hand over the real class or a
  library's subclass of it (``type(e)``, ``__mro__``, a module's member:
  ``membrane.replace_family_on_entry``), so every class a script can name or derive
  from derives from it;
- ``except MemoryError`` still catches the real one: the compiler passes each handler's
  classes through :func:`handled`; ``isinstance`` and ``issubclass`` answer for the
  real class too.

So the real class's objects come only from an allocation that failed (or from copying
one, which needs one first): :func:`raised_by_script` tells the runtime which it has.

Worker side: standard library only.
"""

from __future__ import annotations

import builtins
from typing import Any

from sandbox.worker.language.real_mro import real_mro

_RealMemoryError = builtins.MemoryError


class _ScriptMemoryErrorMeta(type):
    # ``isinstance(e, MemoryError)`` in a script is true of a real one too; a script's
    # own subclasses answer for their own objects only.
    def __instancecheck__(cls, obj: Any) -> bool:
        if cls is ScriptMemoryError:
            return isinstance(obj, _RealMemoryError)
        return type.__instancecheck__(cls, obj)

    def __subclasscheck__(cls, sub: Any) -> bool:
        if cls is ScriptMemoryError:
            return issubclass(sub, _RealMemoryError)
        return type.__subclasscheck__(cls, sub)


class ScriptMemoryError(_RealMemoryError, metaclass=_ScriptMemoryErrorMeta):
    """Out of memory."""


# Shown as Python's own, in error messages too (``cannot set 'x' attribute of type``).
_ScriptMemoryErrorMeta.__name__ = _ScriptMemoryErrorMeta.__qualname__ = "type"
ScriptMemoryError.__name__ = ScriptMemoryError.__qualname__ = "MemoryError"
ScriptMemoryError.__module__ = "builtins"
ScriptMemoryError.__doc__ = _RealMemoryError.__doc__


def handled(classes: Any) -> Any:
    """What an ``except`` clause matches: the real ``MemoryError`` for the script's.

    Python matches handlers by the classes' real bases, never by ``__subclasscheck__``.
    """
    if classes is ScriptMemoryError:
        return _RealMemoryError
    if issubclass(type(classes), tuple):
        return tuple(handled(item) for item in classes)
    return classes


def raised_by_script(exc: BaseException) -> bool:
    """Whether a ``MemoryError`` was made by script code rather than a failed allocation."""
    return ScriptMemoryError in real_mro(type(exc))
