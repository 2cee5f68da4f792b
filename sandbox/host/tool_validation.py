"""A tool's validating wrapper: pydantic's ``validate_call`` on its signature, built once
per function and kept across sessions (building one cost 0.5 ms a tool, at every
session start)."""

from __future__ import annotations

import inspect
import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import pydantic

#: Validating wrappers of the tools sessions were opened with, newest last.
_VALIDATED: OrderedDict[Callable[..., Any], Callable[..., Any]] = OrderedDict()
_VALIDATED_KEPT = 256
_validated_lock = threading.Lock()


def validated(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` validating its arguments (``fn`` itself where pydantic cannot)."""
    if not inspect.isfunction(fn):
        # A bound method or callable object would keep its owner alive in the cache.
        return _validate_call(fn)
    with _validated_lock:
        known = _VALIDATED.get(fn)
        if known is not None:
            _VALIDATED.move_to_end(fn)
            return known
    wrapped = _validate_call(fn)
    with _validated_lock:
        _VALIDATED[fn] = wrapped
        while len(_VALIDATED) > _VALIDATED_KEPT:
            _VALIDATED.popitem(last=False)
    return wrapped


def _validate_call(fn: Callable[..., Any]) -> Callable[..., Any]:
    config = pydantic.ConfigDict(arbitrary_types_allowed=True)
    try:
        return pydantic.validate_call(config=config)(fn)
    except (pydantic.PydanticSchemaGenerationError, pydantic.PydanticUserError, TypeError):
        return fn
