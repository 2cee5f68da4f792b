"""Module proxies: what ``import x`` gives a script.

A script never holds a real module. Each importable module is a frozen proxy exposing
an explicit set of members; a member that is itself a module is never exposed
(submodules exist only as their own catalog entries, such as ``collections.abc``).
Members are the module's ``__all__`` where it has one (its other names are what it
imported for itself), else its public names. Members that reach host state are left
out or replaced:

- ``functools.update_wrapper``/``wraps`` accept only the default attribute lists and
  only a wrapper the script may modify; ``abc.abstractmethod``, ``typing.final`` and
  the other decorators that store on their argument take only the script's own
  functions and classes;
- ``functools.singledispatch`` registers by annotation without evaluating strings
  (``typing.get_type_hints`` would); ``singledispatchmethod`` is left out;
- ``operator.attrgetter``/``methodcaller`` go through the attribute guard;
- ``copy`` exposes ``copy``/``deepcopy`` only (no dispatch table, no ``memo``);
- ``dataclasses.dataclass`` takes only the script's own classes, whose field names are
  identifiers (they become source code);
- ``enum``'s base classes create enums by the functional API only with plain member
  names (no dunders such as ``__reduce_ex__`` or ``__annotations__``);
- metaclasses (``typing.ABCMeta``...) are never exposed: they are ``type`` with three
  arguments;
- ``random`` is a per-session generator, reseeded in every worker;
- ``string.Formatter``, ``typing.get_type_hints``/``ForwardRef`` (they evaluate
  strings), ``time.clock_settime``, ``dataclasses.make_dataclass`` and
  ``enum.global_enum`` are left out.

Worker side: standard library only.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import random
import sys
import types
from collections.abc import Callable, Iterable
from typing import Any

from sandbox.worker.language import formatters
from sandbox.worker.language.classes import expose_classes, show_as
from sandbox.worker.language.control import ForbiddenImport, ForbiddenModule
from sandbox.worker.language.membrane import safe_receivers, vetted
from sandbox.worker.language.names import name_error
from sandbox.worker.language.script_asyncio import members as script_asyncio_members
from sandbox.worker.language.stdlib_members import EXTRA, MEMBERS
from sandbox.worker.language.stdlib_safe import REPLACED
from sandbox.worker.language.sysproxy import redirect_stderr, redirect_stdout, sys_members

#: Members never exposed, per module (on top of underscore names and submodules).
_DENIED: dict[str, frozenset[str]] = {
    "copy": frozenset({"dispatch_table", "PyStringMap"}),
    "dataclasses": frozenset({"make_dataclass"}),
    "enum": frozenset(
        {
            "global_enum",
            "global_enum_repr",
            "global_flag_repr",
            "global_str",
            "EnumMeta",
            "EnumType",
            "ReprEnum",
        }
    ),
    "functools": frozenset({"RLock", "GenericAlias", "recursive_repr", "singledispatchmethod"}),
    "string": frozenset({"Formatter"}),
    "time": frozenset({"clock_settime", "clock_settime_ns", "tzset", "pthread_getcpuclockid"}),
    "typing": frozenset(
        {
            "get_type_hints",
            "ForwardRef",
            "evaluate_forward_ref",
            "get_overloads",
            "clear_overloads",
        }
    ),
    "random": frozenset(),
}

#: Every module a policy may allow.
CATALOG: tuple[str, ...] = (
    "abc",
    "bisect",
    "cmath",
    "collections",
    "collections.abc",
    "copy",
    "dataclasses",
    "datetime",
    "decimal",
    "enum",
    "fractions",
    "functools",
    "heapq",
    "itertools",
    "json",
    "math",
    "os",
    "os.path",
    "pathlib",
    "operator",
    "random",
    "re",
    "statistics",
    "string",
    "textwrap",
    "time",
    "typing",
    "unicodedata",
    "sys",
    "asyncio",
    *MEMBERS,
)

_RANDOM_MEMBERS = [
    "betavariate",
    "binomialvariate",
    "choice",
    "choices",
    "expovariate",
    "gammavariate",
    "gauss",
    "getrandbits",
    "lognormvariate",
    "normalvariate",
    "paretovariate",
    "randbytes",
    "randint",
    "random",
    "randrange",
    "sample",
    "seed",
    "shuffle",
    "triangular",
    "uniform",
    "vonmisesvariate",
    "weibullvariate",
]


class ModuleProxy:
    """Base of the sandbox's module objects: read-only, members as class attributes."""

    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError("modules cannot be created in the sandbox; use import")

    def __getattr__(self, name: str) -> Any:
        # Reached only for missing members. No ``__name__`` on purpose: the interpreter's
        # ``from m import x`` fallback would look ``m.x`` up in the real sys.modules.
        raise AttributeError(
            f"module {type(self).__qualname__!r} has no attribute {name!r} in the sandbox"
        )

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"module {type(self).__qualname__!r} is read-only in the sandbox")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"module {type(self).__qualname__!r} is read-only in the sandbox")

    def __repr__(self) -> str:
        return f"<module {type(self).__qualname__!r}>"


def _make_proxy(name: str, members: dict[str, Any], doc: str | None) -> ModuleProxy:
    # ``from m import *`` binds the names in ``__all__``: the members a script may bind.
    star = tuple(key for key in members if name_error(key, None) is None)
    namespace: dict[str, Any] = {
        "__slots__": (),
        "__module__": "sandbox",
        "__doc__": doc,
        "__all__": star,
    }
    for key, value in vetted(members).items():
        # Python functions are descriptors: keep them from binding to the proxy.
        namespace[key] = staticmethod(value) if isinstance(value, types.FunctionType) else value
    cls = type(name, (ModuleProxy,), namespace)
    cls.__qualname__ = name
    safe_receivers(cls)
    return object.__new__(cls)


def _public_members(module: types.ModuleType, denied: Iterable[str]) -> dict[str, Any]:
    denied = frozenset(denied)
    members = {}
    # A module's ``__all__`` is its public interface; the rest of its namespace holds
    # what it imported for itself (``typing.abstractmethod``, ``typing``'s internal
    # ``EXCLUDED_ATTRIBUTES`` list, ``dataclasses.FunctionType``).
    public = getattr(module, "__all__", None)
    for key in dir(module) if public is None else public:
        if key.startswith("_") or key in denied:
            continue
        value = getattr(module, key)
        if isinstance(value, types.ModuleType) or type(value).__name__ == "PyCapsule":
            continue
        if isinstance(value, type) and issubclass(value, type):
            continue  # a metaclass creates classes from any namespace
        members[key] = value
    return members


_EXPLICIT: dict[str, tuple[str, ...]] = {
    "copy": ("copy", "deepcopy", "Error", "error"),
    # Declaring abstract classes; ABCMeta itself would build classes from a dict.
    "abc": (
        "ABC",
        "abstractmethod",
        "abstractproperty",
        "abstractclassmethod",
        "abstractstaticmethod",
    ),
}

#: The generator behind ``random``; reseeded in each worker by :func:`reseed_random`.
_session_random = random.Random()


def reseed_random() -> None:
    """Give this process its own random sequence (forked workers would share one)."""
    # An int seed goes straight to the generator; a bytes seed would be hashed with
    # SHA-512 first, which costs a fresh worker about a millisecond.
    _session_random.seed(int.from_bytes(os.urandom(32), "big"))
    numpy = sys.modules.get("numpy")
    if numpy is not None:  # its global generator, forked with the zygote's state too
        numpy.random.seed(numpy.frombuffer(os.urandom(32), dtype=numpy.uint32))


def version_member(module: types.ModuleType) -> dict[str, Any]:
    """``{'__version__': ...}`` where the module states its version as a str."""
    version = getattr(module, "__version__", None)
    return {"__version__": version} if type(version) is str else {}


def _members_of(name: str) -> dict[str, Any]:
    if name == "sys":
        return sys_members()
    if name == "asyncio":
        return script_asyncio_members()
    if name in MEMBERS:
        module = importlib.import_module(name)
        listed = {key: getattr(module, key) for key in MEMBERS[name] if hasattr(module, key)}
        listed.update(EXTRA.get(name, {}))
        listed.update((k, v) for k, v in REPLACED.get(name, {}).items() if k in listed)
        if name == "contextlib":
            # The real ones rebind the interpreter's sys.stdout (see sysproxy.py).
            listed.update(redirect_stdout=redirect_stdout, redirect_stderr=redirect_stderr)
        return {**listed, **version_member(module)}
    if name == "random":
        members: dict[str, Any] = {
            key: getattr(_session_random, key)
            for key in _RANDOM_MEMBERS
            if hasattr(_session_random, key)
        }
        members.update(Random=random.Random, SystemRandom=random.SystemRandom)
        return members
    module = importlib.import_module(name)
    if name in _EXPLICIT:
        members = {key: getattr(module, key) for key in _EXPLICIT[name] if hasattr(module, key)}
    else:
        members = _public_members(module, _DENIED.get(name, ()))
    members.update(REPLACED.get(name, {}))
    return {**members, **version_member(module)}


_time_zones: list[Any] = []


def _load_time_zones() -> None:
    """Load every zone of the tz database now, while files may be read (in the zygote:
    a confined worker may not read ``/usr/share/zoneinfo``). ``ZoneInfo(key)`` then finds
    the zone in its cache. Measured: 600 zones, about 70 ms and 5 MB, shared by every
    worker."""
    if _time_zones:
        return
    import zoneinfo

    for key in sorted(zoneinfo.available_timezones()):
        try:
            _time_zones.append(zoneinfo.ZoneInfo(key))
        except (OSError, ValueError):
            continue


#: Catalog entries whose members the caller provides (the filesystem helpers).
PROVIDED = frozenset({"os", "os.path", "pathlib"})


def build_proxies(
    allowed: Iterable[str], provided: dict[str, dict[str, Any]] | None = None
) -> dict[str, ModuleProxy]:
    """Build one proxy per allowed module name; parents expose allowed submodules.

    ``provided`` gives the members of the ``PROVIDED`` entries (see ``files.py``).
    """
    allowed = sorted(set(allowed))
    formatters.close_stdlib()
    unknown = [name for name in allowed if name not in CATALOG]
    if unknown:
        raise ValueError(f"modules not in the sandbox catalog: {', '.join(unknown)}")
    provided = provided or {}
    members = {
        name: dict(provided.get(name, {})) if name in PROVIDED else _members_of(name)
        for name in allowed
    }
    if "zoneinfo" in members:
        _load_time_zones()
    proxies: dict[str, ModuleProxy] = {}
    # Children first, so that a parent can expose an allowed child as a member.
    for name in sorted(allowed, key=lambda n: -n.count(".")):
        own = dict(members[name])
        for child, proxy in proxies.items():
            parent, _, leaf = child.rpartition(".")
            if parent == name:
                own[leaf] = proxy
        doc = (
            f"{name} (sandboxed: paths work only under the policy's mounts)"
            if name in PROVIDED
            else _SYS_DOC
            if name == "sys"
            else importlib.import_module(name).__doc__
            if name != "random"
            else random.__doc__
        )
        # Exposed before the proxy vets them: a member is a class the script can name.
        expose_classes(own.values())
        proxies[name] = _make_proxy(name, own, doc)
    show_as((type(proxy) for proxy in proxies.values()), ModuleProxy, "module")
    return proxies


_SYS_DOC = """The sandbox's sys: maxsize, float_info, int_info, version_info, version,
byteorder, platform, argv (empty), getrecursionlimit, setrecursionlimit (capped by the
policy), stdout and stderr (written to the captured output)."""

#: Modules that C code of allowed modules imports lazily, by the current frame's
#: ``__import__`` (``datetime.strptime`` and ``time.strptime`` import ``_strptime``).
#: Imported here, in the zygote, so that no worker needs to read their source.
#: ``_pylong`` (3.12+): int <-> str and division of huge ints.
LIBRARY_IMPORTS = frozenset(
    name for name in ("_strptime", "_pylong") if importlib.util.find_spec(name) is not None
)
for _name in LIBRARY_IMPORTS:
    importlib.import_module(_name)


def _library_import(name: Any) -> None:
    # ``PyImport_Import`` calls the frame's ``__import__`` and then takes the module
    # from ``sys.modules`` itself: the script never sees what this returns.
    if type(name) is str and name in LIBRARY_IMPORTS:
        importlib.import_module(name)
        return
    raise ForbiddenModule(f"No module named {name!r}", name=str(name))


def make_import(proxies: dict[str, ModuleProxy]) -> Callable[..., ModuleProxy | None]:
    """The ``__import__`` a script's import statements go through."""
    available = ", ".join(sorted(proxies))

    def guarded_import(
        name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0
    ) -> ModuleProxy | None:
        if type(fromlist) is list:
            # The interpreter's own ``PyImport_Import`` (C code importing lazily passes
            # a list: ``[]``, ``["__doc__"]`` in older versions): an import statement
            # passes a tuple or None, and no script can call this function by name
            # (``__import__`` is refused by the name rule).
            _library_import(name)
            return None
        if level:
            raise ForbiddenImport("relative imports are not allowed in the sandbox")
        proxy = proxies.get(name)
        if proxy is None:
            raise ForbiddenModule(
                f"No module named {name!r} in the sandbox. Importable modules: {available}",
                name=name,
            )
        if "." in name and not fromlist:
            top = proxies.get(name.partition(".")[0])
            if top is None:
                raise ForbiddenImport(f"import {name!r} with 'from {name} import ...' instead")
            return top
        return proxy

    return guarded_import
