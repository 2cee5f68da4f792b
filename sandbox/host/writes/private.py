"""A session's writable mounts as private views, seen from the host.

Every worker of the session writes a private layer per writable mount — an overlay's
upper layer (``overlay.py``; the host opens the worker's descriptor of it through
``/proc/<pid>/fd`` when the worker starts, before any script ran) or, where the kernel
has no overlay, a staged copy (``staging.py``, reached through ``/proc/<pid>/root``).
After each run, while the worker cannot run (``still.py``), the host reads each layer as
hostile input (``layer.py``), charges the session what its layers hold — never what the
directory holds, which other sessions change too — and applies what changed since the
last run (``apply.py``). A file the layer holds is charged what it adds to the host: its
cost less that of the file the host held at that path when the session first changed it
(an overlay copies a file whole to change a byte of it; another session's bytes in it
were charged to that session). A run that takes a mount beyond its ``max_bytes`` has
none of its changes applied, and the session refuses further runs.

What a worker's layer cost stays charged when the worker is replaced (a new one starts
with an empty layer over the directory as the host now has it). ``Execution.files``
lists the files the session's own apply wrote, by sandbox path, names escaped.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from typing import Any

from sandbox.execution import MAX_LISTED_CHARS, WrittenFile, escape_name
from sandbox.host.writes.apply import MAX_PROBLEMS, Outcome, apply
from sandbox.host.writes.dirfd import DIR_FLAGS, Cursor, Parts, lstat_at, open_dir
from sandbox.host.writes.layer import (
    FILE,
    Change,
    Changes,
    Reading,
    StagedCopy,
    change_of,
    read_upper,
)
from sandbox.host.writes.still import readable, wait_still

#: The upper directory inside a layer's tmpfs (``overlay.UPPER``).
UPPER = "upper"


class _Mount:
    """One writable mount of the session: the real directory and the worker's layer."""

    def __init__(self, mount: dict[str, Any]) -> None:
        self.host_path: str = mount["host_path"]
        self.sandbox_path: str = mount["sandbox_path"]
        self.max_bytes = int(mount["max_bytes"])
        self.host: int | None = None
        self.layer: int | None = None
        self.staged: StagedCopy | None = None
        #: What was applied from the current layer, path by path, and what was reported
        #: as not applied.
        self.record: Changes = {}
        self.reported: Changes = {}
        #: What the session's earlier workers' layers cost.
        self.carried = 0
        #: What the host's file at each path the layer changed cost when the layer
        #: first held it (0: none there).
        self.replaced: dict[Parts, int] = {}
        #: Lines for the run's output that are no refusal (files written, not listed).
        self.notes: list[str] = []

    def attach(self, pid: int, layer: int | None) -> None:
        """Open the new worker ``pid``'s layer (its descriptor ``layer``, or None for a
        staged copy), before the worker runs any script."""
        self.retire()
        if self.host is None:
            self.host = os.open(self.host_path, DIR_FLAGS)
        if layer is None:
            copy = os.open(f"/proc/{pid}/root{self.host_path}", DIR_FLAGS)
            if _same(copy, self.host):
                os.close(copy)
                raise OSError(f"{self.host_path} is not covered by a private view in the worker")
            self.layer, self.staged = copy, StagedCopy(copy)
            return
        # The worker's own descriptor, opened before any script ran: its tmpfs.
        # (A magic link: followed, so without O_NOFOLLOW.)
        tmpfs = os.open(f"/proc/{pid}/fd/{layer}", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            self.layer = open_dir(tmpfs, UPPER)
        finally:
            os.close(tmpfs)
        if _same(self.layer, self.host):
            self.retire()
            raise OSError(f"the worker's layer of {self.host_path} is the directory itself")

    def read(self) -> Reading:
        """The layer's changes now."""
        if self.layer is None:
            return Reading()
        return self.staged.read() if self.staged is not None else read_upper(self.layer)

    def cost(self, changes: Changes) -> int:
        """What ``changes`` add to the host (see the module docstring)."""
        new = [p for p, c in changes.items() if c.kind == FILE and p not in self.replaced]
        if new and self.host is not None:
            cursor = Cursor(self.host)
            try:
                for parts in sorted(new):
                    self.replaced[parts] = self._host_cost(cursor, parts)
            finally:
                cursor.close()
        return sum(
            max(0, change.cost - self.replaced.get(parts, 0))
            if change.kind == FILE
            else change.cost
            for parts, change in changes.items()
        )

    def _host_cost(self, cursor: Cursor, parts: Parts) -> int:
        try:
            info = lstat_at(cursor.parent(parts), parts[-1])
        except OSError:  # no directory there (or not one): nothing is replaced
            return 0
        if info is None:
            return 0
        host = change_of(info, info.st_dev)
        return host.cost if host.kind == FILE else 0

    def overdrawn(self, reading: Reading) -> str | None:
        """Why ``reading`` may not be applied (None: it may)."""
        spent = self.carried + self.cost(reading.changes)
        if spent <= self.max_bytes:
            return None
        return (
            f"The session wrote {spent} bytes under {self.sandbox_path}, more than its "
            f"budget of {self.max_bytes} bytes; nothing of this run was kept and the "
            f"session's worker was stopped. Write less, or summarise before writing."
        )

    def apply(self, reading: Reading) -> tuple[list[WrittenFile], list[str]]:
        """Apply ``reading``: the files written (as many as are listed, the rest counted
        in :attr:`notes`), and report lines of what was not applied."""
        if self.layer is None or self.host is None:
            return [], []
        outcome: Outcome = apply(
            reading.changes,
            self.record,
            self.reported,
            self.layer,
            self.host,
            removals=reading.left_out is None,
        )
        problems = outcome.problems
        if reading.left_out is not None:
            problems.append(f"{reading.left_out}, and removals, were not applied")
        if len(problems) + outcome.unsaid > MAX_PROBLEMS:
            # They go to the run's stdout: thousands of refused files must not make it
            # unbounded.
            more = len(problems) + outcome.unsaid - MAX_PROBLEMS + 1
            problems = [*problems[: MAX_PROBLEMS - 1], f"and {more} more changes"]
        files = self._listed(outcome.written)
        if (unlisted := len(outcome.written) - len(files)) > 0:
            self.notes.append(
                f"{self.sandbox_path}: {unlisted} more files were written than are listed "
                f"(the listing holds {MAX_LISTED_CHARS} characters of paths per mount and run)"
            )
        return files, [f"{self.sandbox_path}: {p}" for p in problems]

    def _listed(self, written: list[tuple[Parts, Change, bool]]) -> list[WrittenFile]:
        """The first of ``written`` whose paths fit :data:`MAX_LISTED_CHARS` together,
        escaped (each path only once its bytes are known to fit unescaped)."""
        files: list[WrittenFile] = []
        left = MAX_LISTED_CHARS
        for parts, change, created in written:
            if len(self.sandbox_path) + sum(len(p) + 1 for p in parts) > left:
                break  # escaping never makes a name shorter
            path = "/".join([self.sandbox_path, *(escape_name(p) for p in parts)])
            if len(path) > left:
                break
            left -= len(path)
            files.append(WrittenFile(path=path, size=change.size, created=created))
        return files

    def retire(self) -> None:
        """Let the current layer go; what was applied from it stays charged."""
        if self.layer is not None:
            self.carried += self.cost(self.record)
            self.record, self.reported, self.replaced = {}, {}, {}
            os.close(self.layer)
            self.layer, self.staged = None, None

    def close(self) -> None:
        self.retire()
        if self.host is not None:
            os.close(self.host)
            self.host = None


def _same(a: int, b: int) -> bool:
    one, other = os.fstat(a), os.fstat(b)
    return (one.st_dev, one.st_ino) == (other.st_dev, other.st_ino)


class PrivateWrites:
    """A session's writable mounts, each a private view in its worker."""

    def __init__(self, mounts: list[dict[str, Any]]) -> None:
        self._mounts = [_Mount(m) for m in mounts if m["mode"] == "rw"]
        self._pid: int | None = None
        self._pidfd: int | None = None
        self._files: list[WrittenFile] = []
        self._problems: list[str] = []

    def attach(self, pid: int, layers: Sequence[int]) -> None:
        """Open the layers of a newly started worker (before it runs any script)."""
        self._release_worker()
        if layers and len(layers) != len(self._mounts):
            raise OSError(
                f"the worker has {len(layers)} private layers for {len(self._mounts)} "
                "writable mounts"
            )
        self._pid = pid
        with contextlib.suppress(OSError, AttributeError):
            self._pidfd = os.pidfd_open(pid)
        for index, mount in enumerate(self._mounts):
            mount.attach(pid, layers[index] if layers else None)

    def overdrawn(self) -> str | None:
        """Apply the last run's changes; None, or why nothing was applied.

        The session has stopped the worker (or it is dying): this waits until it has.
        """
        if self._pid is not None and not wait_still(self._pid, self._pidfd):
            return (
                "The session's worker could not be stopped to apply what it wrote; nothing "
                "of this run was kept and the worker was stopped."
            )
        readings = [(mount, mount.read()) for mount in self._mounts]
        for mount, reading in readings:
            problem = mount.overdrawn(reading)
            if problem is not None:
                return problem
        for mount, reading in readings:
            files, problems = mount.apply(reading)
            self._files += files
            self._problems += problems
        if self._pidfd is not None and readable(self._pidfd):
            # The worker is gone: nothing changes its layers any more, let them go now.
            for mount in self._mounts:
                mount.retire()
        return None

    def take_files(self) -> list[WrittenFile]:
        """The files the session's applies wrote since the last call."""
        files, self._files = self._files, []
        return files

    def take_notes(self) -> list[str]:
        """Lines for the run's output since the last call: how many files the applies
        wrote beyond what ``Execution.files`` lists."""
        notes = [note for mount in self._mounts for note in mount.notes]
        for mount in self._mounts:
            mount.notes = []
        return notes

    def take_problems(self) -> list[str]:
        """What the applies since the last call could not do."""
        problems, self._problems = self._problems, []
        return problems

    def _release_worker(self) -> None:
        if self._pidfd is not None:
            os.close(self._pidfd)
        self._pid = self._pidfd = None

    def close(self) -> None:
        """Let go of the layers (their memory goes with the last reference) and of the
        real directories."""
        self._release_worker()
        for mount in self._mounts:
            mount.close()
