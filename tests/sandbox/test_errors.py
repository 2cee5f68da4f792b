"""The sandbox's exceptions: one hierarchy under SandboxError, importable from anywhere."""

from __future__ import annotations

import inspect
import subprocess
import sys
from pathlib import Path

import sandbox
from sandbox import errors

ROOT = Path(__file__).resolve().parents[2]


def test_every_sandbox_exception_is_a_sandbox_error() -> None:
    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass)]
    assert len(classes) >= 8
    for cls in classes:
        assert cls.__module__ == "sandbox.errors"
        assert issubclass(cls, sandbox.SandboxError), cls


def test_errors_about_the_callers_input_are_still_value_errors() -> None:
    for cls in (sandbox.PolicyError, sandbox.ToolDefinitionError, errors.CorpusError):
        assert issubclass(cls, ValueError) and issubclass(cls, sandbox.SandboxError)


def test_the_public_names_are_the_same_classes() -> None:
    for name in ("SandboxError", "PolicyError", "AdmissionTimeout", "RequirementNotMet",
                 "ToolDefinitionError"):  # fmt: skip
        assert getattr(sandbox, name) is getattr(errors, name)
        assert name in sandbox.__all__


def test_the_errors_module_imports_nothing_of_the_sandbox() -> None:
    # Any module, the worker side included, may raise these without paying an import.
    code = (
        "import sys; import sandbox.errors; "
        "print(sorted(m for m in sys.modules if m.startswith(('sandbox', 'pydantic'))))"
    )
    out = subprocess.run(
        [sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(ROOT)!r}); {code}"],
        capture_output=True, text=True, check=True, timeout=30,
    )  # fmt: skip
    assert out.stdout.strip() == "['sandbox', 'sandbox.errors']"
