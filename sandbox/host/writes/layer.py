"""A session's changes to one writable mount, read from its private layer as hostile input.

Each change is one path below the mount: a file to write, a directory to make, a removal
(``REMOVED``), or something else the script made (a link, a pipe, a socket, a device),
which is reported and never applied. Two readers produce them:

- :func:`read_upper` reads an overlay's upper layer (``overlay.py``): every entry in it
  is a change — a whiteout (a character device 0/0) is a removal, a directory marked
  opaque replaces what the host holds there;
- :class:`StagedCopy` compares a staged copy (``staging.py``) with what it held when
  its worker started.

The layer was the script's to shape: any name, link, special file, hard link, sparse
file or depth. It is walked through directory descriptors only (``dirfd.py``), never
through a link nor into another filesystem, to a bounded depth and number of entries.

What a change costs the session's budget (:attr:`Change.cost`): a file its length, or
the blocks it holds where those are more (space reserved with ``fallocate`` counts,
though ``st_size`` says 0), and every file or directory :data:`ENTRY_BYTES` beside, for
the inode and the name it costs the host. A removal costs nothing.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field, replace

from sandbox.host.writes.dirfd import SAME_MOUNT, Cursor, Parts, Walk, kind_of

FILE, DIRECTORY, REMOVED = "file", "directory", "removed"
#: What a file or directory costs the host beside its contents (an inode, a name).
ENTRY_BYTES = 256
#: Directory levels below a mount that are read and applied.
MAX_DEPTH = 64
#: Entries read per mount and run, so that a huge layer cannot stall the host.
MAX_ENTRIES = 100_000
_PAGE = 4096
#: The overlay's mark of a directory that hides everything below it in the lower layer.
OPAQUE_XATTR = "user.overlay.opaque"


@dataclass(frozen=True)
class Change:
    """One path's change, as the walk saw it."""

    kind: str  # FILE, DIRECTORY, REMOVED, or what else it is (never applied)
    size: int = 0
    allocated: int = 0  # bytes of the blocks it holds
    mode: int = 0
    stamp: tuple[int, int, int] = (0, 0, 0)  # inode, mtime, ctime: any change moves one
    opaque: bool = False  # a directory that replaces whatever the host holds there

    @property
    def cost(self) -> int:
        """What the change charges the session's budget."""
        if self.kind == FILE:
            # The last page's rounding aside: a 21-byte file costs 21 bytes.
            return ENTRY_BYTES + max(self.size, self.allocated - (_PAGE - 1))
        return ENTRY_BYTES if self.kind == DIRECTORY else 0


Changes = dict[Parts, Change]


@dataclass
class Reading:
    """A layer's changes now, and what the walk left out (None: nothing)."""

    changes: Changes = field(default_factory=dict)
    left_out: str | None = None

    @property
    def cost(self) -> int:
        """What every change costs together."""
        return sum(change.cost for change in self.changes.values())


def change_of(info: os.stat_result, root_device: int) -> Change:
    """The walk's stat of an entry as a :class:`Change`."""
    kind = kind_of(info.st_mode)
    if kind == DIRECTORY and info.st_dev != root_device:
        kind = "mount point"
    elif stat.S_ISCHR(info.st_mode) and info.st_rdev == 0:
        kind = REMOVED  # an overlay whiteout
    regular = kind == FILE
    return Change(
        kind,
        size=info.st_size if regular else 0,
        allocated=info.st_blocks * 512 if regular else 0,
        mode=stat.S_IMODE(info.st_mode),
        stamp=(info.st_ino, info.st_mtime_ns, info.st_ctime_ns),
    )


def walk(root: int) -> tuple[Changes, str | None]:
    """Every entry below ``root``, as changes, and what was left out."""
    device = os.fstat(root).st_dev
    found = Walk(root, max_depth=MAX_DEPTH, max_entries=MAX_ENTRIES, resolve=SAME_MOUNT)
    entries = {parts: change_of(info, device) for parts, info in found}
    return entries, found.left_out


def _opaque(cursor: Cursor, parts: Parts) -> bool:
    try:
        fd = cursor.open(parts)
    except OSError:
        return False
    try:
        return os.getxattr(fd, OPAQUE_XATTR) == b"y"
    except OSError:
        return False
    finally:
        os.close(fd)


def read_upper(root: int) -> Reading:
    """The changes an overlay's upper layer holds (``root``: its directory)."""
    entries, left_out = walk(root)
    cursor = Cursor(root, SAME_MOUNT)
    try:
        for parts, change in entries.items():
            if change.kind == DIRECTORY and _opaque(cursor, parts):
                entries[parts] = replace(change, opaque=True)
    finally:
        cursor.close()
    return Reading(entries, left_out)


class StagedCopy:
    """A staged copy's changes: what differs from the copy when its worker started."""

    def __init__(self, root: int) -> None:
        self.root = root
        self._start, _ = walk(root)

    def read(self) -> Reading:
        """The changes since the worker started (removals only if the walk was whole)."""
        now, left_out = walk(self.root)
        changes: Changes = {}
        for parts, change in now.items():
            was = self._start.get(parts)
            if change.kind == DIRECTORY:
                # A directory that replaced something (or was made anew) is opaque.
                if was is None or was.kind != DIRECTORY or was.stamp[0] != change.stamp[0]:
                    changes[parts] = replace(change, opaque=was is not None)
            elif was is None or was.stamp != change.stamp or was.kind != change.kind:
                changes[parts] = change
        if left_out is None:
            for parts, was in self._start.items():
                if parts not in now and was.kind in (FILE, DIRECTORY):
                    changes[parts] = Change(REMOVED)
        return Reading(changes, left_out)
