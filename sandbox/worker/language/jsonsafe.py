"""Turning a script's values into JSON values, inside the worker.

Only plain JSON (dict/list/str/int/float/bool/None) leaves the worker. Common Python
values are converted the way a model would expect (tuples and sets become lists,
dates become ISO strings, dataclasses become dicts); anything else is refused with a
message that says where the offending value sits and what to do about it.

Worker side: standard library only.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import fractions
import math
from collections import deque
from typing import Any

MAX_DEPTH = 100


class NotJsonable(ValueError):
    """A value has no JSON form; the message names its path and type."""


def _key(key: Any, path: str) -> str:
    if isinstance(key, str):
        return str.__str__(key)
    if key is None or isinstance(key, (bool, int, float)):
        return str(to_json(key, path, 0))
    if isinstance(key, enum.Enum):
        return _key(key.value, path)
    raise NotJsonable(f"dictionary key at {path} is a {type(key).__name__}; use str keys")


def _float(value: float) -> float | str:
    if math.isfinite(value):
        return value
    return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")


def to_json(value: Any, path: str = "$", depth: int = 0) -> Any:
    """Convert ``value`` to plain JSON data, or raise :class:`NotJsonable`."""
    kind = type(value)
    if value is None or kind is str or kind is bool or kind is int:
        return value
    if kind is float:
        return _float(value)
    if depth > MAX_DEPTH:
        raise NotJsonable(f"value at {path} is nested more than {MAX_DEPTH} levels deep")
    if isinstance(value, enum.Enum):
        return to_json(value.value, path, depth + 1)
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, int):
        return int.__index__(value)
    if isinstance(value, float):
        return _float(float.__float__(value))
    if isinstance(value, dict):
        return {
            _key(k, path): to_json(v, f"{path}[{k!r}]", depth + 1) for k, v in dict.items(value)
        }
    if isinstance(value, (list, tuple, deque, range)):
        return [to_json(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(value)]
    if isinstance(value, (set, frozenset)):
        items = list(value)
        try:
            items.sort()
        except TypeError:
            pass
        return [to_json(v, f"{path}[{i}]", depth + 1) for i, v in enumerate(items)]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, (decimal.Decimal, fractions.Fraction)):
        return _float(float(value))
    if isinstance(value, complex):
        return str(value)
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", errors="replace")
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {
            f.name: to_json(getattr(value, f.name), f"{path}.{f.name}", depth + 1)
            for f in dataclasses.fields(value)
        }
    raise NotJsonable(
        f"value at {path} is a {kind.__name__}, which has no JSON form; "
        "convert it to a str, number, list or dict first"
    )
