"""numpy's memory, as scripts reach it: arrays never hold objects over a buffer, and
no array's memory is freed while views read it.

- ``ndarray(shape, dtype=object, buffer=...)`` and ``recarray(..., buf=...)`` with an
  object field read the script's bytes as object addresses (numpy's own ``frombuffer``
  refuses this; its ``ndarray`` constructor and ``recarray`` do not): the scripts'
  ``numpy.ndarray`` is a stand-in whose constructor refuses it (:func:`checked_ndarray`),
  and ``recarray.__new__`` refuses it (:func:`close_object_buffers`);
- ``ndarray.resize(refcheck=False)`` frees memory that views still read (the next
  object array of that size takes the block): refused wherever a script reads
  ``resize`` (``guards.check_method`` and the stand-in's class attributes).

Worker side: numpy is imported by name when a data library is allowed.
"""

from __future__ import annotations

import importlib
import operator
from typing import Any

from sandbox.worker.language.classes import expose_classes
from sandbox.worker.language.control import RefusedInSandbox
from sandbox.worker.language.guards import check_method
from sandbox.worker.language.membrane import replace_on_entry


def _refuse_objects_over_buffer(array: Any) -> Any:
    if array.dtype.hasobject:
        raise RefusedInSandbox(
            "an array over a buffer cannot hold objects in the sandbox: its bytes would be "
            "read as object addresses"
        )
    return array


def close_object_buffers() -> None:
    """``recarray(buf=...)`` refuses an object dtype (zygote, once)."""
    recarray = importlib.import_module("numpy").recarray
    real_new = recarray.__new__

    def __new__(subtype: Any, *args: Any, **kwargs: Any) -> Any:
        made = real_new(subtype, *args, **kwargs)
        buf = kwargs.get("buf", args[2] if len(args) > 2 else None)
        return made if buf is None else _refuse_objects_over_buffer(made)

    __new__.__doc__ = real_new.__doc__
    recarray.__new__ = __new__


class _CheckedArrayMeta(type):
    """``numpy.ndarray`` as scripts see it: ``isinstance``, its attributes and its
    constructor, which refuses an object dtype over a buffer."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, _real_ndarray())

    def __subclasscheck__(cls, sub: Any) -> bool:
        return issubclass(sub, _real_ndarray())

    def __call__(
        cls,
        shape: Any,
        dtype: Any = float,
        buffer: Any = None,
        offset: Any = 0,
        strides: Any = None,
        order: Any = None,
    ) -> Any:
        if buffer is None:
            return _real_ndarray()(shape, dtype, None, offset, strides, order)
        # Over a buffer: the extents are checked here, in Python's integers (numpy's own
        # check wraps around for huge strides), and numpy gets exactly what was checked.
        numpy = importlib.import_module("numpy")
        dims = _indices(shape)
        steps = None if strides is None else _indices(strides)
        start, kind = int.__index__(operator.index(offset)), numpy.dtype(dtype)
        size = memoryview(buffer).nbytes
        if steps is not None:
            if len(steps) != len(dims):
                raise ValueError("strides, if given, must be the same length as shape")
            low = high = start
            if all(dims):
                for count, step in zip(dims, steps, strict=True):
                    reach = (count - 1) * step
                    low, high = low + min(reach, 0), high + max(reach, 0)
                if low < 0 or high + kind.itemsize > size:
                    raise ValueError("strides and offset reach outside the buffer")
        made = _real_ndarray()(dims, kind, buffer, start, steps, order)
        return _refuse_objects_over_buffer(made)

    def __getattr__(cls, name: str) -> Any:
        if name == "resize":
            return _checked_resize(_real_ndarray().resize)
        return getattr(_real_ndarray(), name)

    def __getitem__(cls, item: Any) -> Any:
        return _real_ndarray()[item]

    def __repr__(cls) -> str:
        return "<class 'numpy.ndarray'>"


def _indices(value: Any) -> tuple[int, ...]:
    """A shape or strides as exact ints (a script's ``int`` subclass answers nothing)."""
    if isinstance(value, (list, tuple)):
        return tuple(int.__index__(operator.index(item)) for item in value)
    return (int.__index__(operator.index(value)),)


def _checked_resize(resize: Any) -> Any:
    """``ndarray.resize`` that keeps numpy's check for other references: without it
    (``refcheck=False``) the memory is freed under the views that still read it."""

    def checked(*args: Any, **kwargs: Any) -> Any:
        # Exactly ``True``: numpy reads the flag as an integer, the check would ask
        # ``bool()``, and a script's object answers each its own way.
        if kwargs.setdefault("refcheck", True) is not True:
            raise RefusedInSandbox(
                "ndarray.resize(refcheck=False) is not available in the sandbox: it frees "
                "memory that other arrays may still use"
            )
        return resize(*args, **kwargs)

    checked.__doc__ = getattr(resize, "__doc__", None)
    return checked


def _real_ndarray() -> Any:
    return importlib.import_module("numpy").ndarray


_checked: list[type] = []


def checked_ndarray() -> type:
    """``numpy.ndarray`` as scripts hold it (made once; the membrane hands it wherever the
    real class would enter, and ``type(array)`` names it)."""
    if not _checked:
        stand_in = _CheckedArrayMeta("ndarray", (), {"__slots__": (), "__module__": "numpy"})
        stand_in.__doc__ = _real_ndarray().__doc__
        # ``type(array)`` too: the real class is named (not an opaque stand-in), and
        # the membrane hands this one wherever it would enter.
        expose_classes([_real_ndarray()])
        replace_on_entry(_real_ndarray(), stand_in)
        check_method(_real_ndarray(), "resize", _checked_resize)
        _checked.append(stand_in)
    return _checked[0]
