"""Values a snapshot names instead of describing: builtins and members of modules the
script may import (``collections.Counter``, ``math.sqrt``), for ``snapshot.py``.

A value is looked up, by identity, among the script's builtins, the members of the
modules its import statements name, the members a restore brought back, and where a
library value says it lives (``__module__``) — always through the script's own import,
so only what the policy lets it import is named.

Worker side: standard library only.
"""

from __future__ import annotations

import types
from typing import Any

from sandbox.worker.language.modules import ModuleProxy

#: Module members a restore brought back (by id; module members stay alive): a later
#: snapshot of the same worker names them so again, without the import statements.
_RESTORED_MEMBERS: dict[int, tuple[str, str]] = {}


def remember_member(value: Any, module: str, attr: str) -> None:
    """Note that ``value`` is ``module.attr`` (called by a restore)."""
    _RESTORED_MEMBERS[id(value)] = (module, attr)


class Members:
    """Names for the library values of one runtime."""

    def __init__(self, runtime: Any, imported: set[str]) -> None:
        self.runtime = runtime
        self._imported = imported
        self._members: dict[int, tuple[str, str]] | None = None
        self._alive: list[Any] = []
        scope = runtime.globals["__builtins__"]
        names = scope if isinstance(scope, dict) else vars(scope)
        self._builtins = {id(value): name for name, value in names.items()}

    def node(self, value: Any) -> dict[str, str] | None:
        """``value``'s ``builtin`` or ``member`` node, or None."""
        name = self._builtins.get(id(value))
        if name is not None:
            return {"t": "builtin", "name": name}
        if self._members is None:
            self._members = self._importable_members()
        where = (
            self._members.get(id(value))
            or _RESTORED_MEMBERS.get(id(value))
            or self._declared_home(value)
        )
        if where is None:
            return None
        return {"t": "member", "module": where[0], "attr": where[1]}

    def _declared_home(self, value: Any) -> tuple[str, str] | None:
        """Where a library class or function says it lives (``__module__``), or one of
        that module's parents, if the script may import it from there."""
        try:
            home, name = value.__module__, value.__name__
        except Exception:
            return None
        if not isinstance(home, str) or not isinstance(name, str):
            return None
        parts = home.split(".")
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
        names = set(self._imported) | {
            module_name(v)
            for v in self.runtime.globals.values()
            if issubclass(type(v), (ModuleProxy, types.ModuleType))
        }
        for name in sorted(names):
            module = self.runtime_import(name)
            if module is None:
                continue
            for attr in _public_names(module):
                try:
                    member = getattr(module, attr)
                except Exception:
                    continue
                found.setdefault(id(member), (name, attr))
                self._alive.append(member)
        return found

    def runtime_import(self, name: str) -> Any:
        """The module ``name`` as the script's import gives it, or None."""
        try:
            return import_module(self.runtime, name)
        except Exception:
            return None


def module_name(module: Any) -> str:
    """The name a module (or the sandbox's proxy of one) is imported by."""
    if isinstance(module, types.ModuleType):
        return module.__name__
    return str(type(module).__qualname__)


def import_module(runtime: Any, name: str) -> Any:
    """``name`` as ``import name`` gives it to the script (its own import function)."""
    scope = runtime.globals["__builtins__"]
    importer = scope["__import__"] if isinstance(scope, dict) else scope.__import__
    module = importer(name, runtime.globals, None, ("__doc__",), 0)
    if module is None:
        raise ImportError(name)
    return module


def _public_names(module: Any) -> list[str]:
    names = dir(type(module)) if isinstance(module, ModuleProxy) else list(vars(module))
    return [n for n in names if not n.startswith("_")]
