"""The host's side of staged writes: apply a worker's changes to the real directories.

A worker whose writable mounts are private tmpfs copies (``staging.py``) changes only
those copies. After each run the host reads them through ``/proc/PID/root`` (opened
once, when the worker starts, before any script ran) and applies what changed since the
previous run — new and modified files, new directories, removals — to the real
directory, provided the session's growth stays within the mount's ``max_bytes``.
Otherwise nothing of that run is applied and the session is stopped.

The copies are read without following links, and only regular files and directories
are applied, so a script cannot make the host read or write anywhere else.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .mount_usage import MAX_ENTRIES, tree_size

#: Directory levels below a mount that are applied to the host.
MAX_DEPTH = 64
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


@dataclass(frozen=True)
class _Entry:
    is_dir: bool
    size: int
    stamp: tuple[int, int, int]  # inode, mtime, ctime: any write changes one of them


def _walk(root: int) -> tuple[dict[str, _Entry], str | None]:
    """Directories and regular files under ``root`` by relative path (links not
    followed), and what was left out, if anything: entries beyond ``MAX_ENTRIES``, or
    deeper than ``MAX_DEPTH`` (the walk holds a descriptor per level; the host's
    descriptors are not the script's to exhaust)."""
    found: dict[str, _Entry] = {}
    left_out: str | None = None
    first = os.dup(root)
    stack: list[tuple[int, Iterator[os.DirEntry[str]], str]] = [(first, os.scandir(first), "")]
    try:
        while stack:
            if len(found) >= MAX_ENTRIES:
                left_out = f"entries beyond the first {MAX_ENTRIES}"
                break
            fd, entries, prefix = stack[-1]
            entry = next(entries, None)
            if entry is None:
                stack.pop()
                _close(fd, entries)
                continue
            info = entry.stat(follow_symlinks=False)
            path = prefix + entry.name
            stamp = (info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
            if stat.S_ISREG(info.st_mode):
                found[path] = _Entry(False, info.st_size, stamp)
            elif stat.S_ISDIR(info.st_mode):
                if len(stack) > MAX_DEPTH:
                    left_out = f"directories more than {MAX_DEPTH} levels deep"
                    continue
                found[path] = _Entry(True, 0, stamp)
                child = os.open(entry.name, _DIR_FLAGS, dir_fd=fd)
                stack.append((child, os.scandir(child), path + "/"))
    finally:
        for fd, entries, _ in stack:
            _close(fd, entries)
    return found, left_out


def _close(fd: int, entries: Iterator[os.DirEntry[str]]) -> None:
    close = getattr(entries, "close", None)
    if close is not None:
        close()
    os.close(fd)


def _bytes(entries: dict[str, _Entry]) -> int:
    return sum(e.size for e in entries.values())


def _read(root: int, path: str, limit: int) -> bytes:
    """The content of the regular file ``path`` under ``root``, following no link."""
    *parents, name = path.split("/")
    fd = os.dup(root)
    try:
        for part in parents:
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
        file = os.open(name, _FILE_FLAGS, dir_fd=fd)
    finally:
        os.close(fd)
    try:
        if not stat.S_ISREG(os.fstat(file).st_mode):
            raise OSError(f"{path} is no longer a regular file")
        chunks, total = [], 0
        while total < limit and (chunk := os.read(file, min(1 << 20, limit - total))):
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(file)


def _copy_out(data: bytes, target: str) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(target, flags, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


class _StagedMount:
    def __init__(self, mount: dict[str, Any], start_bytes: int) -> None:
        self.host_path: str = mount["host_path"]
        self.sandbox_path: str = mount["sandbox_path"]
        self.max_bytes = int(mount["max_bytes"])
        self.start_bytes = start_bytes
        self.root: int | None = None
        self.seen: dict[str, _Entry] = {}
        self.left_out: str | None = None

    def attach(self, pid: int) -> None:
        self.detach()
        self.root = os.open(f"/proc/{pid}/root{self.host_path}", _DIR_FLAGS)
        self.seen, _ = _walk(self.root)
        self.left_out = None

    def detach(self) -> None:
        if self.root is not None:
            os.close(self.root)
            self.root = None

    def pending(self) -> tuple[dict[str, _Entry], str | None]:
        """The copy as it is now, and why it may not be applied (None: it may)."""
        if self.root is None:
            return self.seen, None
        now, self.left_out = _walk(self.root)
        grown = tree_size(self.host_path) + _bytes(now) - _bytes(self.seen) - self.start_bytes
        if grown <= self.max_bytes:
            return now, None
        return now, (
            f"The session wrote {grown} bytes under {self.sandbox_path}, more than its "
            f"budget of {self.max_bytes} bytes; nothing of this run was kept and the "
            f"session's worker was stopped. Write less, or summarise before writing."
        )

    def apply(self, now: dict[str, _Entry]) -> list[str]:
        """Make the real directory show the changes from ``seen`` to ``now``; returns
        what could not be applied."""
        real = os.path.realpath(self.host_path)
        problems: list[str] = []
        # Gone, or changed between file and directory: removed first, children first.
        # Not from a partial walk, where missing does not mean removed.
        gone = [p for p, e in self.seen.items() if p not in now or now[p].is_dir != e.is_dir]
        if self.left_out is not None:
            gone = []
        for path in sorted(gone, reverse=True):
            target = os.path.join(real, path)
            try:
                if self.seen[path].is_dir:
                    os.rmdir(target)
                else:
                    os.unlink(target)
            except FileNotFoundError:
                continue
            except OSError as exc:
                problems.append(f"removing {path}: {exc.strerror or exc}")
        for path in sorted(now):  # a directory sorts before what it holds
            entry = now[path]
            if self.seen.get(path) == entry:
                continue
            target = os.path.join(real, path)
            try:
                # Never through a link the host side may have left in the real directory.
                if os.path.realpath(os.path.dirname(target)) != os.path.dirname(target):
                    raise OSError(f"{os.path.dirname(path)} is a link on the host")
                if entry.is_dir:
                    os.makedirs(target, exist_ok=True)
                else:
                    _copy_out(_read(self.root_fd, path, entry.size), target)
            except OSError as exc:
                problems.append(f"writing {path}: {exc.strerror or exc}")
        self.seen = now
        if self.left_out is not None:
            problems.append(f"{self.left_out}, and removals, were not applied")
        return [f"{self.sandbox_path}: {p}" for p in problems]

    @property
    def root_fd(self) -> int:
        assert self.root is not None
        return self.root


class StagedWrites:
    """A session's writable mounts whose workers write to private copies."""

    def __init__(self, mounts: list[dict[str, Any]], start_bytes: dict[str, int]) -> None:
        """``start_bytes``: each writable mount's size (by sandbox path) when the session
        started."""
        self._mounts = [
            _StagedMount(m, start_bytes[m["sandbox_path"]]) for m in mounts if m["mode"] == "rw"
        ]
        self._problems: list[str] = []

    def attach(self, pid: int) -> None:
        """Open the copies of a newly started worker (before it runs any script)."""
        for mount in self._mounts:
            mount.attach(pid)

    def overdrawn(self) -> str | None:
        """Apply the last run's changes; None, or why nothing was applied."""
        pending = [(mount, *mount.pending()) for mount in self._mounts]
        for _, _, problem in pending:
            if problem is not None:
                return problem
        for mount, now, _ in pending:
            self._problems += mount.apply(now)
        return None

    def take_problems(self) -> list[str]:
        """What the last applications could not do (e.g. a host directory not writable)."""
        problems, self._problems = self._problems, []
        return problems

    def close(self) -> None:
        """Let go of the copies (their memory is freed with the last reference)."""
        for mount in self._mounts:
            mount.detach()
