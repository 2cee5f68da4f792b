"""Run a command as ``nobody`` from a root test process, leaving the machine as it was.

The interpreter, the virtual environment and the checkout may lie under directories only
root can enter (``/root`` is 0700; ``mktemp -d`` makes 0700 directories). The command runs
in a private mount namespace of its own, where each such directory is covered by a tmpfs
holding read-only binds of exactly what the interpreter needs, each at its own path, and a
fresh tmpfs is its ``TMPDIR`` and ``HOME``. Every mount dies with the namespace; nothing on
the disk changes. It keeps the host's PID namespace: in one of its own the command would be
pid 1, the reaper of every orphan, and the probe's detectors would misread both.
"""

from __future__ import annotations

import os
import pwd
import shlex
import shutil
import signal
import site
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
USER = "nobody"
TOOLS = ("unshare", "mount", "umount", "sh", "env")


@dataclass(frozen=True)
class Result:
    """What the command did: exit status and both streams."""

    returncode: int
    stdout: str
    stderr: str


def _traversable(path: Path) -> bool:
    return bool(path.stat().st_mode & stat.S_IXOTH)


def needed_directories(also: tuple[Path, ...] = ()) -> list[Path]:
    """The directories the interpreter reads: its installation, the venv, the checkout
    (and ``also``)."""
    candidates = {Path(sys.base_prefix), Path(sys.prefix), ROOT, *also}
    candidates |= {Path(entry) for entry in site.getsitepackages() if Path(entry).is_dir()}
    resolved = {p.resolve() for p in candidates}
    return sorted(p for p in resolved if not any(q in p.parents for q in resolved))


def blocker(path: Path) -> Path | None:
    """The highest ancestor of ``path`` that others may not enter (None: they may)."""
    for ancestor in reversed(path.parents):
        if not _traversable(ancestor):
            return ancestor
    return None


def _drop_command(uid: int, gid: int) -> list[str] | None:
    if shutil.which("setpriv"):
        return ["setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--"]
    if shutil.which("runuser"):
        return ["runuser", "-u", USER, "--"]
    return None


def unavailable() -> str | None:
    """Why commands cannot be run as ``nobody`` here (None: they can)."""
    if sys.platform != "linux":
        return "mount namespaces are Linux's"
    if os.geteuid() != 0:
        return (
            f"the test process is not root (uid {os.geteuid()}): it already runs "
            "unprivileged, and switching to nobody needs root"
        )
    try:
        account = pwd.getpwnam(USER)
    except KeyError:
        return f"no user {USER!r} on this machine"
    missing = [tool for tool in TOOLS if not shutil.which(tool)]
    if missing:
        return f"missing tools: {', '.join(missing)}"
    if _drop_command(account.pw_uid, account.pw_gid) is None:
        return "neither setpriv nor runuser is installed"
    for directory in needed_directories():
        unreadable = _unreadable(directory)
        if unreadable:
            return f"{unreadable} is not readable by others, so a bind of it would not help"
    probe = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "true"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if probe.returncode != 0:
        return f"cannot make a private mount namespace: {probe.stderr.strip()}"
    return None


def _unreadable(directory: Path) -> Path | None:
    """``directory`` or a top-level entry of it others cannot read or enter, if any."""
    for path in [directory, *directory.iterdir()]:
        if path.is_symlink():
            continue
        mode = path.stat().st_mode
        need = stat.S_IROTH | (stat.S_IXOTH if stat.S_ISDIR(mode) else 0)
        if mode & need != need:
            return path
    return None


def visible_entries(directory: Path, also: tuple[Path, ...] = ()) -> list[str] | None:
    """What ``nobody`` lists in ``directory``: when it covers it, the first component of
    each needed directory below it, sorted; None when it leaves it closed (it cannot
    enter it and needs nothing there)."""
    needed = [d for d in needed_directories(also) if directory in d.parents]
    if any(blocker(d) == directory for d in needed):
        return sorted({d.relative_to(directory).parts[0] for d in needed})
    if blocker(directory / "x") == directory:
        return None
    return sorted(os.listdir(directory))


def _script(
    stage: Path, argv: list[str], env: dict[str, str], also: tuple[Path, ...] = ()
) -> str:
    """The shell program run as root in the new namespaces; it ends by exec'ing ``argv``."""
    account = pwd.getpwnam(USER)
    drop = _drop_command(account.pw_uid, account.pw_gid)
    assert drop is not None
    q = shlex.quote
    binds = [str(d) for d in needed_directories(also) if blocker(d) is not None]
    covers = sorted({str(blocker(Path(d))) for d in binds})
    staged = [f"{stage}/{i}" for i in range(len(binds))]
    lines = ["set -eu", f"mount -t tmpfs -o mode=0700,size=1m codeact-stage {q(str(stage))}"]
    for directory, at in zip(binds, staged, strict=True):
        lines += [f"mkdir {q(at)}", f"mount --bind {q(directory)} {q(at)}"]
    lines += [f"mount -t tmpfs -o mode=0755,size=1m codeact-cover {q(c)}" for c in covers]
    for directory, at in zip(binds, staged, strict=True):
        lines += [
            f"mkdir -p {q(directory)}",
            f"mount --bind {q(at)} {q(directory)}",
            f"mount -o remount,bind,ro {q(directory)}",
            f"umount {q(at)}",
        ]
    # The staging tmpfs is replaced by nobody's TMPDIR at the same place.
    lines += [
        f"umount {q(str(stage))}",
        f"mount -t tmpfs -o mode=1777,size=512m codeact-tmp {q(str(stage))}",
        f"cd {q(str(ROOT))}",
    ]
    assignments = [f"{k}={v}" for k, v in sorted(env.items())]
    lines.append("exec " + shlex.join([*drop, "env", "-i", *assignments, *argv]))
    return "\n".join(lines) + "\n"


def run_as_nobody(argv: list[str], timeout: float, also: tuple[Path, ...] = ()) -> Result:
    """Run ``argv`` as ``nobody`` (see the module docstring), with ``also`` bound like the
    directories the interpreter needs; kill it all after ``timeout``."""
    parent = Path(tempfile.gettempdir())
    if blocker(parent / "x") is not None:
        raise RuntimeError(f"{parent} cannot be entered by others; set TMPDIR elsewhere")
    stage = Path(tempfile.mkdtemp(prefix="codeact-nobody-", dir=parent))
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(stage),
        "TMPDIR": str(stage),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    script = _script(stage, argv, env, also)
    launcher = ["unshare", "--mount", "--propagation", "private", "sh", "-c", script]
    proc = subprocess.Popen(
        launcher, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        # It was started in a session of its own: kill its whole process group.
        os.killpg(proc.pid, signal.SIGKILL)
        stdout, stderr = proc.communicate()
        stderr += f"\n[killed after {timeout} s]"
    finally:
        stage.rmdir()
    return Result(proc.returncode, stdout, stderr)
