"""Code that finds the package by its place on disk keeps working where the tree moves.

- ``control.py`` trusts a ``LimitExceeded`` only when the worker's runtime issued it
  (``issue_limit``), wherever the code creating it lies. End to end this is covered by
  ``tests/sandbox/test_limits.py::test_output_limit`` / ``::test_tool_call_limit``
  (genuine limits keep their code) and
  ``tests/sandbox/test_escapes_control.py::test_script_cannot_forge_a_limit`` (a script's
  own instance reports ``policy_violation``); here, that every place creating one is in
  the runtime, through ``issue_limit``.
- ``landlock.py`` lets the confined worker read the whole ``sandbox`` package, so that
  modules the zygote did not import still import after confinement.
- ``host/workers.py`` boots the zygote from the package root in use.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import sandbox
from sandbox import Mount, Sandbox, SandboxPolicy
from sandbox.host.workers import package_root
from sandbox.worker.confine import landlock
from sandbox.worker.language import control
from tests.layout.imports import imported, module_names
from tests.layout.test_worker_imports import allowed

PACKAGE = Path(sandbox.__file__).resolve().parent


def _limit_sites() -> list[Path]:
    """The source files that create ``LimitExceeded`` or issue one (``issue_limit``)."""
    sites = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("LimitExceeded", "issue_limit")
            ):
                sites.append(path)
                break
    return sites


def test_limits_are_issued_only_by_the_runtime() -> None:
    sites = {str(p.relative_to(PACKAGE)) for p in _limit_sites()}
    # display.py stops a run whose images pass their budget (the run's output limit).
    assert sites == {"worker/runtime.py", "worker/language/control.py", "worker/display.py"}, sites


@pytest.mark.parametrize("where", ["worker/runtime.py", "worker/language/guards.py"])
def test_a_limit_made_anywhere_but_issue_limit_is_forged(where: str) -> None:
    # Code under the runtime's own file name (as a library callable the runtime calls
    # on a script's behalf would be) makes a forged limit, as a script's code does.
    made: dict[str, object] = {"LimitExceeded": control.LimitExceeded}
    source = "limit = LimitExceeded('output_limit', 'too much output')"
    exec(compile(source, str(PACKAGE / where), "exec"), made)
    limit = made["limit"]
    assert isinstance(limit, control.LimitExceeded)
    assert limit.code == "policy_violation"
    assert control.issue_limit("output_limit", "too much output").code == "output_limit"


def test_landlock_grants_the_whole_package() -> None:
    assert str(PACKAGE) in landlock.python_paths()


def _not_preloaded_candidates() -> list[str]:
    """``sandbox`` modules outside the worker whose imports the worker side allows."""
    modules = module_names("sandbox")
    known = set(modules)
    return [
        name
        for name, path in modules.items()
        if not name.startswith("sandbox.worker")
        and name.count(".") == 1
        and all(allowed(target) for target in imported(name, path, known))
    ]


_IMPORT_LATE = """
import importlib, json, sys
late = [name for name in {candidates!r} if name not in sys.modules]
module = importlib.import_module(late[0])
print(json.dumps([late[0], module.__file__]))
"""


@pytest.mark.timeout(60)
def test_a_confined_worker_imports_a_module_the_zygote_did_not(tmp_path: Path) -> None:
    candidates = _not_preloaded_candidates()
    assert candidates, "no sandbox module outside the worker imports only what it allows"
    # Landlock is applied where the policy has mounts; plain Python imports for real.
    policy = (
        SandboxPolicy.preset("default")
        .with_mounts(Mount(sandbox_path="/data", host_path=str(tmp_path)))
        .with_layers(language=False)
    )
    with Sandbox(policy, spares=0) as sb, sb.session() as session:
        if not sb.confinement["filesystem"].startswith("active"):
            pytest.skip(f"no Landlock here: {sb.confinement['filesystem']}")
        execution = session.run(_IMPORT_LATE.format(candidates=candidates))
    assert execution.error_code is None, execution.output
    name, path = json.loads(execution.stdout)
    assert name in candidates
    # Outside the worker's folder: the grant is the package, not the worker's own code.
    found = Path(path).resolve()
    assert found.is_relative_to(PACKAGE) and not found.is_relative_to(PACKAGE / "worker")


_BOOT_FROM_COPY = """
import json, sys
sys.path.insert(0, sys.argv[1])
import sandbox
from sandbox import Sandbox, SandboxPolicy
from sandbox.host.workers import package_root
policy = SandboxPolicy.preset("default").with_layers(language=False)
with Sandbox(policy, spares=0) as sb, sb.session() as session:
    run = session.run(
        "import json, sys, sandbox; print(json.dumps([sys.path[0], sandbox.__file__]))"
    )
print(json.dumps({"root": package_root(), "host": sandbox.__file__, "worker": run.stdout}))
"""


@pytest.mark.timeout(90)
def test_the_zygote_boots_from_the_package_root_in_use(tmp_path: Path) -> None:
    # A second copy of the package, imported first: its zygote must run that copy, not
    # the checkout's or an installed one.
    assert package_root() == str(PACKAGE.parent)
    copy = tmp_path / "elsewhere"
    shutil.copytree(PACKAGE, copy / "sandbox", ignore=shutil.ignore_patterns("__pycache__"))
    result = subprocess.run(
        [sys.executable, "-c", _BOOT_FROM_COPY, str(copy)],
        capture_output=True,
        text=True,
        timeout=80,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": ""},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["root"] == str(copy)
    assert report["host"] == str(copy / "sandbox" / "__init__.py")
    assert json.loads(report["worker"]) == [str(copy), str(copy / "sandbox" / "__init__.py")]
