"""The worker side imports only the standard library and RestrictedPython.

Every module under ``sandbox/worker/`` is imported in a fresh ``python -I``
interpreter; whatever that adds to ``sys.modules`` must be the standard library,
RestrictedPython, the worker package itself or one of the shared modules below. The
same rule is checked on the source, for imports inside functions too (those run later,
inside the confined worker).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.layout.imports import ROOT, imported, module_names

#: The only ``sandbox`` modules outside ``sandbox.worker`` the worker may import: the
#: facade (its names load on first use, so importing it costs nothing) and the modules
#: both sides share, which import only the standard library.
SHARED = frozenset({"sandbox", "sandbox.protocol", "sandbox.limits_text"})

#: Third-party packages the worker may import.
THIRD_PARTY = frozenset({"RestrictedPython"})

WORKER = sorted(name for name in module_names("sandbox") if name.startswith("sandbox.worker"))


def allowed(module: str) -> bool:
    top = module.partition(".")[0]
    if top in sys.stdlib_module_names or top in THIRD_PARTY:
        return True
    if top != "sandbox":
        return False
    return module in SHARED or module == "sandbox.worker" or module.startswith("sandbox.worker.")


_IMPORT_ALL = """
import importlib, json, sys
sys.path.insert(0, sys.argv[1])
before = set(sys.modules)
for name in json.loads(sys.argv[2]):
    importlib.import_module(name)
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def test_the_worker_modules_are_found() -> None:
    # A walk that found nothing would let everything through.
    assert {"sandbox.worker.zygote", "sandbox.worker.language.compiler"} <= set(WORKER)
    assert any(name.startswith("sandbox.worker.confine.") for name in WORKER)


def test_shared_modules_import_only_the_standard_library() -> None:
    known = set(module_names("sandbox"))
    for name in sorted(SHARED - {"sandbox"}):
        path = ROOT / (name.replace(".", "/") + ".py")
        outside = sorted(m for m in imported(name, path, known) if not allowed(m))
        assert not outside, f"{name} is shared with the worker but imports {outside}"


@pytest.mark.timeout(120)
def test_importing_the_worker_loads_only_stdlib_and_restrictedpython() -> None:
    result = subprocess.run(
        [sys.executable, "-I", "-c", _IMPORT_ALL, str(ROOT), json.dumps(WORKER)],
        capture_output=True,
        text=True,
        timeout=100,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout)
    assert "sandbox.worker.zygote" in loaded
    outside = [name for name in loaded if not allowed(name)]
    assert not outside, (
        "importing sandbox/worker/ loaded modules outside the standard library, "
        f"RestrictedPython and {sorted(SHARED)}: {outside}"
    )


def test_worker_source_imports_only_stdlib_and_restrictedpython() -> None:
    # Imports inside functions run later, in the confined worker: the source says them all.
    modules = module_names("sandbox")
    known = set(modules)
    found = {
        name: sorted(m for m in imported(name, modules[name], known) if not allowed(m))
        for name in WORKER
    }
    outside = {name: targets for name, targets in found.items() if targets}
    assert not outside, f"worker modules importing outside the worker's allowance: {outside}"
