"""docs/quickstart.md: its commands. The developer install is the README's and CI's; the
light install (``pip install .``) runs the first agent with the core dependencies alone —
the wheel installed in a fresh environment that sees only the packages ``codeact``
requires, not the rest of this one."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests.docs.pages import ROOT, commands
from tests.layout.test_packaging import _pip, _sources, readme_install_options

PAGE = "quickstart.md"
COVERS: dict[str, list[str]] = {}
BIN = Path(sys.executable).parent


def _line(starting: str) -> str:
    (line,) = [c for c in commands(PAGE) if c.startswith(starting)]
    return line


def test_the_developer_install_is_the_readmes_and_the_tests_are_cis() -> None:
    words = shlex.split(_line(".venv/bin/pip install -e"))
    at = words.index("-e")
    assert words[at + 1] == ".[dev]" and words[at + 2 :] == readme_install_options()
    readme = (ROOT / "README.md").read_text()
    assert _line(".venv/bin/python -m pytest") in readme


@pytest.mark.timeout(120)
def test_the_first_run(tmp_path: Path) -> None:
    argv = shlex.split(_line(".venv/bin/codeact run"))
    done = subprocess.run(
        [str(BIN / "codeact"), *argv[1:]], capture_output=True, text=True, timeout=110, cwd=ROOT
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "KeyError: 'price'" in done.stdout and "669.5 in total" in done.stdout


def _core_closure() -> list[metadata.Distribution]:
    """The distributions ``codeact`` requires, transitively, without extras."""
    seen: dict[str, metadata.Distribution] = {}
    todo = [r for r in metadata.requires("codeact") or [] if "extra ==" not in r]
    while todo:
        requirement = Requirement(todo.pop())
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": ""}):
            continue
        name = re.sub(r"[-_.]+", "-", requirement.name).lower()
        if name in seen:
            continue
        seen[name] = metadata.distribution(requirement.name)
        todo += [r for r in seen[name].requires or [] if "extra ==" not in r]
    return list(seen.values())


def _expose(distributions: list[metadata.Distribution], where: Path) -> None:
    """A directory holding only these distributions' files (links to this environment's)."""
    where.mkdir()
    for dist in distributions:
        for top in {Path(str(f)).parts[0] for f in dist.files or []}:
            source = Path(str(dist.locate_file(top)))
            if source.exists() and not (where / top).exists() and top != "..":
                (where / top).symlink_to(source)


@pytest.mark.timeout(420)
def test_the_light_install_runs_the_first_agent(tmp_path: Path) -> None:
    assert ".venv/bin/pip install ." in commands(PAGE)
    source = _sources(tmp_path / "src")
    for name in ("examples",):
        (source / name).symlink_to(ROOT / name)
    _pip(
        Path(sys.executable), "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
        str(tmp_path / "dist"), ".", cwd=source,
    )  # fmt: skip
    (wheel,) = (tmp_path / "dist").glob("codeact-*.whl")
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True, timeout=120)
    venv = tmp_path / "venv" / "bin"
    _pip(venv / "python", "install", "--no-deps", "-q", str(wheel), cwd=tmp_path)
    core = tmp_path / "core-site"
    _expose(_core_closure(), core)
    purelib = subprocess.run(
        [str(venv / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.strip()  # fmt: skip
    Path(purelib, "core_dependencies.pth").write_text(f"{core}\n")
    numpy = subprocess.run([str(venv / "python"), "-c", "import numpy"], capture_output=True)
    assert numpy.returncode != 0  # nothing beyond the core leaks in
    argv = shlex.split(_line(".venv/bin/codeact run"))
    done = subprocess.run(
        [str(venv / "codeact"), *argv[1:]], capture_output=True, text=True, timeout=120, cwd=source
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "669.5 in total" in done.stdout
