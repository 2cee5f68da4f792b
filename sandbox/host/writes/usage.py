"""Bytes under writable mounts written directly (``writes = "direct"``), after each run.

Outside the boundary: the worker writes the directory itself, where the kernel caps each
file (RLIMIT_FSIZE) but not a mount's total, and other sessions write too. The host
measures each mount after every run, and a session under which one grew beyond its
``max_bytes`` is stopped (the bytes stay). Private writes charge each session's own
layer instead (``layer.py``).
"""

from __future__ import annotations

import os
import stat
from typing import Any

from sandbox.host.writes.dirfd import BENEATH, DIR_FLAGS, Walk

#: Directory entries scanned per mount and check, so a huge tree cannot stall the host.
MAX_ENTRIES = 100_000
#: Directory levels measured (a descriptor is held per level).
MAX_DEPTH = 128


def tree_size(root: str | int) -> int:
    """Apparent bytes of the regular files under ``root`` (a path or a directory
    descriptor): sparse files count at their full length, links are not followed, and
    paths of any length are reached (one name at a time, through descriptors)."""
    try:
        fd = os.dup(root) if isinstance(root, int) else os.open(root, DIR_FLAGS)
    except OSError:
        return 0
    total = 0
    try:
        walk = Walk(fd, max_depth=MAX_DEPTH, max_entries=MAX_ENTRIES, resolve=BENEATH)
        for _, info in walk:
            if stat.S_ISREG(info.st_mode):
                total += info.st_size
    except OSError:
        pass  # what could be measured before the tree changed under the walk
    finally:
        os.close(fd)
    return total


class MountUsage:
    """Baselines of the writable mounts when a session starts, and the checks after."""

    def __init__(self, mounts: list[dict[str, Any]]) -> None:
        self._writable = [m for m in mounts if m["mode"] == "rw"]
        #: Bytes under each writable mount (by sandbox path) when the session started.
        self.baseline = {m["sandbox_path"]: tree_size(m["host_path"]) for m in self._writable}

    def overdrawn(self) -> str | None:
        """None while every writable mount is within budget; else what went wrong."""
        for mount in self._writable:
            grown = tree_size(mount["host_path"]) - self.baseline[mount["sandbox_path"]]
            if grown > mount["max_bytes"]:
                return (
                    f"The session wrote {grown} bytes under {mount['sandbox_path']}, more than "
                    f"its budget of {mount['max_bytes']} bytes; the session's worker was "
                    f"stopped. Write less, or summarise before writing."
                )
        return None
