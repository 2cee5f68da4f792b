"""No setuid, setgid or sticky bit reaches the host, by any route.

A script builds a small static program under a writable mount and tries every way to
mark it setuid/setgid root: ``chmod``, ``fchmod``, ``fchmodat``, ``open`` and ``mkdir``
with the bits in their mode, through the language layer with ``posix`` allowed (and
with every module allowed), and as plain Python. The host then runs what reached the
mount as ``nobody``: the program exits with its effective uid, so a file that ran as
root says so. A host-made setuid copy shows the check can fail.
"""

from __future__ import annotations

import os
import platform
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import Mount, Sandbox, SandboxPolicy

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or platform.machine() != "x86_64" or os.geteuid() != 0,
    reason="runs a hand-made x86_64 program as nobody: needs Linux x86_64 and root",
)
NOBODY = 65534


def euid_program() -> bytes:
    """A static x86_64 ELF that exits with the low byte of its effective uid."""
    # mov eax, 107 (geteuid); syscall; mov edi, eax; mov eax, 60 (exit); syscall
    code = bytes.fromhex("b86b0000000f0589c7b83c0000000f05")
    base, ehsize, phsize = 0x400000, 64, 56
    ehdr = struct.pack(
        "<4s5B7xHHIQQQIHHHHHH",
        b"\x7fELF", 2, 1, 1, 0, 0,  # 64-bit, little-endian, version 1, System V
        2, 0x3E, 1, base + ehsize + phsize, ehsize, 0, 0, ehsize, phsize, 1, 0, 0, 0,
    )  # fmt: skip
    size = ehsize + phsize + len(code)
    phdr = struct.pack("<IIQQQQQQ", 1, 5, 0, base, base, size, size, 0x1000)
    return ehdr + phdr + code


def run_as_nobody(path: Path) -> int:
    """The effective uid's low byte ``path`` reports when run as nobody."""
    argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", str(path)]
    return subprocess.run(argv, timeout=20, check=False).returncode


#: Every way a script might set the bits, each on its own file; each step's failure is
#: expected and swallowed (a refused chmod is the point).
ATTEMPTS = """
ELF = {elf!r}
base = {base!r}
tried = {{}}
def attempt(name, step):
    try:
        step()
        tried[name] = "done"
    except OSError as exc:
        tried[name] = type(exc).__name__

def write(name, mode=0o755):
    fd = osm.open(base + "/" + name, osm.O_WRONLY | osm.O_CREAT | osm.O_TRUNC, mode)
    osm.write(fd, ELF)
    return fd

def by_chmod():
    osm.close(write("chmod"))
    osm.chmod(base + "/chmod", 0o6755)

def by_fchmod():
    fd = write("fchmod")
    try:
        osm.fchmod(fd, 0o4755)
    finally:
        osm.close(fd)

def by_fchmodat():
    osm.close(write("fchmodat"))
    dfd = osm.open(base, osm.O_RDONLY)
    try:
        osm.chmod("fchmodat", 0o4755, dir_fd=dfd)
    finally:
        osm.close(dfd)

def by_open_mode():
    osm.umask(0)
    osm.close(write("open-mode", 0o6755))

def by_mkdir_mode():
    osm.mkdir(base + "/setgid-dir", 0o3777)

for name, step in [("chmod", by_chmod), ("fchmod", by_fchmod), ("fchmodat", by_fchmodat),
                   ("open-mode", by_open_mode), ("mkdir", by_mkdir_mode)]:
    attempt(name, step)
final_result(tried)
"""
CANDIDATES = ("chmod", "fchmod", "fchmodat", "open-mode")


@pytest.fixture()
def out() -> Iterator[Path]:
    # Under /tmp, reachable by nobody (pytest's own temporary directories are 0700).
    directory = Path(tempfile.mkdtemp(prefix="codeact-suid-"))
    directory.chmod(0o755)
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _policy(route: str, out: Path) -> SandboxPolicy:
    mount = Mount(sandbox_path="/out", host_path=str(out), mode="rw", max_bytes=1 << 20)
    policy = SandboxPolicy.preset("default").with_mounts(mount)
    if route == "posix":
        return policy.allow_modules("posix")
    if route == "every module":
        return policy.allow_modules("*")
    return policy.with_layers(language=False)


def _source(route: str, out: Path) -> str:
    prelude = "import os as osm\n" if route == "plain python" else "import posix as osm\n"
    base = str(out) if route == "plain python" else "/out"
    return prelude + ATTEMPTS.format(elf=euid_program(), base=base)


def test_the_check_itself_sees_a_setuid_program(out: Path) -> None:
    program = out / "control"
    program.write_bytes(euid_program())
    program.chmod(0o755)
    assert run_as_nobody(program) == NOBODY & 0xFF
    program.chmod(0o4755)
    assert run_as_nobody(program) == 0  # owned by root, setuid: runs as root


@pytest.mark.timeout(120)
@pytest.mark.parametrize("route", ["posix", "every module", "plain python"])
def test_no_special_bit_reaches_the_host(route: str, out: Path) -> None:
    with Sandbox(_policy(route, out), spares=0) as sandbox, sandbox.session() as session:
        execution = session.run(_source(route, out))
    assert execution.error_code is None, execution.output
    reached = [name for name in CANDIDATES if (out / name).exists()]
    assert reached, f"no candidate reached the host: {execution.output}"
    found: dict[str, tuple[int, int]] = {}
    for name in reached:
        mode = (out / name).stat().st_mode
        (out / name).chmod(mode | 0o755)  # executable, nothing more
        found[name] = (mode, run_as_nobody(out / name))
    if (out / "setgid-dir").exists():
        found["setgid-dir"] = ((out / "setgid-dir").stat().st_mode, NOBODY & 0xFF)
    wrong = {
        name: (stat.filemode(mode), euid)
        for name, (mode, euid) in found.items()
        if mode & 0o7000 or euid != NOBODY & 0xFF
    }
    assert not wrong, f"{execution.output}: {wrong}"
