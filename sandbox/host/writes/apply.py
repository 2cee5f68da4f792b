"""Applying one run's changes of a staged copy to the real directory, as hostile input.

The copy (``staging.py``) was the script's to shape: any name, link, special file,
hard link, sparse file or depth. So every step here works from two directory
descriptors, the copy's and the real mount's, one validated name at a time
(``dirfd.py``): nothing is resolved through a link on either side, only regular files
and directories are applied, a file is applied by copying its bytes (never by linking),
and the budget is charged only with what the host really holds afterwards.

:func:`plan` looks at both sides and prices the run; :func:`apply` then carries it out,
re-checking each step, and returns what it could not do.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field

from sandbox.host.writes.dirfd import (
    SAME_MOUNT,
    Cursor,
    Parts,
    kind_of,
    lstat_at,
    open_at,
    open_dir,
)

FILE, DIRECTORY = "file", "directory"
_CHUNK = 1 << 20


@dataclass(frozen=True)
class Entry:
    """One entry of a copy, as the walk saw it."""

    kind: str  # FILE, DIRECTORY, or what else it is (never applied)
    size: int  # apparent size: a sparse file is charged its full length
    mode: int
    stamp: tuple[int, int, int]  # inode, mtime, ctime: any change changes one of them


def entry_of(info: os.stat_result, root_device: int) -> Entry:
    """The walk's stat of an entry as an :class:`Entry`."""
    kind = kind_of(info.st_mode)
    if kind == DIRECTORY and info.st_dev != root_device:
        kind = "mount point"
    size = info.st_size if kind == FILE else 0
    stamp = (info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
    return Entry(kind, size, stat.S_IMODE(info.st_mode), stamp)


#: Characters of a path shown in a report (a script's paths may be 16 kB long).
SHOWN_PATH = 160


def shown(parts: Parts) -> str:
    """``parts`` as a path for a report, its middle elided when it is long."""
    path = "/".join(parts)
    if len(path) <= SHOWN_PATH:
        return path
    return f"{path[: SHOWN_PATH // 2 - 2]}/…/{path[-(SHOWN_PATH // 2 - 2) :]}"


@dataclass
class Plan:
    """What one run changes, priced against the real directory."""

    removals: list[Parts] = field(default_factory=list)
    writes: list[tuple[Parts, Entry]] = field(default_factory=list)
    refused: list[tuple[Parts, Entry, str]] = field(default_factory=list)
    #: Bytes the real directory gains (negative: loses) if every step succeeds.
    delta: int = 0


class _HostView:
    """The real directory's state at a path, read through descriptors."""

    def __init__(self, host_root: int) -> None:
        self.cursor = Cursor(host_root)

    def lstat(self, parts: Parts) -> os.stat_result | None:
        return lstat_at(self.cursor.parent(parts), parts[-1])


def plan(
    record: dict[Parts, Entry], now: dict[Parts, Entry], host_root: int, *, removals: bool
) -> Plan:
    """The steps from ``record`` (what the host holds of the copy) to ``now``."""
    result = Plan()
    host = _HostView(host_root)
    try:
        gone = {p for p, e in record.items() if now.get(p, e).kind != e.kind or p not in now}
        if removals:
            for parts in sorted(gone, reverse=True):  # what a directory holds first
                result.removals.append(parts)
                if record[parts].kind == FILE:
                    result.delta -= _host_size(host, parts)
        else:
            gone = set()
        created: set[Parts] = set()
        blocked: set[Parts] = set()
        for parts in sorted(now):  # a directory before what it holds
            entry = now[parts]
            if entry.kind not in (FILE, DIRECTORY) or record.get(parts) == entry:
                continue
            why = _refusal(host, parts, entry, gone, created, blocked)
            if why is not None:
                blocked.add(parts)
                result.refused.append((parts, entry, why))
                continue
            if entry.kind == DIRECTORY:
                created.add(parts)
            else:
                existing = 0 if parts in gone or parts[:-1] in created else _host_size(host, parts)
                result.delta += entry.size - existing
            result.writes.append((parts, entry))
    finally:
        host.cursor.close()
    return result


def _host_size(host: _HostView, parts: Parts) -> int:
    try:
        info = host.lstat(parts)
    except OSError:
        return 0
    return info.st_size if info is not None and stat.S_ISREG(info.st_mode) else 0


def _refusal(
    host: _HostView,
    parts: Parts,
    entry: Entry,
    gone: set[Parts],
    created: set[Parts],
    blocked: set[Parts],
) -> str | None:
    """Why ``entry`` cannot be applied at ``parts`` on the host, or None."""
    for depth in range(1, len(parts)):
        if parts[:depth] in blocked:
            return f"{shown(parts[:depth])} was not applied"
    if parts[:-1] in created or parts in gone:
        return None  # made (or emptied) by this very run
    try:
        info = host.lstat(parts)
    except OSError as exc:
        return exc.strerror or str(exc)
    if info is None:
        return None
    if entry.kind == DIRECTORY:
        return None if stat.S_ISDIR(info.st_mode) else f"a {kind_of(info.st_mode)} on the host"
    if not stat.S_ISREG(info.st_mode):
        return f"a {kind_of(info.st_mode)} on the host"
    if info.st_nlink > 1:
        return "a file with other hard links on the host"
    return None


def apply(
    steps: Plan,
    record: dict[Parts, Entry],
    copy_root: int,
    host_root: int,
    room: int,
) -> list[str]:
    """Carry out ``steps``; ``record`` is updated with each step that succeeded, and the
    real directory never gains more than ``room`` bytes. Returns what failed."""
    problems: list[str] = []
    host, copy = Cursor(host_root), Cursor(copy_root, SAME_MOUNT)
    try:
        for parts in steps.removals:
            try:
                room += _remove(host, parts, record[parts])
            except OSError as exc:
                problems.append(f"removing {shown(parts)}: {exc.strerror or exc}")
                continue
            del record[parts]
        for parts, entry in steps.writes:
            was = record.get(parts)
            # A mode the script changed (not one the host's user changed meanwhile).
            mode = entry.mode if was is not None and was.mode != entry.mode else None
            try:
                if entry.kind == DIRECTORY:
                    _make_directory(host.parent(parts), parts[-1], entry.mode, mode)
                else:
                    parent = host.parent(parts)
                    room -= _write(parent, parts[-1], copy, parts, entry, room, mode)
            except _PartlyWritten as exc:
                room -= exc.gained
                problems.append(f"writing {shown(parts)}: {exc.strerror or exc}")
                continue
            except OSError as exc:
                problems.append(f"writing {shown(parts)}: {exc.strerror or exc}")
                continue
            record[parts] = entry
    finally:
        host.close()
        copy.close()
    return problems


class _PartlyWritten(OSError):
    """A copy into the host failed half-way; ``gained`` says by how much the file grew."""

    def __init__(self, gained: int, reason: str) -> None:
        super().__init__(errno.EIO, f"partly written: {reason}")
        self.gained = gained


def _remove(host: Cursor, parts: Parts, was: Entry) -> int:
    """Remove what the host holds at ``parts`` if it is still what was applied there;
    returns the bytes freed."""
    parent = host.parent(parts)
    info = lstat_at(parent, parts[-1])
    if info is None:
        return 0
    if kind_of(info.st_mode) != was.kind:
        raise OSError(errno.EEXIST, f"now a {kind_of(info.st_mode)} on the host, left alone")
    if was.kind == DIRECTORY:
        os.rmdir(parts[-1], dir_fd=parent)
        return 0
    os.unlink(parts[-1], dir_fd=parent)
    return info.st_size


def _make_directory(parent: int, name: str, mode: int, changed: int | None) -> None:
    try:
        os.mkdir(name, (mode & 0o777) | 0o700, dir_fd=parent)
    except FileExistsError:
        info = lstat_at(parent, name)
        if info is None or not stat.S_ISDIR(info.st_mode):
            kind = kind_of(info.st_mode) if info is not None else "vanished entry"
            raise OSError(errno.EEXIST, f"a {kind} on the host") from None
        if changed is not None:
            fd = open_dir(parent, name)
            try:
                os.fchmod(fd, (changed & 0o777) | 0o700)
            finally:
                os.close(fd)


def _write(
    parent: int, name: str, copy: Cursor, parts: Parts, entry: Entry, room: int, mode: int | None
) -> int:
    """Copy the file's bytes from the copy into the host (and its mode, when ``mode``
    says the script changed it); returns the bytes gained."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY
    source = open_at(copy.parent(parts), parts[-1], flags, resolve=SAME_MOUNT)
    try:
        info = os.fstat(source)
        if not stat.S_ISREG(info.st_mode) or entry_of(info, info.st_dev).stamp != entry.stamp:
            raise OSError(errno.ESTALE, "changed in the copy while it was applied")
        before = lstat_at(parent, name)
        if before is not None and (not stat.S_ISREG(before.st_mode) or before.st_nlink > 1):
            raise OSError(errno.EEXIST, "no longer a plain file on the host")
        old = before.st_size if before is not None else 0
        if entry.size - old > room:
            raise OSError(errno.EDQUOT, "would take the mount beyond its budget")
        flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK
        target = open_at(parent, name, flags, (entry.mode & 0o777) | 0o600)
        try:
            _check_target(target, before)
            if mode is not None:
                # Never setuid, setgid or sticky; the host keeps reading and writing it.
                os.fchmod(target, (mode & 0o777) | 0o600)
            try:
                _copy(source, target, entry.size)
            except OSError as exc:
                gained = os.fstat(target).st_size - old
                raise _PartlyWritten(gained, exc.strerror or str(exc)) from None
            return os.fstat(target).st_size - old
        finally:
            os.close(target)
    finally:
        os.close(source)


def _check_target(target: int, before: os.stat_result | None) -> None:
    info = os.fstat(target)
    if not stat.S_ISREG(info.st_mode) or info.st_nlink > 1:
        raise OSError(errno.EEXIST, "no longer a plain file on the host")
    if before is not None and info.st_ino != before.st_ino:
        raise OSError(errno.ESTALE, "replaced on the host while it was applied")


def _copy(source: int, target: int, size: int) -> None:
    """``size`` bytes of ``source`` into ``target`` (holes are written as zeros: the
    budget charges a file's length, and the host holds exactly that)."""
    os.ftruncate(target, 0)
    left = size
    while left > 0 and (chunk := os.read(source, min(_CHUNK, left))):
        view = memoryview(chunk)
        while view:
            view = view[os.write(target, view) :]
        left -= len(chunk)
