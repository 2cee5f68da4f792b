"""Rebuilding a snapshot's state in a fresh worker: the other half of ``snapshot.py``.

The snapshot came from the host, which got it from a caller: it is treated as hostile.
Only the node tags of ``snapshot.TAGS`` are built, each by one function here that
checks its fields and calls one known constructor; a function or class is its
definition run again as a script, compiled and guarded by the language layer and held
to the run's CPU limit like any script; an object of a script class gets its class from
such a definition and its attributes under the names a script could give them; modules
and their members come through the script's own import, so a policy that does not
allow a module does not get it back from a snapshot either. A malformed snapshot is
refused as a whole (:class:`SnapshotRefused`); a value that cannot be rebuilt under this
policy (a module it does not allow, a definition that fails) costs its variable only,
which is reported with the reason.

The order: the values that need no definition first (so that a definition may use
them, as its default values or decorators did), then the definitions in the order they
first ran, then the rest.

Worker side: standard library only.
"""

from __future__ import annotations

import enum
import json
import re
import sys
import types
from collections.abc import Callable
from typing import Any

from sandbox.protocol import SNAPSHOT_FORMAT
from sandbox.worker import restore_data, restore_plain
from sandbox.worker.language.classes import is_script_class
from sandbox.worker.snapshot import MAX_DEPTH, foreign_bases
from sandbox.worker.snapshot_members import import_module, remember_member
from sandbox.worker.snapshot_nodes import (
    NotRebuilt,
    SnapshotRefused,
    attribute_name,
    field,
    refuse,
)

_MODULE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")
_NEEDS_DEFINITION = frozenset({"function", "class", "object", "enum", "defined"})
_MISSING = object()

__all__ = ["NotRebuilt", "Restorer", "SnapshotRefused", "restore"]


class Restorer:
    """Rebuilds one snapshot document into ``runtime``'s globals."""

    def __init__(self, runtime: Any, document: Any) -> None:
        refuse(type(document) is dict, "not a JSON object")
        refuse(document.get("format") == SNAPSHOT_FORMAT, "not a session snapshot")
        refuse(document.get("version") == 1, "an unknown version")
        self.runtime = runtime
        self.objects: list[Any] = field(document, "objects", list)
        self.globals: dict[str, Any] = field(document, "globals", dict)
        self.definitions: list[Any] = field(document, "definitions", list)
        earlier = field(document, "lost", list)
        self.lost: list[dict[str, str]] = []
        for entry in earlier:
            refuse(type(entry) is dict, "a lost entry")
            self.lost.append(
                {"name": field(entry, "name", str), "reason": field(entry, "reason", str)}
            )
        self.built: dict[int, Any] = {}
        self._building: set[int] = set()
        self._defined: dict[int, Any] = {}
        self._failed: dict[int, str] = {}
        self._needs: dict[int, bool] = {}
        scope = runtime.globals["__builtins__"]
        self.builtins = scope if isinstance(scope, dict) else vars(scope)

    # -- the order ---------------------------------------------------------------------
    def restore(self) -> list[str]:
        """Rebuild everything; the names of the variables rebuilt."""
        names = list(self.globals)
        for name in names:
            refuse(type(name) is str, "a variable name")
        later = [n for n in names if self._needs_definition(self.globals[n], 0)]
        restored = [self._bind(n) for n in names if n not in later]
        introduced = self._run_definitions()
        restored += [self._bind(n) for n in later]
        kept = {name for name in restored if name is not None}
        for name in introduced - kept:
            self.runtime.globals.pop(name, None)  # bound by a definition, gone since
        return [name for name in names if name in kept]

    def _bind(self, name: str) -> str | None:
        try:
            target = attribute_name(name)
            if target in self.runtime.installed:
                raise NotRebuilt("the sandbox binds this name itself")
            self.runtime.globals[target] = self.value(self.globals[name], 0)
        except SnapshotRefused:
            raise
        except NotRebuilt as exc:
            self.lost.append({"name": name, "reason": str(exc)})
            return None
        except Exception as exc:  # a constructor refused what the snapshot holds
            reason = f"it could not be rebuilt: {type(exc).__name__}: {exc}"
            self.lost.append({"name": name, "reason": reason[:300]})
            return None
        return target

    def _needs_definition(self, value: Any, depth: int) -> bool:
        refuse(depth <= MAX_DEPTH * 2, "nested too deeply")
        if type(value) is dict:
            if set(value) == {"r"} and type(value["r"]) is int:
                index = value["r"]
                if index not in self._needs:
                    self._needs[index] = False  # a cycle back here adds nothing
                    refuse(0 <= index < len(self.objects), "a reference out of range")
                    node = self.objects[index]
                    refuse(type(node) is dict, "an object entry")
                    self._needs[index] = node.get("t") in _NEEDS_DEFINITION or any(
                        self._needs_definition(v, depth + 1) for v in node.values()
                    )
                return self._needs[index]
            return any(self._needs_definition(v, depth + 1) for v in value.values())
        if type(value) is list:
            return any(self._needs_definition(v, depth + 1) for v in value)
        return False

    def _run_definitions(self) -> set[str]:
        """Run every definition, again while some that missed a name may now find it
        (bound by another); the names they bound that were not there."""
        introduced: set[str] = set()
        pending = list(range(len(self.definitions)))
        while pending:
            failed = [i for i in pending if not self._define(i, introduced)]
            retry = [i for i in failed if "NameError" in self._failed.get(i, "")]
            if len(failed) == len(pending) or not retry:
                break
            pending = retry
        return introduced

    def _define(self, index: int, introduced: set[str]) -> bool:
        entry = self.definitions[index]
        refuse(type(entry) is dict, "a definition")
        source, binds = field(entry, "source", str), field(entry, "binds", str)
        refuse(binds.isidentifier(), "the name a definition binds")
        before = self.runtime.globals.get(binds, _MISSING)
        done = self.runtime.run(source)
        if done.get("error_code") is not None:
            self._failed[index] = _error_message(done.get("output"))
            return False
        value = self.runtime.globals.get(binds, _MISSING)
        if value is _MISSING:
            self._failed[index] = f"its definition did not bind {binds!r}"
            return False
        if before is _MISSING:
            introduced.add(binds)
        self._defined[index] = value
        self._failed.pop(index, None)
        return True

    def definition(self, node: dict[str, Any]) -> Any:
        index = field(node, "def", int)
        refuse(0 <= index < len(self.definitions), "a definition index")
        if index not in self._defined:
            raise NotRebuilt(f"its definition failed: {self._failed.get(index, 'not run')}")
        return self._defined[index]

    # -- values ------------------------------------------------------------------------
    def value(self, value: Any, depth: int) -> Any:
        kind = type(value)
        if value is None or kind in (bool, int, str, float):
            return value
        refuse(kind is dict and set(value) == {"r"} and type(value["r"]) is int, "a value")
        return self.entry(value["r"], depth + 1)

    def entry(self, index: int, depth: int) -> Any:
        found = self.built.get(index, _MISSING)
        if found is not _MISSING:
            return found
        refuse(0 <= index < len(self.objects), "a reference out of range")
        refuse(index not in self._building, "a value that contains itself")
        refuse(depth <= MAX_DEPTH * 2, "nested too deeply")
        node = self.objects[index]
        refuse(type(node) is dict and type(node.get("t")) is str, "an object entry")
        build = _BUILDERS.get(node["t"]) or restore_data.BUILDERS.get(node["t"])
        refuse(build is not None, f"unknown tag {node.get('t')!r}")
        assert build is not None
        self._building.add(index)
        try:
            made = build(self, index, node, depth)
        finally:
            self._building.discard(index)
        self.built[index] = made
        return made

    def items(self, node: dict[str, Any], depth: int, name: str = "items") -> list[Any]:
        return [self.value(v, depth) for v in field(node, name, list)]

    def pairs(self, node: dict[str, Any], depth: int, name: str = "items") -> list[tuple[Any, Any]]:
        out = []
        for pair in field(node, name, list):
            refuse(type(pair) is list and len(pair) == 2, "a pair")
            out.append((self.value(pair[0], depth), self.value(pair[1], depth)))
        return out

    def filled(self, index: int, made: Any, fill: Callable[[], None]) -> Any:
        """Register a mutable value before its parts (cycles), then fill it."""
        self.built[index] = made
        fill()
        return made

    def import_(self, name: Any) -> Any:
        refuse(type(name) is str and _MODULE_NAME.fullmatch(name) is not None, "a module name")
        try:
            return import_module(self.runtime, name)
        except Exception:
            raise NotRebuilt(f"the module {name!r} cannot be imported under this policy") from None


Builder = Callable[[Restorer, int, dict[str, Any], int], Any]


def _builtin(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    name = field(n, "name", str)
    if name.startswith("_") or name not in r.builtins:
        raise NotRebuilt(f"the builtin {name!r} is not available under this policy")
    return r.builtins[name]


def _member(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    module, attr = r.import_(field(n, "module", str)), field(n, "attr", str)
    refuse(attr.isidentifier() and not attr.startswith("_"), "a member name")
    try:
        value = getattr(module, attr)
    except AttributeError:
        raise NotRebuilt(f"{n['module']}.{attr} is not available under this policy") from None
    remember_member(value, n["module"], attr)
    return value


def _function(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    fn = r.definition(n)
    if type(fn) is not types.FunctionType or fn.__globals__ is not r.runtime.globals:
        raise NotRebuilt("its definition did not make a function")
    r.built[i] = fn
    if "defaults" in n:
        defaults = r.value(n["defaults"], d)
        refuse(type(defaults) is tuple, "a function's defaults")
        fn.__defaults__ = defaults
    if "kwdefaults" in n:
        kwdefaults = r.value(n["kwdefaults"], d)
        refuse(type(kwdefaults) is dict and all(type(k) is str for k in kwdefaults), "defaults")
        fn.__kwdefaults__ = kwdefaults
    return fn


def _class(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    cls = r.definition(n)
    if not isinstance(cls, type) or not is_script_class(cls):
        raise NotRebuilt("its definition did not make a class")
    r.built[i] = cls
    for name, value in r.pairs(n, d, "state"):
        setattr(cls, attribute_name(name, private=False), value)
    return cls


def _object(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    cls = r.value(n.get("class"), d)
    refuse(isinstance(cls, type), "an object's class")
    foreign = foreign_bases(cls)
    if "items" in n:
        if foreign != [tuple]:
            raise NotRebuilt("the class of a named tuple changed")
        made = tuple.__new__(cls, r.items(n, d))
    elif foreign or issubclass(cls, enum.Enum):
        raise NotRebuilt("an object of a class that is not the script's own alone")
    else:
        try:
            made = object.__new__(cls)
        except TypeError as exc:
            raise NotRebuilt(f"its class cannot be instantiated: {exc}") from None
    r.built[i] = made
    for name, value in r.pairs(n, d, "state"):
        _set_attribute(made, cls, attribute_name(name), value)
    return made


def _set_attribute(obj: Any, cls: type, name: str, value: Any) -> None:
    """Store an attribute as the object held it: in its ``__dict__`` or in a slot,
    without calling a ``__setattr__`` the script defined."""
    for klass in cls.__mro__:
        descriptor = vars(klass).get(name)
        if type(descriptor) is types.MemberDescriptorType:
            descriptor.__set__(obj, value)
            return
    try:
        object.__getattribute__(obj, "__dict__")[name] = value
    except AttributeError:
        raise NotRebuilt(f"its object has no place for the attribute {name!r}") from None


def _enum(r: Restorer, i: int, n: dict[str, Any], d: int) -> Any:
    cls = r.value(n.get("class"), d)
    refuse(isinstance(cls, type) and issubclass(cls, enum.Enum), "an enum's class")
    member = vars(cls).get("_member_map_", {}).get(field(n, "name", str))
    if member is None:
        raise NotRebuilt(f"{cls.__name__} has no member {n['name']!r} any more")
    return member


_BUILDERS: dict[str, Builder] = {
    **restore_plain.BUILDERS,
    "module": lambda r, i, n, d: r.import_(n.get("name")),
    "member": _member,
    "builtin": _builtin,
    "function": _function,
    "defined": lambda r, i, n, d: r.definition(n),
    "class": _class,
    "object": _object,
    "enum": _enum,
}


def _error_message(output: Any) -> str:
    if isinstance(output, str):
        try:
            output = json.loads(output)
        except ValueError:
            return "it failed"
    message = output.get("message") if isinstance(output, dict) else None
    return str(message or "it failed").strip().splitlines()[-1][:300]


def restore(runtime: Any, data: bytes) -> tuple[list[str], list[dict[str, str]]]:
    """Rebuild the snapshot ``data`` into ``runtime``: the variables rebuilt, and the
    ones lost (the snapshot's own and those that failed here). Raises SnapshotRefused."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, MAX_DEPTH * 16 + 200))
    try:
        try:
            document = json.loads(data)
        except (ValueError, RecursionError):
            raise SnapshotRefused("the snapshot is not valid JSON") from None
        restorer = Restorer(runtime, document)
        try:
            variables = restorer.restore()
        except RecursionError:
            raise SnapshotRefused("malformed snapshot: nested too deeply") from None
        return variables, restorer.lost
    finally:
        sys.setrecursionlimit(limit)
