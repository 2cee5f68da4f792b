"""The host's two writes to a real directory: replace one entry whole, or remove one.

A file is written to a temporary name in its own directory and ``renameat``'d over its
path, so that whatever happens — the host killed half-way, a full disk, another
session's apply at the same path — each file is old or new, never truncated or mixed.
The temporary name starts with :data:`TEMP_PREFIX`; only a host killed between the
write and the rename leaves one behind. Everything works from the parent directory's
descriptor and one plain name (``dirfd.py``): no link is followed, and removing a
directory walks it the same way.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat

from sandbox.host.writes.dirfd import check_name, lstat_at, open_dir

#: What a temporary file of an apply is called (then a random part, then ``.tmp``).
TEMP_PREFIX = ".codeact-apply-"
#: Directory levels a removal descends (one descriptor is held per level).
MAX_REMOVE_DEPTH = 128
_CHUNK = 1 << 20


def replace_file(parent: int, name: str, source: int, size: int, mode: int) -> None:
    """Make ``name`` in ``parent`` a new file holding the first ``size`` bytes of
    ``source`` (holes stay holes), mode ``mode & 0o777`` plus the owner's read and
    write; whatever was at ``name`` but a directory is replaced in one rename."""
    check_name(name)
    temp = f"{TEMP_PREFIX}{secrets.token_hex(8)}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    target = os.open(temp, flags, 0o600, dir_fd=parent)
    try:
        try:
            _copy(source, target, size)
            # Never setuid, setgid or sticky; the host keeps reading and writing it.
            os.fchmod(target, (mode & 0o777) | 0o600)
        finally:
            os.close(target)
        os.rename(temp, name, src_dir_fd=parent, dst_dir_fd=parent)
    except BaseException:
        try:
            os.unlink(temp, dir_fd=parent)
        except OSError:
            pass
        raise


def _copy(source: int, target: int, size: int) -> None:
    """The data of ``source`` up to ``size`` into ``target``, extent by extent."""
    offset = 0
    while offset < size:
        try:
            start = os.lseek(source, offset, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno != errno.ENXIO:  # ENXIO: only a hole is left
                raise
            break
        if start >= size:
            break
        end = min(os.lseek(source, start, os.SEEK_HOLE), size)
        while start < end:
            chunk = os.pread(source, min(_CHUNK, end - start), start)
            if not chunk:
                raise OSError(errno.ESTALE, "the file shrank while it was copied")
            view = memoryview(chunk)
            while view:
                written = os.pwrite(target, view, start)
                start += written
                view = view[written:]
        offset = end
    os.ftruncate(target, size)


def remove_entry(parent: int, name: str, depth: int = 0) -> bool:
    """Remove ``name`` from ``parent``, a directory with everything in it; links are
    removed, never followed. False if nothing was there."""
    info = lstat_at(parent, name)
    if info is None:
        return False
    if stat.S_ISDIR(info.st_mode):
        if depth >= MAX_REMOVE_DEPTH:
            raise OSError(errno.ELOOP, f"more than {MAX_REMOVE_DEPTH} levels deep")
        child = open_dir(parent, name)
        try:
            if os.fstat(child).st_ino != info.st_ino:
                raise OSError(errno.ESTALE, "replaced while it was removed")
            for entry in os.listdir(child):
                remove_entry(child, entry, depth + 1)
        finally:
            os.close(child)
        os.rmdir(name, dir_fd=parent)
    else:
        os.unlink(name, dir_fd=parent)
    return True
