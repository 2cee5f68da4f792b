"""What reading a snapshot's nodes needs on both sides of ``restore.py``: its two
failures and the checks every node's fields go through.

Worker side: standard library only.
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any

_MISSING = object()


class SnapshotRefused(Exception):
    """The snapshot is malformed: nothing of it is restored."""


class NotRebuilt(Exception):
    """One value cannot be rebuilt under this policy: its variable is lost."""


def refuse(condition: bool, what: str) -> None:
    """Refuse the snapshot unless ``condition`` holds."""
    if not condition:
        raise SnapshotRefused(f"malformed snapshot: {what}")


def field(node: dict[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    """``node[name]``, which must be of ``kind`` (exactly: no subclasses, so no bool
    where an int is meant)."""
    value = node.get(name, _MISSING)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    refuse(type(value) in kinds, f"field {name!r} of a {node.get('t')!r} node")
    return value


def attribute_name(name: Any, *, private: bool = True) -> str:
    """A name a script could give a variable or its object's attribute: no dunder, and
    no leading underscore at all unless ``private``."""
    refuse(type(name) is str and name.isidentifier(), f"name {name!r}")
    if (name.startswith("__") and name.endswith("__")) or (not private and name[0] == "_"):
        raise NotRebuilt(f"the name {name!r} is not one a script may set here")
    return str(name)


def number(text: Any) -> float:
    refuse(type(text) is str and len(text) <= 64, "a number")
    try:
        return float(text)
    except ValueError:
        raise SnapshotRefused("malformed snapshot: a number") from None


def b64_field(node: dict[str, Any]) -> bytes:
    try:
        return base64.b64decode(field(node, "b64", str), validate=True)
    except ValueError:
        raise SnapshotRefused("malformed snapshot: base64 data") from None


def ints(node: dict[str, Any], name: str, count: int) -> list[int]:
    values = field(node, name, list)
    refuse(len(values) == count and all(type(v) is int for v in values), f"field {name!r}")
    return [int(v) for v in values]


def iso(node: dict[str, Any], parse: Callable[[str], Any]) -> Any:
    text = field(node, "iso", str)
    refuse(len(text) <= 64, "a date")
    try:
        return parse(text)
    except ValueError:
        raise SnapshotRefused("malformed snapshot: a date") from None
