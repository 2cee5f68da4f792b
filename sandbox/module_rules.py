"""Which modules a policy may allow: curated names, any installed module, patterns.

- **Curated** modules (``modules.CATALOG`` and ``data_modules.DATA_CATALOG``) have proxies
  whose member lists were chosen by hand; the language layer vouches for them.
- **Uncurated** modules are any other installed module a user allows by name
  (``allow_modules``): they get a generated proxy (``module_proxy.py``), and what their
  C code does is contained by the OS layer only.
- **Patterns**: ``pkg.*`` allows ``pkg`` and all its submodules; ``*`` allows every
  installed module.

:data:`SHIPPED_DENY` lists members known to reach the host or to evaluate strings in
popular packages; a policy adds its own (``[deny] "pandas" = ["read_pickle"]``).

Host side: standard library only; nothing here imports the modules it checks.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re
from collections.abc import Iterable

from sandbox.worker.language.data_modules import DATA_CATALOG, DATA_DENIED
from sandbox.worker.language.modules import CATALOG

CURATED: frozenset[str] = frozenset(CATALOG) | frozenset(DATA_CATALOG)
EVERYTHING = "*"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")

#: Members never exposed by a generated proxy, for popular modules.
SHIPPED_DENY: dict[str, tuple[str, ...]] = {
    **DATA_DENIED,
    "builtins": (
        "eval",
        "exec",
        "compile",
        "open",
        "breakpoint",
        "input",
        "globals",
        "locals",
        "vars",
        "getattr",
        "setattr",
        "delattr",
        "help",
    ),
    "sys": (
        "modules",
        "meta_path",
        "path_hooks",
        "path_importer_cache",
        "settrace",
        "setprofile",
        "addaudithook",
        "breakpointhook",
        "displayhook",
        "excepthook",
        "stdin",
        "stdout",
        "stderr",
        "exit",
        "setrecursionlimit",
        "set_asyncgen_hooks",
        "monitoring",
        "remote_exec",
    ),
    "pickle": ("load", "loads", "Unpickler"),
    "_pickle": ("load", "loads", "Unpickler"),
    "marshal": ("load", "loads"),
    "shelve": ("open", "Shelf", "DbfilenameShelf"),
    "importlib": ("import_module", "reload", "__import__"),
    "runpy": ("run_module", "run_path"),
    "code": ("interact", "InteractiveConsole", "InteractiveInterpreter", "compile_command"),
    "subprocess": (
        "run",
        "call",
        "check_call",
        "check_output",
        "Popen",
        "getoutput",
        "getstatusoutput",
    ),
    "ctypes": (
        "CDLL",
        "PyDLL",
        "cdll",
        "pydll",
        "pythonapi",
        "memmove",
        "memset",
        "cast",
        "string_at",
        "wstring_at",
        "addressof",
        "pointer",
        "POINTER",
    ),
    "joblib": ("load",),
    "dill": ("load", "loads", "Unpickler"),
    "cloudpickle": ("load", "loads"),
    "torch": ("load",),
    "yaml": (
        "load",
        "load_all",
        "unsafe_load",
        "unsafe_load_all",
        "full_load",
        "full_load_all",
        "Loader",
        "UnsafeLoader",
        "FullLoader",
    ),
    "numexpr": ("evaluate", "re_evaluate"),
    "seaborn": ("load_dataset", "get_dataset_names"),
    "statsmodels": ("load_pickle",),
    "sklearn": ("set_config", "config_context"),
}


class ModuleNameError(ValueError):
    """A module name or pattern a policy cannot allow."""


def check_name(name: str) -> str:
    """The name, or ModuleNameError if it is neither a dotted name nor a pattern."""
    bare = name.removesuffix(".*") if name != EVERYTHING else ""
    if name != EVERYTHING and not _NAME.fullmatch(bare):
        raise ModuleNameError(f"{name!r} is not a module name (e.g. numpy) or pattern (numpy.*, *)")
    return name


def installed(name: str) -> bool:
    """Whether ``name`` (dotted) can be imported here, found without importing it."""
    top, *rest = name.split(".")
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return False
    for part in rest:
        locations = None if spec is None else spec.submodule_search_locations
        if not locations:
            break
        spec = importlib.machinery.PathFinder.find_spec(part, list(locations))
    else:
        return spec is not None
    if spec is None:
        return False
    # A module that is not a package may still have submodules (``os.path``): only the
    # import system can say, importing the parent.
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def check_installed(names: Iterable[str]) -> None:
    """Raise ModuleNameError naming every module (or pattern's package) not installed."""
    missing = [
        name for name in names if name != EVERYTHING and not installed(name.removesuffix(".*"))
    ]
    if missing:
        raise ModuleNameError(
            f"module(s) not installed: {', '.join(map(repr, missing))} "
            "(install them into the environment the sandbox runs in)"
        )


def deny_table(extra: dict[str, tuple[str, ...]]) -> dict[str, list[str]]:
    """The shipped deny lists with a policy's additions (per module, sorted)."""
    table = {name: set(members) for name, members in SHIPPED_DENY.items()}
    for name, members in extra.items():
        table.setdefault(name, set()).update(members)
    return {name: sorted(members) for name, members in sorted(table.items())}
