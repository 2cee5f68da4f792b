"""Walking a directory tree one name at a time, through directory descriptors.

The host applies a session's private changes (``apply.py``): the names come from a
layer the worker controlled, and the real directory may hold links too. Every
operation therefore takes a descriptor of a directory already checked plus a single
validated name: no path string longer than one component is ever resolved (so depth is
not bounded by PATH_MAX), and no symlink is followed. Where the kernel has ``openat2``
(Linux 5.6), each step is also resolved with ``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS``;
elsewhere ``O_NOFOLLOW`` on a single validated name gives the same guarantee.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import platform
import stat
from collections.abc import Iterator

RESOLVE_NO_XDEV, RESOLVE_NO_MAGICLINKS, RESOLVE_NO_SYMLINKS, RESOLVE_BENEATH = 1, 2, 4, 8
#: Every step: never above the directory, never through a link of any kind.
BENEATH = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
#: Reading a worker's copy: also never into another filesystem mounted inside it.
SAME_MOUNT = BENEATH | RESOLVE_NO_XDEV
#: ``openat2`` on the architectures that share the generic syscall table number.
_OPENAT2 = {"x86_64": 437, "aarch64": 437}.get(platform.machine())
DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


_libc: ctypes.CDLL | None = None
_have_openat2: bool | None = None


def _openat2(dir_fd: int, name: str, flags: int, mode: int, resolve: int) -> int | None:
    """``openat2``'s descriptor, or None where this kernel or platform lacks it."""
    global _libc, _have_openat2
    if _OPENAT2 is None or _have_openat2 is False:
        return None
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    how = _OpenHow(flags, mode if flags & os.O_CREAT else 0, resolve)
    syscall = _libc.syscall
    syscall.restype = ctypes.c_long
    fd = syscall(
        ctypes.c_long(_OPENAT2),
        ctypes.c_int(dir_fd),
        ctypes.c_char_p(os.fsencode(name)),
        ctypes.byref(how),
        ctypes.c_size_t(ctypes.sizeof(how)),
    )
    if fd >= 0:
        _have_openat2 = True
        return int(fd)
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EPERM) and not _have_openat2:
        # Absent, or refused by a container's filter: the O_NOFOLLOW walk does the job.
        _have_openat2 = False
        return None
    raise OSError(err, os.strerror(err), name)


def check_name(name: str) -> str:
    """``name`` if it is a single directory entry name; raises otherwise."""
    if not name or name in (".", "..") or "/" in name or "\0" in name:
        raise OSError(errno.EINVAL, "not a plain entry name", name)
    return name


def open_at(dir_fd: int, name: str, flags: int, mode: int = 0, resolve: int = BENEATH) -> int:
    """Open the entry ``name`` of ``dir_fd`` without following any link."""
    check_name(name)
    flags |= os.O_NOFOLLOW | os.O_CLOEXEC
    fd = _openat2(dir_fd, name, flags, mode, resolve)
    if fd is None:
        fd = os.open(name, flags, mode, dir_fd=dir_fd)
    # Without openat2, a mount crossing is caught by comparing devices.
    crossed = resolve & RESOLVE_NO_XDEV and _have_openat2 is not True
    if crossed and os.fstat(fd).st_dev != os.fstat(dir_fd).st_dev:
        os.close(fd)
        raise OSError(errno.EXDEV, "another filesystem is mounted here", name)
    return fd


def open_dir(dir_fd: int, name: str, resolve: int = BENEATH) -> int:
    """A descriptor of the subdirectory ``name`` (never through a link)."""
    return open_at(dir_fd, name, DIR_FLAGS, resolve=resolve)


def lstat_at(dir_fd: int, name: str) -> os.stat_result | None:
    """The entry ``name`` of ``dir_fd`` itself (a link is not followed); None if absent."""
    try:
        return os.stat(check_name(name), dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def kind_of(mode: int) -> str:
    """What an entry is, in words."""
    for test, word in (
        (stat.S_ISREG, "file"),
        (stat.S_ISDIR, "directory"),
        (stat.S_ISLNK, "symbolic link"),
        (stat.S_ISFIFO, "named pipe"),
        (stat.S_ISSOCK, "socket"),
        (stat.S_ISCHR, "character device"),
        (stat.S_ISBLK, "block device"),
    ):
        if test(mode):
            return word
    return "special file"


class Cursor:
    """Descriptors of the directories along one path below a root, kept open and reused
    from one path to the next (operations come in sorted order, so the next path
    usually shares most of its parents with the last)."""

    def __init__(self, root_fd: int, resolve: int = BENEATH) -> None:
        self._root = root_fd
        self._resolve = resolve
        self._open: list[tuple[str, int]] = []

    def parent(self, parts: tuple[str, ...]) -> int:
        """The descriptor of the directory holding ``parts[-1]``."""
        want = parts[:-1]
        common = 0
        while common < min(len(want), len(self._open)) and self._open[common][0] == want[common]:
            common += 1
        while len(self._open) > common:
            os.close(self._open.pop()[1])
        for name in want[common:]:
            here = self._open[-1][1] if self._open else self._root
            self._open.append((name, open_dir(here, name, self._resolve)))
        return self._open[-1][1] if self._open else self._root

    def open(self, parts: tuple[str, ...]) -> int:
        """A new descriptor of the directory ``parts`` itself (the caller closes it)."""
        return open_dir(self.parent(parts), parts[-1], self._resolve)

    def close(self) -> None:
        """Close every descriptor but the root (which the caller owns)."""
        while self._open:
            with contextlib.suppress(OSError):
                os.close(self._open.pop()[1])


Parts = tuple[str, ...]


class Walk:
    """Every entry below a directory descriptor, as (path parts, lstat), parents first.

    Links are not followed, and a directory on another device than the root (a mount
    point) is listed but not entered. ``left_out`` says afterwards what was not listed:
    entries beyond ``max_entries``, directories deeper than ``max_depth`` (the walk
    holds a descriptor per level), or ones that could not be opened.
    """

    def __init__(self, root_fd: int, *, max_depth: int, max_entries: int, resolve: int) -> None:
        self._root = root_fd
        self._max_depth = max_depth
        self._max_entries = max_entries
        self._resolve = resolve
        self.left_out: str | None = None

    def __iter__(self) -> Iterator[tuple[Parts, os.stat_result]]:
        device = os.fstat(self._root).st_dev
        first = os.dup(self._root)
        stack: list[tuple[int, Iterator[os.DirEntry[str]], Parts]]
        stack = [(first, os.scandir(first), ())]
        count = 0
        try:
            while stack:
                fd, entries, prefix = stack[-1]
                entry = next(entries, None)
                if entry is None:
                    _close(*stack.pop()[:2])
                    continue
                count += 1
                if count > self._max_entries:
                    self.left_out = f"entries beyond the first {self._max_entries}"
                    return
                try:
                    info = entry.stat(follow_symlinks=False)
                except FileNotFoundError:
                    continue  # removed since it was listed
                parts = (*prefix, entry.name)
                if stat.S_ISDIR(info.st_mode) and len(stack) > self._max_depth:
                    self.left_out = f"directories more than {self._max_depth} levels deep"
                    continue
                yield parts, info
                if not stat.S_ISDIR(info.st_mode) or info.st_dev != device:
                    continue
                child = self._enter(fd, entry.name, info)
                if child is not None:
                    stack.append((child, os.scandir(child), parts))
        finally:
            for fd, entries, _ in stack:
                _close(fd, entries)

    def _enter(self, fd: int, name: str, info: os.stat_result) -> int | None:
        try:
            child = open_dir(fd, name, self._resolve)
        except OSError as exc:
            self.left_out = f"directories that could not be opened ({exc.strerror or exc})"
            return None
        if os.fstat(child).st_ino != info.st_ino:
            os.close(child)
            self.left_out = "directories that changed while they were read"
            return None
        return child


def _close(fd: int, entries: Iterator[os.DirEntry[str]]) -> None:
    close = getattr(entries, "close", None)
    if close is not None:
        close()
    os.close(fd)
