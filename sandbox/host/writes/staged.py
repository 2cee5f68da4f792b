"""The host's side of staged writes: apply a worker's changes to the real directories.

A worker whose writable mounts are private tmpfs copies (``staging.py``) changes only
those copies. After each run the host reads them through ``/proc/PID/root`` (opened
once, when the worker starts, before any script ran) and applies what changed since
what it last applied — new and modified files, new directories, removals — to the real
directory (opened once per session), provided the mount's growth stays within its
``max_bytes``. Otherwise nothing of that run is applied and the session is stopped.

The copy is hostile input (``staged_apply.py``): it is read and applied one name at a
time through directory descriptors, never through a link, and only regular files and
directories are applied. The host applies only while the worker cannot run — every
thread stopped (the session SIGSTOPs the worker's group at the end of a run) or the
process gone — so the copy cannot change under the walk; each file is re-checked
against the walk as it is copied all the same. The record of what the host holds is
updated only by steps that succeeded, so bytes that never reached the host are never
charged nor, later, credited.
"""

from __future__ import annotations

import contextlib
import os
import select
import time
from typing import Any

from sandbox.host.writes import apply as staged_apply
from sandbox.host.writes.apply import DIRECTORY, FILE, Entry
from sandbox.host.writes.dirfd import DIR_FLAGS, SAME_MOUNT, Parts, Walk
from sandbox.host.writes.usage import MAX_ENTRIES, tree_size

#: Directory levels below a mount that are applied to the host.
MAX_DEPTH = 64
#: Lines reported per mount and run about changes not applied (the rest are counted).
MAX_PROBLEMS = 20
#: How long the host waits for a worker to stop (or die) before it gives up applying.
STILL_TIMEOUT_S = 5.0


def _walk(root: int) -> tuple[dict[Parts, Entry], str | None]:
    """Every entry of the copy under ``root``, and what was left out, if anything."""
    device = os.fstat(root).st_dev
    walk = Walk(root, max_depth=MAX_DEPTH, max_entries=MAX_ENTRIES, resolve=SAME_MOUNT)
    found = {parts: staged_apply.entry_of(info, device) for parts, info in walk}
    return found, walk.left_out


def _task_states(pid: int) -> list[str] | None:
    """The scheduler state of each thread of ``pid`` (None once its /proc entry is gone)."""
    # A thread (or the process) that is exiting may still be listed while reading its
    # entry fails with ESRCH rather than ENOENT: gone either way.
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except (FileNotFoundError, ProcessLookupError):
        return None
    states = []
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/stat", "rb") as file:
                states.append(file.read().rsplit(b")", 1)[1].split()[0].decode())
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue  # that thread has just exited
    return states


def _readable(fd: int) -> bool:
    # poll, not select: a busy host's descriptors may lie beyond select's 1024.
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return bool(poller.poll(0))


def wait_still(pid: int, pidfd: int | None, timeout: float = STILL_TIMEOUT_S) -> bool:
    """True once no thread of ``pid`` can run: each is stopped, or the process exited.

    Stopping is asynchronous (a thread on another CPU, or in a system call, stops a
    little after the signal is sent), so the host waits for the kernel to say so.
    """
    deadline = time.monotonic() + timeout
    pause = 0.0002
    while True:
        if pidfd is not None and _readable(pidfd):
            return True  # exited: the pid cannot have been reused while the pidfd is open
        states = _task_states(pid)
        if states is None or all(state in "TtZX" for state in states):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.02)


class _StagedMount:
    def __init__(self, mount: dict[str, Any], start_bytes: int) -> None:
        self.host_path: str = mount["host_path"]
        self.sandbox_path: str = mount["sandbox_path"]
        self.max_bytes = int(mount["max_bytes"])
        self.start_bytes = start_bytes
        self.host: int | None = None  # the real directory
        self.copy: int | None = None  # the worker's copy of it
        #: What the host holds of the copy: entries applied, or there from the start.
        self.record: dict[Parts, Entry] = {}
        #: Entries already reported as not applicable (by stamp), so each is said once.
        self.reported: dict[Parts, tuple[int, int, int]] = {}
        self._refused: list[tuple[Parts, str]] = []
        self._host_bytes = 0

    def attach(self, pid: int) -> None:
        self.detach()
        if self.host is None:
            self.host = os.open(self.host_path, DIR_FLAGS)
        copy = os.open(f"/proc/{pid}/root{self.host_path}", DIR_FLAGS)
        mine, theirs = os.fstat(self.host), os.fstat(copy)
        if (mine.st_dev, mine.st_ino) == (theirs.st_dev, theirs.st_ino):
            os.close(copy)
            raise OSError(f"{self.host_path} is not covered by a copy in the worker")
        self.copy = copy
        now, _ = _walk(copy)
        self.record = {p: e for p, e in now.items() if e.kind in (FILE, DIRECTORY)}
        self.reported = {p: e.stamp for p, e in now.items() if e.kind not in (FILE, DIRECTORY)}

    def detach(self) -> None:
        if self.copy is not None:
            os.close(self.copy)
            self.copy = None

    def close(self) -> None:
        self.detach()
        if self.host is not None:
            os.close(self.host)
            self.host = None

    def prepare(self) -> tuple[staged_apply.Plan | None, str | None, str | None]:
        """This run's steps (None: nothing to do), why they may not be applied (None:
        they may), and what the walk left out."""
        if self.copy is None or self.host is None:
            return None, None, None
        now, left_out = _walk(self.copy)
        steps = staged_apply.plan(self.record, now, self.host, removals=left_out is None)
        refused = [
            (parts, entry, f"a {entry.kind}, which is not applied")
            for parts, entry in now.items()
            if entry.kind not in (FILE, DIRECTORY)
        ]
        self._refused = []
        reported = {p: stamp for p, stamp in self.reported.items() if p in now}
        for parts, entry, why in [*refused, *steps.refused]:
            if reported.get(parts) != entry.stamp:
                reported[parts] = entry.stamp
                self._refused.append((parts, why))
        self.reported = reported
        self._host_bytes = tree_size(self.host)
        grown = self._host_bytes - self.start_bytes + steps.delta
        if grown <= self.max_bytes:
            return steps, None, left_out
        return (
            steps,
            (
                f"The session wrote {grown} bytes under {self.sandbox_path}, more than its "
                f"budget of {self.max_bytes} bytes; nothing of this run was kept and the "
                f"session's worker was stopped. Write less, or summarise before writing."
            ),
            left_out,
        )

    def apply(self, steps: staged_apply.Plan, left_out: str | None) -> list[str]:
        """Carry out ``steps``; returns what could not be applied."""
        assert self.copy is not None and self.host is not None
        room = self.max_bytes - (self._host_bytes - self.start_bytes)
        problems = staged_apply.apply(steps, self.record, self.copy, self.host, room)
        problems += [f"writing {staged_apply.shown(parts)}: {why}" for parts, why in self._refused]
        if left_out is not None:
            problems.append(f"{left_out}, and removals, were not applied")
        if len(problems) > MAX_PROBLEMS:
            # They go to the run's stdout: a copy of thousands of refused files must not
            # make it unbounded.
            more = len(problems) - MAX_PROBLEMS + 1
            problems = [*problems[: MAX_PROBLEMS - 1], f"and {more} more changes"]
        return [f"{self.sandbox_path}: {p}" for p in problems]


class StagedWrites:
    """A session's writable mounts whose workers write to private copies."""

    def __init__(self, mounts: list[dict[str, Any]], start_bytes: dict[str, int]) -> None:
        """``start_bytes``: each writable mount's size (by sandbox path) when the session
        started."""
        self._mounts = [
            _StagedMount(m, start_bytes[m["sandbox_path"]]) for m in mounts if m["mode"] == "rw"
        ]
        self._problems: list[str] = []
        self._pid: int | None = None
        self._pidfd: int | None = None

    def attach(self, pid: int) -> None:
        """Open the copies of a newly started worker (before it runs any script)."""
        self._release_worker()
        self._pid = pid
        with contextlib.suppress(OSError, AttributeError):
            self._pidfd = os.pidfd_open(pid)
        for mount in self._mounts:
            mount.attach(pid)

    def overdrawn(self) -> str | None:
        """Apply the last run's changes; None, or why nothing was applied.

        The session has stopped the worker (or it is dying): this waits until it has.
        """
        if self._pid is not None and not wait_still(self._pid, self._pidfd):
            return (
                "The session's worker could not be stopped to apply what it wrote; nothing "
                "of this run was kept and the worker was stopped."
            )
        prepared = [(mount, *mount.prepare()) for mount in self._mounts]
        for _, _, problem, _ in prepared:
            if problem is not None:
                return problem
        for mount, steps, _, left_out in prepared:
            if steps is not None:
                self._problems += mount.apply(steps, left_out)
        if self._exited():
            # Nothing can change the copies any more: let their memory go now.
            for mount in self._mounts:
                mount.detach()
        return None

    def _exited(self) -> bool:
        return self._pidfd is not None and _readable(self._pidfd)

    def take_problems(self) -> list[str]:
        """What the last applications could not do (e.g. a host directory not writable)."""
        problems, self._problems = self._problems, []
        return problems

    def _release_worker(self) -> None:
        if self._pidfd is not None:
            os.close(self._pidfd)
        self._pid = self._pidfd = None

    def close(self) -> None:
        """Let go of the copies (their memory is freed with the last reference) and of
        the real directories."""
        self._release_worker()
        for mount in self._mounts:
            mount.close()
