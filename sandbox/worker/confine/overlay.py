"""Writable mounts as private copy-on-write views: an overlay per mount and worker.

The worker never writes a host directory. Before confinement, in its own user and mount
namespaces, it covers each writable mount with an overlay whose lower layer is the host
directory (read only: the minimal root binds it so) and whose upper layer is a fresh
tmpfs of bounded size, mounted nowhere (``fsmount``): what the script creates, changes
or removes lands there — new and copied-up files, directories, whiteouts for removals.
The host opens that tmpfs once, through ``/proc/<pid>/fd`` before any script ran, reads
it after each run as hostile input and applies the session's own changes
(``sandbox/host/writes/``). The worker's own descriptor of the tmpfs leads nowhere:
Landlock, applied afterwards, grants no path beneath it. The cost does not depend on
the directory's size: nothing is copied until the script changes it.

The tmpfs holds the mount's budget and some slack for page rounding, in pages the
worker's address-space limit does not see: their size comes off it (``reserved_bytes``).
The overlay and its second bind at the sandbox path are ``nosuid,nodev,noexec``.

Where the kernel has no overlay for this user (no ``fsopen``, or no overlay in a user
namespace), :func:`build` raises :class:`Unavailable` with nothing changed, and the
caller falls back to a staged copy (``staging.py``).

Worker side: standard library only.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple

#: Pages beyond a mount's budget in its upper layer (rounding, directories copied up).
SLACK_PAGES = 256
#: Entries an upper layer may hold beyond one per page of its budget: whiteouts for
#: removals cost an inode and no page.
EXTRA_INODES = 16_384
#: Memory a worker must keep for scripts beyond what it uses when it starts.
MIN_WORKER_BYTES = 48 * 1024 * 1024
PAGE = 4096
#: The upper and work directories inside each layer's tmpfs.
UPPER, WORK = "upper", "work"

# The mount API's numbers are the same on x86_64 and aarch64 (the generic table).
_NR = (
    {"open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432}
    if platform.machine() in ("x86_64", "aarch64")
    else None
)
_FSOPEN_CLOEXEC, _FSMOUNT_CLOEXEC, _OPEN_TREE_CLONE, _OPEN_TREE_CLOEXEC = 1, 1, 1, 0o2000000
_FSCONFIG_SET_FLAG, _FSCONFIG_SET_STRING, _FSCONFIG_CMD_CREATE = 0, 1, 6
_MOUNT_ATTR_NOSUID, _MOUNT_ATTR_NODEV, _MOUNT_ATTR_NOEXEC = 0x2, 0x4, 0x8
_MOVE_MOUNT_F_EMPTY_PATH = 4
_AT_FDCWD = -100
_SEALED = _MOUNT_ATTR_NOSUID | _MOUNT_ATTR_NODEV | _MOUNT_ATTR_NOEXEC

_libc = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None
if _libc is not None:
    _libc.syscall.restype = ctypes.c_long


class Unavailable(OSError):
    """This kernel or user cannot make an overlay here: nothing was changed."""


class Covered(NamedTuple):
    """What :func:`build` did."""

    description: str
    #: Bytes the upper layers may hold: taken off the worker's address-space limit.
    reserved_bytes: int
    #: Each writable mount's upper-layer tmpfs, in mount order (the host opens them).
    layers: list[int]


def _call(name: str, *args: Any) -> int:
    assert _libc is not None and _NR is not None
    result = int(_libc.syscall(ctypes.c_long(_NR[name]), *args))
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{name}: {os.strerror(err)}")
    return result


def _set(fs: int, key: str, value: str | None) -> None:
    if value is None:
        _call("fsconfig", fs, _FSCONFIG_SET_FLAG, key.encode(), None, 0)
    else:
        _call("fsconfig", fs, _FSCONFIG_SET_STRING, key.encode(), os.fsencode(value), 0)


def _new_mount(fstype: str, options: dict[str, str | None]) -> int:
    """A mount of a new ``fstype`` attached nowhere: its descriptor."""
    fs = _call("fsopen", fstype.encode(), _FSOPEN_CLOEXEC)
    try:
        for key, value in options.items():
            _set(fs, key, value)
        _call("fsconfig", fs, _FSCONFIG_CMD_CREATE, None, None, 0)
        return _call("fsmount", fs, _FSMOUNT_CLOEXEC, _SEALED)
    finally:
        os.close(fs)


def layer_bytes(mount: dict[str, Any]) -> int:
    """The size of ``mount``'s upper layer: its budget and the slack."""
    return int(mount["max_bytes"]) + SLACK_PAGES * PAGE


def _layer(mount: dict[str, Any]) -> int:
    """A fresh tmpfs for ``mount``'s upper layer, holding ``upper`` and ``work``."""
    inodes = int(mount["max_bytes"]) // PAGE + EXTRA_INODES
    tmpfs = _new_mount(
        "tmpfs", {"size": str(layer_bytes(mount)), "nr_inodes": str(inodes), "mode": "0700"}
    )
    try:
        mode = os.stat(mount["host_path"]).st_mode & 0o777
        os.mkdir(UPPER, mode | 0o700, dir_fd=tmpfs)
        os.mkdir(WORK, 0o700, dir_fd=tmpfs)
    except BaseException:
        os.close(tmpfs)
        raise
    return tmpfs


def _escaped(path: str) -> str:
    # One lower layer: its ':' would separate layers, its '\' escapes.
    return path.replace("\\", "\\\\").replace(":", "\\:")


def _overlay(mount: dict[str, Any], tmpfs: int) -> int:
    """The overlay of ``mount``'s host directory and its upper layer in ``tmpfs``."""
    options: dict[str, str | None] = {
        "lowerdir": _escaped(mount["host_path"]),
        # Relative to the working directory: the tmpfs is mounted nowhere else.
        "upperdir": UPPER,
        "workdir": WORK,
        # A user namespace's overlay keeps its own data in user.overlay.* xattrs; no
        # feature that would make the upper layer mean more than its tree.
        "userxattr": None,
        "redirect_dir": "nofollow",
        "metacopy": "off",
        "index": "off",
        "xino": "off",
    }
    os.fchdir(tmpfs)
    try:
        return _new_mount("overlay", options)
    finally:
        os.chdir("/")


def second_binds(writable: Sequence[dict[str, Any]]) -> dict[str, str]:
    """host path → sandbox path, for each mount bound at its sandbox path as well."""
    binds: dict[str, str] = {}
    for mount in writable:
        host, there = mount["host_path"], mount["sandbox_path"]
        try:
            a, b = os.stat(host), os.stat(there)
        except OSError:
            continue
        if there != host and (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino):
            binds[host] = there
    return binds


def _depth(mount: dict[str, Any]) -> int:
    return str(mount["host_path"]).rstrip("/").count("/")


def _place(mount_fd: int, target: str) -> None:
    _call("move_mount", mount_fd, b"", _AT_FDCWD, os.fsencode(target), _MOVE_MOUNT_F_EMPTY_PATH)


def build(mounts: Sequence[dict[str, Any]], memory_bytes: int, address_space: int) -> Covered:
    """Cover every ``rw`` mount with its overlay (irreversible for this process).

    ``memory_bytes`` is the worker's memory limit and ``address_space`` what it uses
    now. Raises :class:`Unavailable` (nothing changed) where overlays cannot be made
    here, OSError when these mounts do not fit the memory limit, and RuntimeError when
    placing them failed half-way (the worker must not run).
    """
    if _libc is None or _NR is None:
        raise Unavailable(errno.ENOSYS, "overlays need Linux on x86_64 or aarch64")
    writable = [m for m in mounts if m["mode"] == "rw"]
    reserved = sum(layer_bytes(m) for m in writable)
    left = memory_bytes - reserved - address_space
    if left < MIN_WORKER_BYTES:
        raise OSError(
            f"the private layers of the writable mounts ({reserved >> 20} MiB: their "
            f"max_bytes and slack) would leave the worker {max(left, 0) >> 20} MiB of "
            f"limits.memory_mb, less than {MIN_WORKER_BYTES >> 20} MiB"
        )
    layers: list[int] = []
    overlays: list[int] = []
    try:
        for mount in writable:
            layers.append(_layer(mount))
            overlays.append(_overlay(mount, layers[-1]))
    except OSError as exc:
        for fd in layers + overlays:
            os.close(fd)
        raise Unavailable(exc.errno, f"no overlay here: {exc.strerror or exc}") from None
    binds = second_binds(writable)
    # Outer directories first: a writable mount inside another one is covered on top.
    placing = sorted(zip(writable, overlays, strict=True), key=lambda p: _depth(p[0]))
    try:
        for mount, overlay in placing:
            _place(overlay, mount["host_path"])
            if mount["host_path"] in binds:
                clone = _call(
                    "open_tree",
                    _AT_FDCWD,
                    os.fsencode(mount["host_path"]),
                    _OPEN_TREE_CLONE | _OPEN_TREE_CLOEXEC,
                )
                try:
                    _place(clone, binds[mount["host_path"]])
                finally:
                    os.close(clone)
    except OSError as exc:
        raise RuntimeError(f"covering the writable mounts failed: {exc}") from None
    finally:
        for fd in overlays:
            os.close(fd)
    description = (
        f"active (copy-on-write overlays of {len(writable)} writable mount(s), "
        f"{reserved >> 20} MiB of the memory limit)"
    )
    return Covered(description, reserved, layers)
