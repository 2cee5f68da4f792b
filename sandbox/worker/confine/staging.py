"""Writable mounts as private, size-capped copies, where the kernel has no overlay.

The fallback of ``overlay.py``: in its own user and mount namespaces, the worker covers
each writable mount with a tmpfs of bounded size holding a copy of the directory (and
binds that copy at the mount's sandbox path as well). The script writes there; after
each run the host compares the copy with what it held when the worker started and
applies the session's changes (``sandbox/host/writes/``). Copying costs time and memory
in proportion to the directory, so directories beyond :data:`MAX_COPY_BYTES` or
:data:`MAX_COPY_ENTRIES` are not copied: :func:`stage` raises, the worker reports why,
and the host runs no script in it.

Worker side: standard library only.
"""

from __future__ import annotations

import ctypes
import itertools
import os
import resource
import stat
import sys
from collections.abc import Sequence
from typing import Any, NamedTuple

from sandbox.worker.confine.overlay import second_binds

_CLONE_NEWNS, _CLONE_NEWUSER = 0x00020000, 0x10000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REC, _MS_PRIVATE = 2, 4, 8, 0x4000, 1 << 18
_MS_BIND, _MS_REMOUNT = 4096, 32
_PAGE = 4096
#: Room beyond budget and copy for page rounding: up to this many partly filled pages.
SLACK_PAGES = 256
#: Entries a staged copy may hold beyond what it started with.
EXTRA_INODES = 4096
#: Largest directory copied when a worker starts; bigger writable mounts are not copied.
MAX_COPY_BYTES = 256 * 1024 * 1024
MAX_COPY_ENTRIES = 20_000
#: Memory a worker must keep for scripts beyond what it uses when it starts (the host
#: refuses a ``memory_mb`` below the zygote's size plus the same margin).
MIN_WORKER_BYTES = 48 * 1024 * 1024

_libc = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


class _Source:
    """One writable mount's real directory, measured and held open before it is covered."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        self.mode = stat.S_IMODE(os.fstat(self.fd).st_mode)
        self.pages, self.entries = 0, 0
        try:
            self._measure(self.fd)
        except BaseException:
            os.close(self.fd)
            raise

    def _measure(self, fd: int) -> None:
        with os.scandir(fd) as entries:
            for entry in entries:
                self.entries += 1
                if self.entries > MAX_COPY_ENTRIES:
                    raise OSError(f"{self.path} holds more than {MAX_COPY_ENTRIES} entries")
                info = entry.stat(follow_symlinks=False)
                self.pages += -(-info.st_size // _PAGE) + 1
                if self.pages * _PAGE > MAX_COPY_BYTES:
                    raise OSError(f"{self.path} holds more than {MAX_COPY_BYTES} bytes")
                if stat.S_ISDIR(info.st_mode):
                    try:
                        child = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                    except PermissionError:
                        continue  # left out of the copy as well
                    try:
                        self._measure(child)
                    finally:
                        os.close(child)


def _copy_tree(src_fd: int, dst: str) -> None:
    """Regular files, directories and symlinks of ``src_fd`` into ``dst``; times kept.

    What this user may not read is left out (the host leaves it alone as well: only
    what the copy shows can be changed or removed through it).
    """
    with os.scandir(src_fd) as entries:
        for entry in entries:
            info = entry.stat(follow_symlinks=False)
            target = os.path.join(dst, entry.name)
            try:
                if stat.S_ISDIR(info.st_mode):
                    child = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=src_fd)
                    try:
                        os.mkdir(target, stat.S_IMODE(info.st_mode) | 0o700)
                        _copy_tree(child, target)
                    finally:
                        os.close(child)
                elif stat.S_ISREG(info.st_mode):
                    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                    source = os.open(entry.name, flags, dir_fd=src_fd)
                    try:
                        _copy_file(source, target, info.st_mode)
                    finally:
                        os.close(source)
                elif stat.S_ISLNK(info.st_mode):
                    os.symlink(os.readlink(entry.name, dir_fd=src_fd), target)
                else:
                    continue  # sockets, fifos, devices: not part of a mount's contents
            except PermissionError:
                continue
            os.utime(target, ns=(info.st_atime_ns, info.st_mtime_ns), follow_symlinks=False)


def _copy_file(source: int, target: str, mode: int) -> None:
    out = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        while chunk := os.read(source, 1 << 20):
            view = memoryview(chunk)
            while view:
                view = view[os.write(out, view) :]
    finally:
        os.close(out)


def tmpfs_bytes(source: _Source, mount: dict[str, Any]) -> int:
    """The size of the tmpfs covering ``mount``: its copy, its budget, page rounding."""
    return (source.pages + SLACK_PAGES) * _PAGE + int(mount["max_bytes"])


def address_space_bytes() -> int:
    """This process's address space now (what the worker needs before any script)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * _PAGE
    except OSError:
        # No /proc in a minimal root: the peak resident size is a lower bound.
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


class Staged(NamedTuple):
    """What :func:`stage` did: its description, and the memory its copies may take."""

    description: str
    #: Bytes the tmpfs copies may hold: taken off the worker's address-space limit, so
    #: that the copies and the process together stay within ``limits.memory_mb``.
    reserved_bytes: int


class StagingFailed(RuntimeError):
    """Staging broke half-way: the worker must not run scripts."""


def _cover(
    writable: list[dict[str, Any]], sources: list[_Source], ids: tuple[int, int] | None
) -> None:
    assert _libc is not None
    if ids is not None:
        uid, gid = ids
        _write("/proc/self/setgroups", "deny")
        _write("/proc/self/uid_map", f"{uid} {uid} 1")
        _write("/proc/self/gid_map", f"{gid} {gid} 1")
    # Nothing mounted here may propagate back to the host's namespace.
    _check(_libc.mount(None, b"/", None, _MS_REC | _MS_PRIVATE, None), "mount private")
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    for mount, source in zip(writable, sources, strict=True):
        size = tmpfs_bytes(source, mount)
        options = f"size={size},nr_inodes={source.entries + EXTRA_INODES},mode={source.mode:o}"
        target = source.path.encode()
        _check(_libc.mount(b"tmpfs", target, b"tmpfs", flags, options.encode()), "mount")
        _copy_tree(source.fd, source.path)
        if mount.get("also_at"):
            also = str(mount["also_at"]).encode()
            _check(_libc.mount(target, also, None, _MS_BIND, None), "bind")
            _check(_libc.mount(None, also, None, _MS_REMOUNT | _MS_BIND | flags, None), "remount")
    # The new user namespace granted every capability inside it: the worker drops them
    # all right after (privileges.drop, called by confine).


def stage(
    mounts: Sequence[dict[str, Any]], memory_bytes: int, *, entered: bool = False
) -> Staged:
    """Cover each ``rw`` mount with a private tmpfs copy.

    A tmpfs page is memory no rlimit of the worker counts, so the copies' sizes come out
    of ``memory_bytes`` (the worker's memory budget): the caller lowers the worker's
    address-space limit by ``reserved_bytes``. Copies that would leave the worker less
    than :data:`MIN_WORKER_BYTES` beyond what it uses already are not made.

    ``entered``: this worker already has its own user and mount namespaces
    (``namespaces.py``); otherwise it enters them here.

    Irreversible for this process. Raises OSError when this machine or these mounts do
    not allow it (nothing has changed then: the caller reports staging as degraded),
    and :class:`StagingFailed` when it broke half-way (the worker must stop).
    """
    if _libc is None:
        raise OSError("user namespaces exist only on Linux")
    writable = [m for m in mounts if m["mode"] == "rw"]
    binds = second_binds(writable)
    writable = [{**m, "also_at": binds.get(m["host_path"])} for m in writable]
    paths = sorted(m["host_path"] for m in writable)
    for outer, inner in itertools.pairwise(paths):
        if inner == outer or inner.startswith(outer.rstrip("/") + "/"):
            raise OSError(f"writable mounts {outer} and {inner} nest")
    sources: list[_Source] = []
    try:
        sources.extend(_Source(m["host_path"]) for m in writable)
        reserved = sum(tmpfs_bytes(s, m) for s, m in zip(sources, writable, strict=True))
        left = memory_bytes - reserved - address_space_bytes()
        if left < MIN_WORKER_BYTES:
            raise OSError(
                f"the copies of the writable mounts ({reserved >> 20} MiB: contents and "
                f"max_bytes) would leave the worker {max(left, 0) >> 20} MiB of "
                f"limits.memory_mb, less than {MIN_WORKER_BYTES >> 20} MiB"
            )
        ids = None
        if not entered:
            ids = (os.getuid(), os.getgid())
            _check(_libc.unshare(_CLONE_NEWUSER | _CLONE_NEWNS), "unshare")
        try:
            _cover(writable, sources, ids)
        except OSError as exc:
            # Writes might now land in a copy the host never reads: no state to run in.
            raise StagingFailed(f"staging the writable mounts failed: {exc}") from None
    finally:
        for source in sources:
            os.close(source.fd)
    description = (
        f"active (staged copies of {len(writable)} writable mount(s), no overlay here: "
        f"{reserved >> 20} MiB of the memory limit)"
    )
    return Staged(description, reserved)
