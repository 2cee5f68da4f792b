"""A session's state as JSON, built inside the worker: what ``Session.snapshot()`` returns.

The script's globals — minus the names the sandbox bound (helpers, tools) — become one
JSON document; ``restore.py`` rebuilds it in a fresh worker. Nothing is pickled: every
value is described by a tagged node from a closed list, so that restoring can only
construct what the list names, and a function or class is kept as the source of the
statement that defined it, to be run again under the language layer's rules::

    {"format": "codeact-session-snapshot", "version": 1, "language": true,
     "variables": [names kept], "lost": [{"name", "reason"}],
     "definitions": [{"source": "def f(x):...", "binds": "f"}],   # in the order they ran
     "objects": [node, ...], "globals": {name: value}}

A value is JSON ``null``/``true``/``false``, an integer, a string, a finite number, or
``{"r": i}``: entry ``i`` of ``objects`` (so that an object reachable twice is one
object again, cycles included). A node is ``{"t": tag, ...}`` with the tags of
:data:`TAGS`. What has no node — an open file, a generator, a lock, a class defined
inside a function — is listed in ``lost`` by variable name, with the reason.

Worker side: standard library only (numpy and pandas are read from ``sys.modules``
when a data policy loaded them).
"""

from __future__ import annotations

import abc
import base64
import collections
import datetime
import decimal
import enum
import fractions
import functools
import io
import json
import math
import sys
import types
import typing
from collections.abc import Callable, Iterable
from typing import Any

from sandbox.protocol import SNAPSHOT_FORMAT
from sandbox.worker import snapshot_data
from sandbox.worker.language.classes import is_script_class
from sandbox.worker.language.modules import ModuleProxy
from sandbox.worker.snapshot_members import Members, module_name
from sandbox.worker.snapshot_sources import Key, NoDefinition, Sources

#: Every tag a node may carry (restore.py builds exactly these).
TAGS = frozenset(
    {
        "float", "complex", "bytes", "bytearray", "list", "tuple", "dict", "set", "frozenset",
        "range", "deque", "ordereddict", "counter", "defaultdict", "namespace", "datetime",
        "date", "time", "timedelta", "decimal", "fraction", "module", "member", "builtin",
        "function", "class", "object", "enum", "ndarray", "npscalar", "dataframe", "series",
        "index", "rangeindex", "extarray", "timestamp", "nat", "na", "pdtimedelta", "defined",
    }
)  # fmt: skip
#: How deeply values may nest (the restore side holds to the same bound).
MAX_DEPTH = 100
_NOT_KEPT: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (io.IOBase, "an open file"),
    ((types.GeneratorType, types.AsyncGeneratorType), "a generator, which cannot be resumed"),
    (types.CoroutineType, "a coroutine, which cannot be resumed"),
)


class Unkeepable(Exception):
    """A value with no snapshot form; the message says what it is."""


class Snapshotter:
    """Encodes one runtime's globals (see the module docstring)."""

    def __init__(self, runtime: Any, language: bool) -> None:
        self.runtime = runtime
        self.language = language
        self.objects: list[Any] = []
        self._memo: dict[int, int] = {}
        self._alive: list[Any] = []  # keeps every encoded object (and its id) alive
        self._sources = Sources(runtime)
        self._def_nodes: list[dict[str, Any]] = []
        self._members = Members(runtime, self._sources.imported_modules())

    # -- the document ------------------------------------------------------------------
    def document(self) -> dict[str, Any]:
        kept: dict[str, Any] = {}
        lost: list[dict[str, str]] = []
        for name, value in list(self.runtime.globals.items()):
            if name in self.runtime.installed or name.startswith(("__", ".")):
                continue
            encoded = self._attempt(functools.partial(self.value, value, 0))
            if isinstance(encoded, Unkeepable):
                lost.append({"name": name, "reason": str(encoded)})
            else:
                kept[name] = encoded
        order = self._sources.ordered()
        index = {key: i for i, key in enumerate(order)}
        for node in self._def_nodes:
            node["def"] = index[node["def"]]
        return {
            "format": SNAPSHOT_FORMAT,
            "version": 1,
            "language": self.language,
            "variables": list(kept),
            "lost": lost,
            "definitions": [self._sources.definitions[key] for key in order],
            "objects": self.objects,
            "globals": kept,
        }

    def _attempt(self, encode: Callable[[], Any]) -> Any:
        """``encode()``, or the Unkeepable it raised with every entry it added undone."""
        definitions = dict(self._sources.definitions)
        marks = (len(self.objects), len(self._alive), len(self._def_nodes))
        try:
            return encode()
        except (Unkeepable, RecursionError, MemoryError) as exc:
            del self.objects[marks[0] :]
            self._memo = {k: v for k, v in self._memo.items() if v < marks[0]}
            del self._alive[marks[1] :]
            del self._def_nodes[marks[2] :]
            self._sources.definitions = definitions
            if isinstance(exc, Unkeepable):
                return exc
            return Unkeepable(
                "nested too deeply" if isinstance(exc, RecursionError) else "too large"
            )

    # -- values ------------------------------------------------------------------------
    @staticmethod
    def unkeepable(reason: str) -> Unkeepable:
        """The exception for a value with no snapshot form (for ``snapshot_data``)."""
        return Unkeepable(reason)

    def value(self, value: Any, depth: int) -> Any:
        kind = type(value)
        if value is None or kind in (bool, int, str):
            return value
        if kind is float and math.isfinite(value):
            return value
        if depth > MAX_DEPTH:
            raise Unkeepable(f"nested more than {MAX_DEPTH} levels deep")
        found = self._memo.get(id(value))
        if found is not None:
            return {"r": found}
        return self._new(value, kind, depth + 1)

    def reserve(self, value: Any) -> tuple[int, dict[str, Any]]:
        node: dict[str, Any] = {}
        self.objects.append(node)
        self._alive.append(value)
        index = self._memo[id(value)] = len(self.objects) - 1
        return index, node

    def add(self, value: Any, node: dict[str, Any]) -> dict[str, int]:
        """An immutable value's node, added once its parts are encoded (a cycle through
        it came back to it meanwhile: that entry is the one)."""
        found = self._memo.get(id(value))
        if found is None:
            found, slot = self.reserve(value)
            slot.update(node)
        return {"r": found}

    def filled(self, value: Any, tag: str, fill: Callable[[], dict[str, Any]]) -> dict[str, int]:
        """A mutable value's node: its entry exists before its parts (cycles)."""
        index, node = self.reserve(value)
        node["t"] = tag
        node.update(fill())
        return {"r": index}

    def items_of(self, values: Iterable[Any], depth: int) -> list[Any]:
        return [self.value(item, depth) for item in values]

    def _pairs(self, pairs: Iterable[tuple[Any, Any]], depth: int) -> list[list[Any]]:
        return [[self.value(k, depth), self.value(v, depth)] for k, v in pairs]

    def _new(self, value: Any, kind: type, depth: int) -> Any:
        # Classified by ``type(value)`` only: ``isinstance`` would read ``__class__``,
        # and nothing the script defined may run while its state is read.
        plain = self._plain(value, kind, depth)
        if plain is not None:
            return plain
        if issubclass(kind, (ModuleProxy, types.ModuleType)):
            return self.add(value, {"t": "module", "name": module_name(value)})
        if kind is types.FunctionType and value.__globals__ is self.runtime.globals:
            return self._function(value, depth)
        if issubclass(kind, type) and is_script_class(value):
            return self._class(value, depth)
        if is_script_class(kind):
            return self._instance(value, kind, depth)
        if kind is typing.TypeVar:  # made by an assignment that can run again
            key = self._definition(self._sources.of_assignment, value.__name__)
            index, node = self.reserve(value)
            node.update({"t": "defined", "def": key})
            self._def_nodes.append(node)
            return {"r": index}
        data = snapshot_data.encode(self, value, kind, depth)
        if data is not None:
            return data
        member = self._members.node(value)
        if member is not None:
            return self.add(value, member)
        for types_, reason in _NOT_KEPT:
            if issubclass(kind, types_):
                raise Unkeepable(reason)
        raise Unkeepable(f"a {kind.__name__} has no snapshot form")

    def _plain(self, value: Any, kind: type, depth: int) -> Any:
        """The standard library's values, or None."""
        if kind is float:
            return self.add(value, {"t": "float", "v": repr(value)})
        if kind is list:
            return self.filled(value, "list", lambda: {"items": self.items_of(value, depth)})
        if kind is dict:
            return self.filled(
                value, "dict", lambda: {"items": self._pairs(dict.items(value), depth)}
            )
        if kind is tuple or kind is frozenset:
            tag = "tuple" if kind is tuple else "frozenset"
            return self.add(value, {"t": tag, "items": self.items_of(value, depth)})
        if kind is set:
            return self.filled(value, "set", lambda: {"items": self.items_of(value, depth)})
        if kind is bytes:
            return self.add(value, {"t": "bytes", "b64": _b64(value)})
        if kind is bytearray:
            return self.filled(value, "bytearray", lambda: {"b64": _b64(bytes(value))})
        if kind is complex:
            return self.add(value, {"t": "complex", "re": repr(value.real), "im": repr(value.imag)})
        if kind is range:
            return self.add(value, {"t": "range", "args": [value.start, value.stop, value.step]})
        if kind is collections.deque:
            return self.filled(
                value,
                "deque",
                lambda: {"items": self.items_of(value, depth), "maxlen": value.maxlen},
            )
        if kind in (collections.OrderedDict, collections.Counter):
            tag = "ordereddict" if kind is collections.OrderedDict else "counter"
            return self.filled(value, tag, lambda: {"items": self._pairs(dict.items(value), depth)})
        if kind is collections.defaultdict:
            return self.filled(
                value,
                "defaultdict",
                lambda: {
                    "factory": self.value(value.default_factory, depth),
                    "items": self._pairs(dict.items(value), depth),
                },
            )
        if kind is types.SimpleNamespace:
            return self.filled(
                value, "namespace", lambda: {"state": self._pairs(vars(value).items(), depth)}
            )
        return self._time_or_number(value, kind)

    def _time_or_number(self, value: Any, kind: type) -> Any:
        if kind is datetime.datetime or kind is datetime.time:
            zone = value.tzinfo
            if zone is not None and type(zone) is not datetime.timezone:
                raise Unkeepable("a time with a time zone other than a fixed offset")
            tag = "datetime" if kind is datetime.datetime else "time"
            return self.add(value, {"t": tag, "iso": value.isoformat(), "fold": value.fold})
        if kind is datetime.date:
            return self.add(value, {"t": "date", "iso": value.isoformat()})
        if kind is datetime.timedelta:
            parts = [value.days, value.seconds, value.microseconds]
            return self.add(value, {"t": "timedelta", "args": parts})
        if kind is decimal.Decimal:
            return self.add(value, {"t": "decimal", "v": str(value)})
        if kind is fractions.Fraction:
            return self.add(value, {"t": "fraction", "args": [value.numerator, value.denominator]})
        return None

    # -- the script's own functions, classes and objects ---------------------------------
    def _function(self, fn: types.FunctionType, depth: int) -> dict[str, int]:
        if fn.__closure__ or fn.__qualname__ not in (fn.__name__, "<lambda>"):
            raise Unkeepable("a function defined inside another function")
        key = self._definition(self._sources.of_function, fn)
        index, node = self.reserve(fn)
        node.update({"t": "function", "def": key})
        self._def_nodes.append(node)
        for field, part in (("defaults", fn.__defaults__), ("kwdefaults", fn.__kwdefaults__)):
            if part is not None:
                encoded = self._attempt(functools.partial(self.value, part, depth))
                if not isinstance(encoded, Unkeepable):
                    node[field] = encoded
        return {"r": index}

    def _class(self, cls: type, depth: int) -> dict[str, int]:
        if cls.__qualname__ != cls.__name__:
            raise Unkeepable("a class defined inside a function or another class")
        for base in cls.__bases__:
            if is_script_class(base):
                self.value(base, depth)  # defined before this one, when restored
        key = self._definition(self._sources.of_class, cls)
        index, node = self.reserve(cls)
        node.update({"t": "class", "def": key, "state": []})
        self._def_nodes.append(node)
        if not isinstance(cls, enum.EnumMeta):
            for name, member in list(vars(cls).items()):
                if name.startswith("_") or callable(member) or hasattr(type(member), "__get__"):
                    continue
                encoded = self._attempt(functools.partial(self.value, member, depth))
                if not isinstance(encoded, Unkeepable):
                    node["state"].append([name, encoded])
        return {"r": index}

    @staticmethod
    def _definition(find: Callable[[Any], Key], value: Any) -> Key:
        try:
            return find(value)
        except NoDefinition as exc:
            raise Unkeepable(str(exc)) from None

    def _instance(self, obj: Any, cls: type, depth: int) -> dict[str, int]:
        if issubclass(cls, enum.Enum):
            name = object.__getattribute__(obj, "_name_")
            return self.add(obj, {"t": "enum", "class": self.value(cls, depth), "name": name})
        foreign = foreign_bases(cls)
        if foreign and foreign != [tuple]:
            raise Unkeepable(f"an object of a class derived from {foreign[0].__name__}")
        index, node = self.reserve(obj)
        node.update({"t": "object", "class": self.value(cls, depth)})
        if foreign:  # a named tuple's fields
            node["items"] = self.items_of(tuple.__iter__(obj), depth)
        node["state"] = self._pairs(_attributes(obj, cls), depth)
        return {"r": index}

    # -- libraries -----------------------------------------------------------------------


def _attributes(obj: Any, cls: type) -> list[tuple[str, Any]]:
    """The attributes stored on ``obj``: its ``__dict__`` and its slots, read without
    calling anything the script defined."""
    pairs: list[tuple[str, Any]] = []
    try:
        pairs.extend(object.__getattribute__(obj, "__dict__").items())
    except AttributeError:
        pass
    for klass in cls.__mro__:
        slots = vars(klass).get("__slots__", ())
        for slot in (slots,) if isinstance(slots, str) else slots:
            descriptor = vars(klass).get(slot)
            if type(descriptor) is types.MemberDescriptorType:
                try:
                    pairs.append((slot, descriptor.__get__(obj, klass)))
                except AttributeError:
                    continue
    return pairs


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


#: Library bases that give an object no state of its own: an object of a script class
#: derived from them is kept as one of a plain script class.
_MARKERS = frozenset({abc.ABC, typing.Generic, typing.Protocol})


def foreign_bases(cls: type) -> list[type]:
    """The classes in ``cls``'s MRO that are neither the script's own nor markers."""
    return [
        k for k in cls.__mro__ if k is not object and k not in _MARKERS and not is_script_class(k)
    ]


def take(runtime: Any, language: bool) -> bytes:
    """The snapshot of ``runtime``'s state, as UTF-8 JSON."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, MAX_DEPTH * 8 + 200))
    try:
        document = Snapshotter(runtime, language).document()
        return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode(
            "utf-8", "replace"
        )
    finally:
        sys.setrecursionlimit(limit)
