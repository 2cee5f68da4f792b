"""The project as users get it: a wheel install and the README's editable install.

Each test makes a virtual environment of its own and installs the project there with
``--no-deps``; the dependencies come from the environment running the tests, through a
``.pth`` file listing its site-packages (``--system-site-packages`` would reach the base
interpreter's packages, not a virtual environment's). Builds run on a copy of the sources,
so the checkout gets no ``build/`` or ``*.egg-info``.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from codeact.prompting import TEMPLATE_NAMES
from tests.layout.imports import ROOT

_COPIED = ("pyproject.toml", "README.md", "sandbox", "codeact", "benchmarks/security")


def _sources(where: Path) -> Path:
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    where.mkdir()
    for name in _COPIED:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, where / name, ignore=ignore)
        else:
            shutil.copy(ROOT / name, where / name)
    return where


def _venv(where: Path) -> Path:
    """A fresh environment that sees this one's packages; its interpreter."""
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(where)], check=True, timeout=60
    )
    python = where / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    ).stdout.strip()
    ours = dict.fromkeys(sysconfig.get_path(name) for name in ("purelib", "platlib"))
    # Plain paths: this environment's own .pth files (an editable install of the
    # checkout among them) are not run, so the project comes only from the new install.
    Path(purelib, "_tests_parent.pth").write_text("\n".join(ours) + "\n")
    return python


def _pip(python: Path, *args: str, cwd: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=240,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-3000:]


def readme_install_options() -> list[str]:
    """The options of the README's first ``pip install -e`` command, after ``-e``."""
    first = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    assert first is not None
    command = next(p for p in first.group(1).split("&&") if "pip install" in p)
    words = shlex.split(command)
    at = words.index("-e")
    assert words[at + 1] == ".[dev]", words
    return [w for w in words[at + 2 :] if w != "-q"]


_LOAD_PROMPTS = """
import json
from importlib import resources
import codeact
from codeact.prompting import default_templates
shipped = sorted(p.name for p in (resources.files("codeact") / "prompts").iterdir())
print(json.dumps({"file": codeact.__file__, "shipped": shipped,
                  "templates": {k: len(v) for k, v in default_templates().items()}}))
"""


@pytest.mark.timeout(300)
def test_the_wheel_ships_every_prompt_as_package_data(tmp_path: Path) -> None:
    source = _sources(tmp_path / "src")
    _pip(
        Path(sys.executable),
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-q",
        "-w",
        str(tmp_path / "dist"),
        ".",
        cwd=source,
    )
    (wheel,) = (tmp_path / "dist").glob("codeact-*.whl")
    python = _venv(tmp_path / "venv")
    _pip(python, "install", "--no-deps", "-q", str(wheel), cwd=tmp_path)
    found = subprocess.run(
        [str(python), "-I", "-c", _LOAD_PROMPTS],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert found.returncode == 0, found.stderr[-3000:]
    report = json.loads(found.stdout)
    # The installed copy, not the checkout or the sources it was built from.
    assert Path(report["file"]).is_relative_to(tmp_path / "venv"), report["file"]
    assert report["shipped"] == sorted(f"{name}.md" for name in TEMPLATE_NAMES)
    assert set(report["templates"]) == set(TEMPLATE_NAMES)
    assert all(size > 0 for size in report["templates"].values()), report["templates"]


_USER_APP = """\
from sandbox import Sandbox, SandboxPolicy
from codeact import Agent

def start(policy: SandboxPolicy) -> Sandbox:
    return Sandbox(policy)

def name_of(agent: Agent) -> str:
    return agent.name
"""


@pytest.mark.timeout(420)
def test_mypy_sees_the_readmes_editable_install(tmp_path: Path) -> None:
    source = _sources(tmp_path / "src")
    python = _venv(tmp_path / "venv")
    options = readme_install_options()
    _pip(
        python,
        "install",
        "--no-deps",
        "--no-build-isolation",
        "-q",
        "-e",
        ".",
        *options,
        cwd=source,
    )
    app = tmp_path / "app"
    app.mkdir()
    (app / "app.py").write_text(_USER_APP)
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--python-executable",
            str(python),
            "--cache-dir",
            str(tmp_path / "mypy-cache"),
            "--no-error-summary",
            "app.py",
        ],
        capture_output=True,
        text=True,
        cwd=app,
        timeout=400,
    )
    assert checked.returncode == 0, checked.stdout[-3000:] + checked.stderr[-2000:]
    # And the install is the copy: a module added to it needs no reinstall.
    (source / "sandbox" / "added_later.py").write_text("VALUE = 1\n")
    added = subprocess.run(
        [str(python), "-I", "-c", "import sandbox.added_later as m; print(m.__file__)"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert added.returncode == 0, added.stderr[-2000:]
    assert Path(added.stdout.strip()).is_relative_to(source)


def test_ci_installs_the_readmes_way() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    # The first editable install is the main venv's (other Pythons' follow it).
    line = next(line for line in ci.splitlines() if "pip install" in line and " -e " in line)
    words = shlex.split(line)
    at = words.index("-e")
    assert words[at + 1] == ".[dev]", line
    assert [w for w in words[at + 2 :] if w != "-q"] == readme_install_options(), line
