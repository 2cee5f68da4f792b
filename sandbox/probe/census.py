"""Finding processes a script left behind: a worker must not outlive its session.

Two views: the processes tied to one worker (its descendants and anything in its
session or process group), noted while the session is open and checked after it
closed; and orphans — processes started during a run whose command line is a sandbox
worker's (or carries a case's nonce) and whose parent is gone (re-parented to pid 1).
Survivors are killed by their own pid once recorded.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable

import sandbox.probe.procinfo as procinfo

#: Every zygote and worker runs ``python ... -c "...from sandbox.worker.zygote import main..."``.
WORKER_MARK = "sandbox.worker.zygote"

Identity = tuple[int, int]


def tied_to(worker_pid: int | None) -> set[Identity]:
    """The worker, its descendants and its session/process-group members, right now."""
    if worker_pid is None:
        return set()
    everyone = list(procinfo.processes())
    found = {p.identity for p in everyone if worker_pid in (p.pid, p.sid, p.pgid)}
    parents = {worker_pid}
    while True:
        children = {p for p in everyone if p.ppid in parents and p.pid not in parents}
        if not children:
            return found
        found |= {p.identity for p in children}
        parents |= {p.pid for p in children}


def _running(ident: Identity) -> bool:
    info = procinfo.read(ident[0])
    return info is not None and info.start_ticks == ident[1] and info.state not in "ZX"


def alive(identities: Iterable[Identity], grace_s: float = 0.5) -> list[Identity]:
    """Those still running (not zombies) after at most ``grace_s`` seconds."""
    pending = set(identities)
    deadline = time.monotonic() + grace_s
    while True:
        living = {ident for ident in pending if _running(ident)}
        if not living or time.monotonic() >= deadline:
            return sorted(living)
        pending = living
        time.sleep(0.05)


def orphans(since: float, nonces: Iterable[str] = ()) -> list[Identity]:
    """Processes started after ``since`` (wall clock) that look like escaped workers and
    are still running after a short grace."""
    marks = [WORKER_MARK, *nonces]
    earliest = procinfo.boot_ticks(since - 1.0)
    found = []
    for info in procinfo.processes():
        if info.start_ticks < earliest or info.state in "ZX":
            continue
        if not any(mark in info.cmdline for mark in marks):
            continue
        if info.ppid in (0, 1) or procinfo.read(info.ppid) is None:
            found.append(info.identity)
    # The same grace as for tied processes: when a zygote dies (any sandbox's on this
    # machine, e.g. a fault test killing one on purpose), its workers are re-parented
    # for the moment before their death signal ends them; a real escape outlives it.
    return alive(found)


def describe(identities: Iterable[Identity]) -> str:
    """Pids and command lines, for a report."""
    parts = []
    for pid, _ in identities:
        info = procinfo.read(pid)
        parts.append(f"{pid} ({info.cmdline[:80] if info else '?'})")
    return ", ".join(parts)


def kill(identities: Iterable[Identity]) -> None:
    """SIGKILL each recorded process (if it is still the same process) and what it started."""
    targets: set[Identity] = set()
    for ident in identities:
        if _running(ident):
            targets |= {ident} | tied_to(ident[0])
    for ident in targets:
        if _running(ident):
            with contextlib.suppress(OSError):
                os.kill(ident[0], signal.SIGKILL)
