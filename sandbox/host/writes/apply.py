"""Applying a session's changes to the real directory, one path at a time.

:func:`apply` takes a layer's changes now and the record of what was applied from it
before, and carries out the difference, parents first: removals (a directory with
everything in it), directories made where missing, files replaced whole
(``atomic.py``). Each step works from directory descriptors of the layer and of the
real directory, one plain name at a time (``dirfd.py``): no link is followed on either
side, only regular files and directories are applied, a file by copying its bytes.

When two sessions change one path, the later apply wins that path whole: its file
replaces the other's (a directory there too), its removal removes what is there. A
directory that only holds a session's changes is made where missing and never replaces
anything; where the host holds something else there, the changes below it are reported,
not applied. ``record`` is updated with each step that succeeded, so that a failed step
is tried again after the next run; each refusal is reported once.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass, field

from sandbox.execution import escape_name
from sandbox.host.writes.atomic import remove_entry, replace_file
from sandbox.host.writes.dirfd import SAME_MOUNT, Cursor, Parts, kind_of, lstat_at, open_at
from sandbox.host.writes.layer import DIRECTORY, FILE, REMOVED, Change, Changes

#: Characters of a path shown in a report (a script's paths may be 16 kB long).
SHOWN_PATH = 160
#: Refusals described per apply (the rest are counted): thousands of refused changes
#: must not make the run's output, nor the host's work describing them, unbounded.
MAX_PROBLEMS = 20


def _escaped_end(parts: Parts, chars: int, *, head: bool) -> str:
    """The first (or last) ``chars`` characters of ``parts`` as an escaped path,
    escaping no more of it than that (escaping works character by character)."""
    taken: list[str] = []
    length = 0
    for part in parts if head else reversed(parts):
        taken.append(escape_name(part[:chars] if head else part[-chars:]))
        length += len(taken[-1]) + 1
        if length > chars:
            break
    path = "/".join(taken if head else reversed(taken))
    return path[:chars] if head else path[-chars:]


def shown(parts: Parts) -> str:
    """``parts`` as an escaped path for a report, its middle elided when it is long."""
    if sum(len(part) + 1 for part in parts) <= SHOWN_PATH // 4:
        return "/".join(escape_name(part) for part in parts)  # short even escaped
    path = _escaped_end(parts, SHOWN_PATH + 1, head=True)
    if len(path) <= SHOWN_PATH:
        return path
    half = SHOWN_PATH // 2 - 2
    return f"{_escaped_end(parts, half, head=True)}/…/{_escaped_end(parts, half, head=False)}"


@dataclass
class Outcome:
    """What one apply did: the files written (and whether each was new on the host),
    and what it could not do (at most :data:`MAX_PROBLEMS` described, the rest counted)."""

    written: list[tuple[Parts, Change, bool]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    unsaid: int = 0


def _under(parts: Parts, others: set[Parts]) -> Parts | None:
    for depth in range(1, len(parts)):
        if parts[:depth] in others:
            return parts[:depth]
    return None


def apply(
    now: Changes,
    record: Changes,
    reported: Changes,
    layer_root: int,
    host_root: int,
    *,
    removals: bool = True,
) -> Outcome:
    """Carry out what differs between ``now`` and ``record`` (what was applied from this
    layer before), updating it; ``reported`` holds what was reported as not applied,
    so that each refusal is said once."""
    outcome = Outcome()
    steps: Changes = {p: c for p, c in now.items() if record.get(p) != c}
    if removals:
        # What the layer no longer holds (the script removed what it had made) goes too.
        steps.update({p: Change(REMOVED) for p in record if p not in now})
    for parts in [p for p in reported if p not in now]:
        del reported[parts]
    host, layer = Cursor(host_root), Cursor(layer_root, SAME_MOUNT)
    blocked: set[Parts] = set()
    removed: set[Parts] = set()
    try:
        for parts in sorted(steps):  # a directory before what it holds
            change = steps[parts]
            if change.kind == REMOVED and _under(parts, removed) is not None:
                record.pop(parts, None)  # gone with its directory
                continue
            why: str | Parts | None = None
            if (top := _under(parts, blocked)) is not None:
                why = top  # described only if it is said
            else:
                try:
                    created = _step(parts, change, record.get(parts), now, host, layer)
                except OSError as exc:
                    why = exc.strerror or str(exc)
            if why is not None:
                blocked.add(parts)
                if reported.get(parts) != change:
                    if len(outcome.problems) < MAX_PROBLEMS:
                        verb = "removing" if change.kind == REMOVED else "writing"
                        because = why if isinstance(why, str) else f"{shown(why)} was not applied"
                        outcome.problems.append(f"{verb} {shown(parts)}: {because}")
                    else:
                        outcome.unsaid += 1
                    reported[parts] = change
                continue
            reported.pop(parts, None)
            if change.kind == REMOVED:
                removed.add(parts)
                if parts not in now:
                    record.pop(parts, None)
                    continue
            elif change.kind == FILE:
                outcome.written.append((parts, change, created))
            record[parts] = change
    finally:
        host.close()
        layer.close()
    return outcome


def _step(
    parts: Parts, change: Change, was: Change | None, now: Changes, host: Cursor, layer: Cursor
) -> bool:
    """Apply one change (``was``: what was applied there before); True when the host
    had nothing at ``parts`` before."""
    if change.kind not in (FILE, DIRECTORY, REMOVED):
        raise OSError(errno.EPERM, f"a {change.kind}, which is not applied")
    name = parts[-1]
    if change.kind == REMOVED:
        try:
            parent = host.parent(parts)
        except FileNotFoundError:
            return False  # its directory is gone already: nothing to remove
        remove_entry(parent, name)
        return False
    parent = host.parent(parts)
    before = lstat_at(parent, name)
    if change.kind == DIRECTORY:
        # A directory replaces what is there once: when it first is opaque.
        again = was is not None and was.opaque and was.stamp[0] == change.stamp[0]
        _directory(parent, parts, change.opaque and not again, change.mode, before, now)
        if before is not None and was is not None and was.mode != change.mode:
            _chmod_directory(parent, name, change.mode)  # the script changed it
        return before is None
    if before is not None and stat.S_ISDIR(before.st_mode):
        remove_entry(parent, name)  # the later apply wins the path whole
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY
    source = open_at(layer.parent(parts), name, flags, resolve=SAME_MOUNT)
    try:
        info = os.fstat(source)
        stamp = (info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
        if not stat.S_ISREG(info.st_mode) or stamp != change.stamp:
            raise OSError(errno.ESTALE, "changed in the layer while it was applied")
        replace_file(parent, name, source, change.size, change.mode)
    finally:
        os.close(source)
    return before is None


def _chmod_directory(parent: int, name: str, mode: int) -> None:
    fd = open_at(parent, name, os.O_RDONLY | os.O_DIRECTORY)
    try:
        # Never setgid or sticky; the host keeps entering and changing it.
        os.fchmod(fd, (mode & 0o777) | 0o700)
    finally:
        os.close(fd)


def _directory(
    parent: int,
    parts: Parts,
    replaces: bool,
    mode: int,
    before: os.stat_result | None,
    now: Changes,
) -> None:
    name = parts[-1]
    if before is not None and not stat.S_ISDIR(before.st_mode):
        if not replaces:
            raise OSError(errno.EEXIST, f"a {kind_of(before.st_mode)} on the host")
        remove_entry(parent, name)
        before = None
    if before is None:
        os.mkdir(name, (mode & 0o777) | 0o700, dir_fd=parent)
        return
    if replaces:
        # The session replaced the directory: what it does not hold goes.
        fd = open_at(parent, name, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for entry in os.listdir(fd):
                if (*parts, entry) not in now:
                    remove_entry(fd, entry)
        finally:
            os.close(fd)
