"""Which files changed under writable mounts written directly (``writes = "direct"``).

The host keeps, per session, the size and modification time of every regular file
under each writable mount and compares after each run: what a script wrote through
its ``open``, through a library (``savefig``, ``to_csv``) or as plain Python is listed
alike, by sandbox path (names escaped: ``escape_name``) — along with whatever anyone
else changed there meanwhile, other sessions included: direct writes are outside the
boundary. Symlinks are not followed; at most ``MAX_ENTRIES`` entries are scanned per
mount, so a huge tree cannot stall the host.
"""

from __future__ import annotations

import os
import posixpath
from typing import Any

from sandbox.execution import MAX_LISTED_CHARS, WrittenFile, escape_name

MAX_ENTRIES = 100_000
_Snapshot = dict[str, tuple[int, int]]


def _scan(root: str) -> _Snapshot:
    found: _Snapshot = {}
    seen = 0
    stack = [""]
    while stack and seen < MAX_ENTRIES:
        rel = stack.pop()
        try:
            entries = os.scandir(os.path.join(root, rel) if rel else root)
        except OSError:
            continue
        with entries:
            for entry in entries:
                seen += 1
                path = posixpath.join(rel, entry.name) if rel else entry.name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        stack.append(path)
                    elif entry.is_file(follow_symlinks=False):
                        info = entry.stat(follow_symlinks=False)
                        found[path] = (info.st_size, info.st_mtime_ns)
                except OSError:
                    continue
    return found


class WrittenFiles:
    """Snapshots of the writable mounts; :meth:`since_last` lists what changed."""

    def __init__(self, mounts: list[dict[str, Any]]) -> None:
        self._writable = [m for m in mounts if m["mode"] == "rw"]
        self._last = {m["sandbox_path"]: _scan(m["host_path"]) for m in self._writable}
        #: How many files the last listing left out, per mount, as lines for the output.
        self.notes: list[str] = []

    def since_last(self) -> list[WrittenFile]:
        """Files created or changed since the previous call (or the session's start), up
        to ``MAX_LISTED_CHARS`` of paths per mount (the rest counted in :attr:`notes`)."""
        written: list[WrittenFile] = []
        self.notes = []
        for mount in self._writable:
            now = _scan(mount["host_path"])
            before = self._last[mount["sandbox_path"]]
            left, unlisted = MAX_LISTED_CHARS, 0
            for rel, (size, mtime) in sorted(now.items()):
                if before.get(rel) == (size, mtime):
                    continue
                # Escaping never makes a name shorter: only a path that fits unescaped
                # is escaped.
                if unlisted or len(mount["sandbox_path"]) + len(rel) + 1 > left:
                    unlisted += 1
                    continue
                shown = "/".join(escape_name(part) for part in rel.split("/"))
                path = posixpath.join(mount["sandbox_path"], shown)
                if len(path) > left:
                    unlisted += 1
                    continue
                left -= len(path)
                written.append(WrittenFile(path=path, size=size, created=rel not in before))
            if unlisted:
                self.notes.append(
                    f"{mount['sandbox_path']}: {unlisted} more files changed than are listed "
                    f"(the listing holds {MAX_LISTED_CHARS} characters of paths per mount "
                    "and run)"
                )
            self._last[mount["sandbox_path"]] = now
        return written
