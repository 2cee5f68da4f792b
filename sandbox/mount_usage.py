"""Host-side accounting of what a session wrote under its writable mounts.

The language layer counts every byte its ``open`` writes; a script running with that
layer off writes through the OS, where the kernel caps each file (RLIMIT_FSIZE) but not
a mount's total. The host therefore measures each writable mount after every run, and
a session that grew one beyond its ``max_bytes`` is stopped.
"""

from __future__ import annotations

import os
from typing import Any

#: Directory entries scanned per mount and check, so a huge tree cannot stall the host.
MAX_ENTRIES = 100_000


def tree_size(root: str) -> int:
    """Bytes of the regular files under ``root`` (symlinks not followed)."""
    total, seen = 0, 0
    stack = [root]
    while stack and seen < MAX_ENTRIES:
        try:
            entries = os.scandir(stack.pop())
        except OSError:
            continue
        with entries:
            for entry in entries:
                seen += 1
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):
                        total += entry.stat(follow_symlinks=False).st_size
                except OSError:
                    continue
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
