"""The test process's live children, and the ones its open sandboxes account for."""

from __future__ import annotations

import psutil

from sandbox.host.sandbox import open_sandboxes


def live_children() -> set[int]:
    """Pids of this process's descendants that are alive (zombies excluded)."""
    pids = set()
    for proc in psutil.Process().children(recursive=True):
        try:
            if proc.status() != psutil.STATUS_ZOMBIE:
                pids.add(proc.pid)
        except psutil.NoSuchProcess:
            pass
    return pids


def accounted() -> set[int]:
    """Pids the open sandboxes say are theirs (zygotes, spares, sessions' workers)."""
    pids: set[int] = set()
    for sandbox in open_sandboxes():
        pids |= sandbox.processes()
    return pids
