"""The standard library's values rebuilt from a snapshot: numbers, bytes, containers,
dates, decimals and fractions (the plain nodes ``snapshot.py`` writes), each by one
constructor after its fields are checked (``snapshot_nodes.py``).

Worker side: standard library only.
"""

from __future__ import annotations

import collections
import datetime
import decimal
import fractions
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sandbox.worker.snapshot_nodes import (
    NotRebuilt,
    SnapshotRefused,
    attribute_name,
    b64_field,
    field,
    ints,
    iso,
    number,
    refuse,
)

if TYPE_CHECKING:
    from sandbox.worker.restore import Restorer

Builder = Callable[["Restorer", int, dict[str, Any], int], Any]


def _fraction(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    num, den = ints(n, "args", 2)
    refuse(den != 0, "a fraction")
    return fractions.Fraction(num, den)


def _decimal(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    text = field(n, "v", str)
    refuse(len(text) <= 4096, "a decimal")
    try:
        return decimal.Decimal(text)
    except decimal.InvalidOperation:
        raise SnapshotRefused("malformed snapshot: a decimal") from None


def _timedelta(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    days, seconds, micro = ints(n, "args", 3)
    try:
        return datetime.timedelta(days, seconds, micro)
    except OverflowError:
        raise SnapshotRefused("malformed snapshot: a time span") from None


def _range(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    start, stop, step = ints(n, "args", 3)
    refuse(step != 0, "a range")
    return range(start, stop, step)


def _datetime(kind: Any) -> Builder:
    def build(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
        fold = field(n, "fold", int)
        refuse(fold in (0, 1), "a fold")
        return iso(n, kind.fromisoformat).replace(fold=fold)

    return build


def _deque(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    maxlen = field(n, "maxlen", (int, type(None)))
    refuse(maxlen is None or maxlen >= 0, "a deque's length")
    made: collections.deque[Any] = collections.deque(maxlen=maxlen)
    return r.filled(i, made, lambda: made.extend(r.items(n, d)))


def _mapping(kind: Callable[[], dict[Any, Any]]) -> Builder:
    # Stored item by item: an OrderedDict keeps its own order beside the dict's, and a
    # Counter's update() would count the pairs instead of storing them.
    def build(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
        made = kind()

        def fill() -> None:
            for key, value in r.pairs(n, d):
                made[key] = value

        return r.filled(i, made, fill)

    return build


def _defaultdict(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    made: collections.defaultdict[Any, Any] = collections.defaultdict()
    r.built[i] = made
    factory = r.value(n.get("factory"), d)
    if factory is not None and not callable(factory):
        raise NotRebuilt("a defaultdict whose default is not callable")
    made.default_factory = factory
    dict.update(made, r.pairs(n, d))
    return made


def _namespace(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    made = types.SimpleNamespace()
    state = vars(made)
    return r.filled(
        i,
        made,
        lambda: state.update(
            (attribute_name(k, private=False), v) for k, v in r.pairs(n, d, "state")
        ),
    )


def _list(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    made: list[Any] = []
    return r.filled(i, made, lambda: made.extend(r.items(n, d)))


def _set(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    made: set[Any] = set()
    return r.filled(i, made, lambda: made.update(r.items(n, d)))


BUILDERS: dict[str, Builder] = {
    "float": lambda r, i, n, d: number(field(n, "v", str)),
    "complex": lambda r, i, n, d: complex(number(n.get("re")), number(n.get("im"))),
    "bytes": lambda r, i, n, d: b64_field(n),
    "bytearray": lambda r, i, n, d: bytearray(b64_field(n)),
    "list": _list,
    "set": _set,
    "tuple": lambda r, i, n, d: tuple(r.items(n, d)),
    "frozenset": lambda r, i, n, d: frozenset(r.items(n, d)),
    "dict": _mapping(dict),
    "ordereddict": _mapping(collections.OrderedDict),
    "counter": _mapping(collections.Counter),
    "defaultdict": _defaultdict,
    "deque": _deque,
    "namespace": _namespace,
    "range": _range,
    "datetime": _datetime(datetime.datetime),
    "time": _datetime(datetime.time),
    "date": lambda r, i, n, d: iso(n, datetime.date.fromisoformat),
    "timedelta": _timedelta,
    "decimal": _decimal,
    "fraction": _fraction,
}
