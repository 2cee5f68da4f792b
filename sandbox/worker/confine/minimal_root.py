"""A minimal root for the sandbox: a tmpfs holding only what a worker needs, then
``pivot_root`` into it.

The root holds read-only bind mounts of the Python installation and the shared-library
directories (what ``landlock.py`` lets a worker read), ``/dev/null``, and the policy's
mounts at their host paths (``ro`` read-only; ``rw`` read-only too where each worker
covers it with a private view, ``overlay.py``, else as the host has them) and again at
their sandbox paths (for library code, which opens files itself: Landlock's rules name
the host directories, and a second bind of a directory is the same directory to it);
then the tmpfs itself is made read-only. Every bind is ``nosuid`` and, but for
``/dev/null``, ``nodev``: no file in the root gains privileges when run, and no device
node a mount holds opens. Outside those paths nothing of the host exists: not
/etc, /proc, /home, /tmp or the project, so there is nothing to read, stat, chmod or
mark. Needs CAP_SYS_ADMIN over the current mount namespace (``namespaces.py`` provides
it inside a user namespace).

Worker side: standard library only.
"""

from __future__ import annotations

import ctypes
import os
import platform
import stat
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from sandbox.worker.confine import landlock

_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_NOATIME, _MS_NODIRATIME = 32, 4096, 1024, 2048
_MS_RELATIME = 1 << 21
_MNT_DETACH = 2
#: statvfs flag → the mount flag a read-only remount must repeat: in a user namespace
#: the kernel locks these on mounts inherited from the host and refuses to clear them.
_LOCKED_FLAGS = (
    (os.ST_NOSUID, _MS_NOSUID),
    (os.ST_NODEV, _MS_NODEV),
    (os.ST_NOEXEC, _MS_NOEXEC),
    (os.ST_NOATIME, _MS_NOATIME),
    (os.ST_NODIRATIME, _MS_NODIRATIME),
    (os.ST_RELATIME, _MS_RELATIME),
)
_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
#: Where the new root is assembled before the pivot. Every source is held open first
#: (and bound from /proc/self/fd), so covering this directory hides nothing needed.
_ASSEMBLY = "/tmp"

_libc = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None
if _libc is not None:
    _libc.syscall.restype = ctypes.c_long


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    assert _libc is not None
    args = [None if v is None else v.encode() for v in (source, target, fstype)]
    _check(_libc.mount(*args, ctypes.c_ulong(flags), data.encode() or None), f"mount {target}")


def _outermost(paths: Iterable[str]) -> list[str]:
    """``paths`` without those inside another one of them."""
    kept: list[str] = []
    for path in sorted(set(paths)):
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return kept


Plan = tuple[list[tuple[str, str]], list[tuple[str, str]], dict[str, str]]


def plan(mounts: Sequence[dict[str, Any]]) -> Plan:
    """The bind mounts as (path, mode) in mounting order, the symlinks to recreate, and
    the source of each bind made at a mount's sandbox path (other binds: the path).

    Mode: ``ro`` (remounted read-only), ``rw`` (as the host has it). Symlinked system
    paths (``/lib`` → ``usr/lib``) become the same symlink beside a bind of the target.
    """
    system: list[str] = []
    links: list[tuple[str, str]] = []
    for path in (*landlock.python_paths(), *landlock.library_paths()):
        real = os.path.realpath(path)
        system.append(real)
        parent = os.path.dirname(path)
        if real != path and os.path.islink(path) and os.path.realpath(parent) == parent:
            links.append((path, os.readlink(path)))
        elif real != path:
            system.append(path)  # reached through a symlinked parent: bind it there too
    binds = [(p, "ro") for p in _outermost(system)]
    # Read-only: the device stays writable (a read-only mount refuses writes only to
    # files, directories and links), but its mode, owner and times cannot change.
    binds.append((os.devnull, "ro"))
    # A read-only mount inside another read-only one is there already; its own bind
    # would be a locked child of the outer one, which no overlay could then use as
    # its lower layer (each worker's private view of a writable mount, overlay.py).
    read_only = [str(m["host_path"]) for m in mounts if m["mode"] == "ro"]
    binds += [
        (str(m["host_path"]), str(m["mode"]))
        for m in mounts
        if m["mode"] != "ro" or str(m["host_path"]) in _outermost(read_only)
    ]
    sources = _at_sandbox_paths(mounts, [path for path, _ in binds])
    binds += [(path, mode) for path, (_, mode) in sources.items()]
    # Parents before children: a mount inside another is bound on top of it.
    binds.sort(key=lambda b: b[0].rstrip("/").count("/"))
    return binds, links, {path: host for path, (host, _) in sources.items()}


def _inside(path: str, other: str) -> bool:
    return path == other or path.startswith(other.rstrip("/") + "/")


def _at_sandbox_paths(
    mounts: Sequence[dict[str, Any]], taken: list[str]
) -> dict[str, tuple[str, str]]:
    """The policy's mounts bound a second time at their sandbox paths, so that library
    code (``pandas.read_csv("/data/x.csv")``) and plain Python find files where the
    script's ``open`` does. A sandbox path that coincides with, contains or lies inside
    another bind is left out (its mount point could not be made, or would hide it).
    """
    extra: dict[str, tuple[str, str]] = {}
    for m in mounts:
        path = str(m["sandbox_path"])
        if any(_inside(path, t) or _inside(t, path) for t in taken):
            continue
        extra[path] = (str(m["host_path"]), str(m["mode"]))
        taken = [*taken, path]
    return extra


def _make_point(root: str, path: str, is_dir: bool) -> str:
    target = root + path
    if is_dir:
        os.makedirs(target, 0o755, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), 0o755, exist_ok=True)
        if not os.path.exists(target):
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o644))
    return target


def _bind(fd: int, target: str, mode: str) -> None:
    """Bind ``fd`` at ``target``: ``nosuid`` always, ``nodev`` unless it is a device
    (``/dev/null``, which ``nodev`` would make unopenable), read-only for ``ro``."""
    _mount(f"/proc/self/fd/{fd}", target, None, _MS_BIND)
    locked = os.statvfs(target).f_flag
    flags = _MS_REMOUNT | _MS_BIND | _MS_NOSUID
    flags |= 0 if stat.S_ISCHR(os.fstat(fd).st_mode) else _MS_NODEV
    flags |= _MS_RDONLY if mode == "ro" else 0
    flags |= sum(ms for st, ms in _LOCKED_FLAGS if locked & st)
    _mount(None, target, None, flags)


def _pivot(root: str) -> None:
    assert _libc is not None
    number = _PIVOT_ROOT.get(platform.machine())
    if number is None:
        raise OSError(f"no pivot_root number for {platform.machine()}")
    os.chdir(root)
    # pivot_root(".", "."): the old root ends up on top of the new one, then goes.
    _check(int(_libc.syscall(number, b".", b".")), "pivot_root")
    _check(_libc.umount2(b".", _MNT_DETACH), "unmounting the old root")
    os.chdir("/")


def build(mounts: Sequence[dict[str, Any]]) -> str:
    """Assemble the minimal root and pivot into it (this process and its children).

    Raises OSError with nothing changed for this process's view of the files (the
    assembly tmpfs is detached again) when a step fails before the pivot.
    """
    if _libc is None:
        raise OSError("a minimal root needs Linux")
    binds, links, sources = plan(mounts)
    fds: list[int] = []
    try:
        fds.extend(os.open(sources.get(path, path), os.O_PATH | os.O_CLOEXEC) for path, _ in binds)
        kinds = [stat.S_ISDIR(os.fstat(fd).st_mode) for fd in fds]
        _mount("tmpfs", _ASSEMBLY, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755,size=1m")
        try:
            for (path, mode), fd, is_dir in zip(binds, fds, kinds, strict=True):
                _bind(fd, _make_point(_ASSEMBLY, path, is_dir), mode)
            for path, target in links:
                if not os.path.lexists(_ASSEMBLY + path):
                    os.symlink(target, _ASSEMBLY + path)
            _pivot(_ASSEMBLY)
        except OSError:
            assert _libc is not None
            os.chdir("/")
            _libc.umount2(_ASSEMBLY.encode(), _MNT_DETACH)
            raise
    finally:
        for fd in fds:
            os.close(fd)
    _mount(None, "/", None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV)
    also = f"; mounts also at their sandbox paths: {', '.join(sources)}" if sources else ""
    return f"active ({len(binds)} bind mounts on a read-only tmpfs{also})"
