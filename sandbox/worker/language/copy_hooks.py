"""What ``copy`` does on the script's behalf, held to what the script may do itself.

``copy.deepcopy`` hands its memo (every object copied so far, library internals and
their originals included) to ``__deepcopy__``; ``copy`` fills slots and ``__dict__``
from a ``__getstate__`` value and calls what a reduce value names. So: a script's
``__deepcopy__`` receives an opaque :class:`CopyMemo` (``copy.deepcopy(x, memo)``
accepts it back); a script class with ``__getattr__`` gets deepcopy's default copier
(``deepcopy`` asks the instance for ``__deepcopy__``, and ``__getattr__`` would answer);
slots may not be named like special methods; ``__reduce__``/``__reduce_ex__`` cannot be
defined at all (``names.DEFINABLE_DUNDERS``).

Worker side: standard library only.
"""

from __future__ import annotations

import copy
import types
from collections.abc import Callable
from typing import Any

from sandbox.worker.language.control import ForbiddenOperation

_real_type = type


def check_slots(cls: type) -> None:
    # Checked on the slots created (the member descriptors), not on ``__slots__``,
    # which may be an iterator the class statement already consumed. A slot named like
    # a special method (``__getattribute__``) would become that method once filled, and
    # ``copy`` fills slots from a ``__getstate__`` value.
    for key, value in cls.__dict__.items():
        if _real_type(value) is types.MemberDescriptorType and key.startswith("__"):
            raise ForbiddenOperation(f"__slots__ entry {key!r} is not allowed in the sandbox")


def default_deepcopy(self: Any, memo: dict[int, Any]) -> Any:
    """What ``copy.deepcopy`` does for an object without ``__deepcopy__``: installed on
    script classes with a ``__getattr__``, which ``deepcopy`` would otherwise ask for a
    ``__deepcopy__`` and hand the real memo to whatever it returns."""
    reduced = self.__reduce_ex__(4)
    if isinstance(reduced, str):
        return self
    return copy._reconstruct(self, memo, *reduced)  # type: ignore[attr-defined]


class CopyMemo:
    """What a script's ``__deepcopy__`` receives instead of ``copy``'s memo: the memo
    holds every object copied so far, the ones the script cannot reach included. Pass
    it on to ``copy.deepcopy(x, memo)``."""

    __slots__ = ("_memo",)

    def __init__(self, memo: dict[int, Any]) -> None:
        self._memo = memo

    def __repr__(self) -> str:
        return "<copy memo>"


def unwrap_memo(memo: Any) -> dict[int, Any] | None:
    """The real memo behind a :class:`CopyMemo` (None for anything else)."""
    return memo._memo if _real_type(memo) is CopyMemo else None


def memo_guarded(copier: Any) -> Callable[..., Any]:
    def __deepcopy__(self: Any, memo: Any) -> Any:
        get = getattr(_real_type(copier), "__get__", None)
        bound = get(copier, self, _real_type(self)) if get is not None else copier
        return bound(CopyMemo(memo) if _real_type(memo) is dict else memo)

    return __deepcopy__
