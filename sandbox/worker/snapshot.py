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

import ast
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
from collections.abc import Callable, Iterable
from typing import Any

from sandbox.protocol import SNAPSHOT_FORMAT
from sandbox.worker import snapshot_data
from sandbox.worker.language.classes import is_script_class
from sandbox.worker.language.modules import ModuleProxy

#: Every tag a node may carry (restore.py builds exactly these).
TAGS = frozenset(
    {
        "float", "complex", "bytes", "bytearray", "list", "tuple", "dict", "set", "frozenset",
        "range", "deque", "ordereddict", "counter", "defaultdict", "namespace", "datetime",
        "date", "time", "timedelta", "decimal", "fraction", "module", "member", "builtin",
        "function", "class", "object", "enum", "ndarray", "npscalar", "dataframe", "series",
        "index", "rangeindex", "extarray", "timestamp", "nat", "na", "pdtimedelta",
    }
)  # fmt: skip
#: How deeply values may nest (the restore side holds to the same bound).
MAX_DEPTH = 100
_DEFINING = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign)
_NOT_KEPT: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (io.IOBase, "an open file"),
    ((types.GeneratorType, types.AsyncGeneratorType), "a generator, which cannot be resumed"),
    (types.CoroutineType, "a coroutine, which cannot be resumed"),
)


#: Module members a restore brought back (by id; module members stay alive): a later
#: snapshot of the same worker names them so again, without the import statements.
_RESTORED_MEMBERS: dict[int, tuple[str, str]] = {}


def remember_member(value: Any, module: str, attr: str) -> None:
    """Note that ``value`` is ``module.attr`` (called by a restore)."""
    _RESTORED_MEMBERS[id(value)] = (module, attr)


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
        self._definitions: dict[tuple[str, int], dict[str, Any]] = {}
        self._def_nodes: list[dict[str, Any]] = []
        self._trees: dict[str, ast.Module | None] = {}
        self._members: dict[int, tuple[str, str]] | None = None
        scope = runtime.globals["__builtins__"]
        names = scope if isinstance(scope, dict) else vars(scope)
        self._builtins = {id(value): name for name, value in names.items()}

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
        order = sorted(self._definitions, key=self._run_order)
        index = {key: i for i, key in enumerate(order)}
        for node in self._def_nodes:
            node["def"] = index[node["def"]]
        return {
            "format": SNAPSHOT_FORMAT,
            "version": 1,
            "language": self.language,
            "variables": list(kept),
            "lost": lost,
            "definitions": [self._definitions[key] for key in order],
            "objects": self.objects,
            "globals": kept,
        }

    def _attempt(self, encode: Callable[[], Any]) -> Any:
        """``encode()``, or the Unkeepable it raised with every entry it added undone."""
        marks = (len(self.objects), len(self._alive), dict(self._definitions), len(self._def_nodes))
        try:
            return encode()
        except (Unkeepable, RecursionError, MemoryError) as exc:
            del self.objects[marks[0] :]
            self._memo = {k: v for k, v in self._memo.items() if v < marks[0]}
            del self._alive[marks[1] :]
            self._definitions = marks[2]
            del self._def_nodes[marks[3] :]
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
            return self.add(value, {"t": "module", "name": self._module_name(value)})
        if kind is types.FunctionType and value.__globals__ is self.runtime.globals:
            return self._function(value, depth)
        if issubclass(kind, type) and is_script_class(value):
            return self._class(value, depth)
        if is_script_class(kind):
            return self._instance(value, kind, depth)
        data = snapshot_data.encode(self, value, kind, depth)
        if data is not None:
            return data
        member = self._member(value)
        if member is not None:
            return member
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
        code = fn.__code__
        if fn.__closure__ or fn.__qualname__ not in (fn.__name__, "<lambda>"):
            raise Unkeepable("a function defined inside another function")
        key = self._statement(code.co_filename, code.co_firstlineno, fn.__name__)
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
        key = self._class_statement(cls)
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

    def _instance(self, obj: Any, cls: type, depth: int) -> dict[str, int]:
        if issubclass(cls, enum.Enum):
            name = object.__getattribute__(obj, "_name_")
            return self.add(obj, {"t": "enum", "class": self.value(cls, depth), "name": name})
        foreign = [k for k in cls.__mro__ if k is not object and not is_script_class(k)]
        if foreign and foreign != [tuple]:
            raise Unkeepable(f"an object of a class derived from {foreign[0].__name__}")
        index, node = self.reserve(obj)
        node.update({"t": "object", "class": self.value(cls, depth)})
        if foreign:  # a named tuple's fields
            node["items"] = self.items_of(tuple.__iter__(obj), depth)
        node["state"] = self._pairs(_attributes(obj, cls), depth)
        return {"r": index}

    def _run_order(self, key: tuple[str, int]) -> tuple[int, int]:
        files = self.runtime.script_files()
        return (files.index(key[0]) if key[0] in files else len(files), key[1])

    def _tree(self, filename: str) -> ast.Module | None:
        if filename not in self._trees:
            lines = self.runtime.script_lines(filename)
            try:
                self._trees[filename] = None if lines is None else ast.parse("\n".join(lines))
            except (SyntaxError, ValueError, RecursionError):
                self._trees[filename] = None
        return self._trees[filename]

    def _statement(self, filename: str, line: int, name: str) -> tuple[str, int]:
        """The top-level statement of ``filename`` that defined ``name`` at ``line``."""
        tree = self._tree(filename)
        for stmt in tree.body if tree is not None else []:
            start = _start(stmt)
            if isinstance(stmt, _DEFINING) and start <= line <= (stmt.end_lineno or start):
                binds = _binding(stmt)
                if binds is not None and (binds == name or name == "<lambda>"):
                    return self._define(filename, stmt, start, binds)
        raise Unkeepable("defined by a statement that cannot be run again on its own")

    def _class_statement(self, cls: type) -> tuple[str, int]:
        """Found through one of its methods, or else as the latest statement that
        defined a class of its name."""
        for member in vars(cls).values():
            fn = _method_function(member)
            if fn is not None and fn.__globals__ is self.runtime.globals:
                code = fn.__code__
                return self._statement(code.co_filename, code.co_firstlineno, cls.__name__)
        for filename in reversed(self.runtime.script_files()):
            tree = self._tree(filename)
            for stmt in reversed(tree.body if tree is not None else []):
                if isinstance(stmt, _DEFINING) and _binding(stmt) == cls.__name__:
                    return self._define(filename, stmt, _start(stmt), cls.__name__)
        raise Unkeepable("a class whose definition was not found")

    def _define(self, filename: str, stmt: ast.stmt, start: int, binds: str) -> tuple[str, int]:
        key = (filename, start)
        if key not in self._definitions:
            lines = self.runtime.script_lines(filename) or []
            source = "\n".join(lines[start - 1 : stmt.end_lineno])
            self._definitions[key] = {"source": source, "binds": binds}
        return key

    # -- libraries -----------------------------------------------------------------------
    def _module_name(self, module: Any) -> str:
        if isinstance(module, types.ModuleType):
            return module.__name__
        return str(type(module).__qualname__)

    def _member(self, value: Any) -> dict[str, int] | None:
        """A builtin or a member of an importable module, named so."""
        name = self._builtins.get(id(value))
        if name is not None:
            return self.add(value, {"t": "builtin", "name": name})
        if self._members is None:
            self._members = self._importable_members()
        where = (
            self._members.get(id(value))
            or _RESTORED_MEMBERS.get(id(value))
            or self._declared_home(value)
        )
        if where is None:
            return None
        return self.add(value, {"t": "member", "module": where[0], "attr": where[1]})

    def _declared_home(self, value: Any) -> tuple[str, str] | None:
        """Where a library class or function says it lives (``__module__``), or one of
        that module's parents, if the script may import it from there."""
        try:
            module_name, name = value.__module__, value.__name__
        except Exception:
            return None
        if not isinstance(module_name, str) or not isinstance(name, str):
            return None
        parts = module_name.split(".")
        for end in range(len(parts), 0, -1):
            module = self.runtime_import(".".join(parts[:end]))
            try:
                if module is not None and getattr(module, name) is value:
                    return ".".join(parts[:end]), name
            except Exception:
                continue
        return None

    def _importable_members(self) -> dict[int, tuple[str, str]]:
        found: dict[int, tuple[str, str]] = {}
        names = {
            self._module_name(v)
            for v in self.runtime.globals.values()
            if isinstance(v, (ModuleProxy, types.ModuleType))
        }
        for filename in self.runtime.script_files():
            tree = self._tree(filename)
            for node in ast.walk(tree) if tree is not None else ():
                if isinstance(node, ast.Import):
                    names.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names.add(node.module)
                    names.update(f"{node.module}.{alias.name}" for alias in node.names)
        for module_name in sorted(names):
            module = self.runtime_import(module_name)
            if module is None:
                continue
            for attr in _public_names(module):
                try:
                    member = getattr(module, attr)
                except Exception:
                    continue
                found.setdefault(id(member), (module_name, attr))
                self._alive.append(member)
        return found

    def runtime_import(self, name: str) -> Any:
        """The module ``name`` as the script's import gives it, or None."""
        try:
            return import_module(self.runtime, name)
        except Exception:
            return None


def import_module(runtime: Any, name: str) -> Any:
    """``name`` as ``import name`` gives it to the script (its own import function)."""
    scope = runtime.globals["__builtins__"]
    importer = scope["__import__"] if isinstance(scope, dict) else scope.__import__
    module = importer(name, runtime.globals, None, ("__doc__",), 0)
    if module is None:
        raise ImportError(name)
    return module


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


def _method_function(member: Any) -> types.FunctionType | None:
    """The function behind a class member that is a method (of any kind), or None."""
    kind = type(member)
    if kind in (staticmethod, classmethod):
        member = member.__func__
    elif kind is property:
        member = member.fget
    return member if type(member) is types.FunctionType else None


def _start(stmt: ast.stmt) -> int:
    """The first line of a statement, its decorators included."""
    decorators = getattr(stmt, "decorator_list", [])
    return int(min([stmt.lineno, *(d.lineno for d in decorators)]))


def _binding(stmt: ast.stmt) -> str | None:
    """The one name a defining statement binds, or None."""
    if isinstance(stmt, ast.Assign):
        targets = stmt.targets
        return targets[0].id if len(targets) == 1 and isinstance(targets[0], ast.Name) else None
    return (
        stmt.name
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        else None
    )


def _public_names(module: Any) -> list[str]:
    names = dir(type(module)) if isinstance(module, ModuleProxy) else list(vars(module))
    return [n for n in names if not n.startswith("_")]


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


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
