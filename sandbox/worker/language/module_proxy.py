"""Generated proxies: what ``import x`` gives a script for a module without a
hand-written member list (the data modules and any module a user allows).

A generated proxy exposes the module's public members (its ``__all__`` where it has
one, else the names without a leading underscore) minus the deny list for that module
(``module_rules.deny_table``). A member that is itself a module is exposed only where
the policy allows that module by its real name (``numpy.linalg``; ``plt.cm`` is
``matplotlib.cm``), as the same proxy its import gives. Metaclasses and
capsules are left out, as in ``modules.py``. Objects the library returns are ordinary
objects under the run-time guards (private and dunder rules apply).

:func:`build_all` runs in the zygote, so that every worker inherits imported libraries:
first session pays nothing. Before importing it pins the libraries' thread pools to one
thread (the zygote must stay single-threaded to enter its user namespace, and a worker's
syscall filter forbids new threads) and gives matplotlib a private configuration.

Worker side: standard library only (the allowed modules are the user's choice).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import shutil
import sys
import tempfile
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from sandbox.worker.language import data_modules, modules
from sandbox.worker.language.classes import expose_classes
from sandbox.worker.language.control import ForbiddenImport
from sandbox.worker.language.data_modules import DATA_CATALOG
from sandbox.worker.language.membrane import safe_receivers, vetted
from sandbox.worker.language.modules import CATALOG, ModuleProxy, build_proxies


def _public(name: str) -> bool:
    return not any(part.startswith("_") for part in name.split("."))


def _matches(name: str, patterns: Iterable[str]) -> bool:
    for entry in patterns:
        if entry == "*" or name == entry.removesuffix(".*"):
            return True
        if entry.endswith(".*") and name.startswith(entry[:-1]):
            return True
    return False


class ModuleTable(dict[str, ModuleProxy]):
    """The proxies by module name; a name an allowed pattern covers is imported and
    given a generated proxy on first use (``import numpy.polynomial`` under ``numpy.*``)."""

    def __init__(
        self, proxies: Mapping[str, ModuleProxy], patterns: Iterable[str], deny: Mapping[str, Any]
    ) -> None:
        super().__init__(proxies)
        self._patterns = tuple(patterns)
        self._deny = deny
        #: The names allowed exactly, whose proxies are generated in the zygote.
        self.exact: frozenset[str] = frozenset()

    @property
    def patterns(self) -> tuple[str, ...]:
        """The allowed patterns (``pkg.*``, ``*``)."""
        return self._patterns

    def get(self, name: str, default: Any = None) -> Any:
        proxy = super().get(name)
        if proxy is not None or not self._patterns:
            return proxy if proxy is not None else default
        if not isinstance(name, str) or not _public(name) or not _matches(name, self._patterns):
            return default
        if name in CATALOG:
            return default  # a curated module is allowed by name only, with its own proxy
        try:
            importlib.import_module(name)
        except Exception as exc:
            raise ForbiddenImport(
                f"module {name!r} could not be imported: {exc}", name=name
            ) from None
        built = generate(name, self._allowed, self._deny, self)
        # Its parents were built without it: build them again so that ``import a.b``
        # (which hands out ``a``) reaches ``a.b`` as a member.
        parent = name.rpartition(".")[0]
        while parent and parent not in CATALOG and dict.__contains__(self, parent):
            dict.__delitem__(self, parent)
            generate(parent, self._allowed, self._deny, self)
            parent = parent.rpartition(".")[0]
        return built

    def _allowed(self, name: str) -> bool:
        if dict.__contains__(self, name) or name in self.exact:
            return True
        # A curated module only by name, with its hand-made proxy, never a generated one.
        return (
            name not in CATALOG
            and bool(self._patterns)
            and _public(name)
            and _matches(name, self._patterns)
        )


def make_import(proxies: ModuleTable) -> Callable[..., Any]:
    """The script's ``__import__``: the policy's proxies (``modules.make_import``), and
    the imports C code makes on the script's behalf.

    C code imports through the ``__import__`` of the running frame's builtins
    (``PyImport_Import``: numpy's ``x.mean()`` needs ``numpy._core._methods``), passing
    a list as ``fromlist`` — the compiler never does (a tuple or None) — and then takes
    the module from ``sys.modules`` itself, ignoring what ``__import__`` returned. Such
    an import is allowed for modules of a package the policy allows, and returns None:
    the script never receives a real module from it.
    """
    script_import = modules.make_import(proxies)
    allowed_tops = {name.partition(".")[0] for name in proxies} | {
        p.partition(".")[0] for p in proxies.patterns
    }

    def guarded_import(
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> Any:
        if type(fromlist) is list and type(name) is str and not level:
            top = name.partition(".")[0]
            if name not in sys.modules and (top in allowed_tops or "*" in allowed_tops):
                importlib.import_module(name)
            if top in allowed_tops or "*" in allowed_tops:
                return None
        return script_import(name, globals, locals, fromlist, level)

    return guarded_import


def _member_value(value: Any) -> Any:
    # Python functions (and other non-class descriptors) would bind to the proxy.
    if not isinstance(value, type) and hasattr(type(value), "__get__"):
        return staticmethod(value)
    return value


def _make(name: str, members: dict[str, Any], doc: Any) -> ModuleProxy:
    namespace: dict[str, Any] = {
        "__slots__": (),
        "__module__": "sandbox",
        "__doc__": doc if isinstance(doc, str) else None,
    }
    namespace.update((key, _member_value(value)) for key, value in members.items())
    cls = type(name, (ModuleProxy,), namespace)
    cls.__qualname__ = name
    safe_receivers(cls)
    return object.__new__(cls)


def generate(
    name: str,
    allowed: Callable[[str], bool],
    deny: Mapping[str, Iterable[str]],
    table: dict[str, ModuleProxy],
) -> ModuleProxy:
    """The generated proxy of the imported module ``name`` (stored in ``table``).

    Allowed submodules get their proxies first (from ``table`` where built already).
    """
    if dict.__contains__(table, name):
        return table[name]
    _building.add(name)
    try:
        return _generate(name, allowed, deny, table)
    finally:
        _building.discard(name)


#: Modules whose proxies are being built (a cycle of modules naming each other).
_building: set[str] = set()


def _generate(
    name: str,
    allowed: Callable[[str], bool],
    deny: Mapping[str, Iterable[str]],
    table: dict[str, ModuleProxy],
) -> ModuleProxy:
    module = sys.modules[name]
    denied = frozenset(deny.get(name, ()))
    public = getattr(module, "__all__", None)
    keys = public if isinstance(public, list | tuple) else dir(module)
    members: dict[str, Any] = {}
    for key in keys:
        if not isinstance(key, str) or key.startswith("_") or key in denied:
            continue
        try:
            value = getattr(module, key)
        except Exception:
            continue  # a lazily loaded member that does not load here
        if isinstance(value, types.ModuleType):
            # By its real name: ``plt.cm`` is ``matplotlib.cm``, exposed where the policy
            # allows that module (as the same proxy an import of it gives).
            child = getattr(value, "__name__", None)
            if (
                isinstance(child, str)
                and sys.modules.get(child) is value
                and not name.startswith(child + ".")  # a parent exposes its children
                and _public(child)
                and allowed(child)
            ):
                built = dict.get(table, child)
                if built is None and child not in _building:
                    built = generate(child, allowed, deny, table)
                if built is not None:
                    members[key] = built  # (a module being built, in a cycle: left out)
            continue
        if type(value).__name__ == "PyCapsule" or (
            isinstance(value, type) and issubclass(value, type)
        ):
            continue  # a capsule is a raw pointer; a metaclass creates classes from a dict
        members[key] = value
    for child, proxy in list(table.items()):
        if child.rpartition(".")[0] == name and child.rpartition(".")[2] not in denied:
            members.setdefault(child.rpartition(".")[2], proxy)
    members.update(data_modules.safe_members(name))
    members.update(modules.version_member(module))
    # Exposed before they are vetted: a member is a class the script can name.
    expose_classes(members.values())
    members = vetted(members)
    expose_classes(members.values())
    proxy = _make(name, members, module.__doc__)
    table[name] = proxy
    return proxy


def _denying(
    proxies: dict[str, ModuleProxy], deny: Mapping[str, Iterable[str]]
) -> dict[str, ModuleProxy]:
    """The curated proxies without the members a policy's ``[deny]`` names for them
    (the parents that expose a rebuilt submodule are rebuilt to expose the new one)."""
    replaced: dict[int, ModuleProxy] = {}
    for name in sorted(proxies, key=lambda n: -n.count(".")):
        cls = type(proxies[name])
        denied = frozenset(deny.get(name, ()))
        namespace = {
            key: replaced.get(id(value), value)
            for key, value in vars(cls).items()
            if key not in denied and key not in ("__dict__", "__weakref__")
        }
        if namespace == {
            k: v for k, v in vars(cls).items() if k not in ("__dict__", "__weakref__")
        }:
            continue
        new = type(cls.__name__, (ModuleProxy,), namespace)
        new.__qualname__ = cls.__qualname__
        safe_receivers(new)
        replaced[id(proxies[name])] = proxies[name] = object.__new__(new)
    return proxies


def prepare_environment() -> str | None:
    """Set the variables the libraries read at import; return matplotlib's config dir.

    The zygote starts with an empty environment, so these are all it has.
    """
    os.environ.update(data_modules.THREAD_ENVIRONMENT)
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        return None
    # Not the host's: the packaged defaults (not a matplotlibrc in the working
    # directory or the user's), the non-interactive backend, a private cache.
    os.environ["MATPLOTLIBRC"] = os.path.join(
        spec.submodule_search_locations[0], "mpl-data", "matplotlibrc"
    )
    os.environ["MPLBACKEND"] = "agg"
    config_dir = tempfile.mkdtemp(prefix="codeact-mpl-")
    os.environ["MPLCONFIGDIR"] = config_dir
    return config_dir


def build_all(config: Mapping[str, Any], provided: dict[str, dict[str, Any]]) -> ModuleTable:
    """Every proxy a policy allows: curated, data and generated (zygote, once)."""
    modules = list(config["modules"])
    extra = [n for n in config.get("extra_modules", []) if n not in CATALOG]
    patterns = [n for n in extra if n == "*" or n.endswith(".*")]
    exact = [n for n in extra if n not in patterns]
    data = [n for n in modules if n in DATA_CATALOG]
    deny: dict[str, list[str]] = dict(config.get("deny", {}))
    table = ModuleTable(
        # The hand-made proxies lose only what the policy itself denies: the shipped
        # lists are for modules no one curated.
        _denying(
            build_proxies([n for n in modules if n in CATALOG], provided),
            config.get("policy_deny", {}),
        ),
        patterns,
        deny,
    )
    if not (data or extra):
        return table
    config_dir = prepare_environment()
    try:
        wanted = [*data, *exact]
        table.exact = frozenset(wanted)
        for name in wanted:
            importlib.import_module(name)
        for pattern in patterns:
            if pattern != "*":
                importlib.import_module(pattern[:-2])
        # The string-evaluation paths close however the library was allowed (by name,
        # through the data catalog or a pattern).
        data_modules.prepare(frozenset(n.split(".")[0] for n in [*wanted, *patterns]))
        loaded = [n for n in list(sys.modules) if _public(n) and _matches(n, patterns)]
        names = sorted({*wanted, *loaded} - set(CATALOG), key=lambda n: -n.count("."))
        for name in names:
            generate(name, table._allowed, deny, table)
    finally:
        if config_dir is not None:
            shutil.rmtree(config_dir, ignore_errors=True)
    return table
