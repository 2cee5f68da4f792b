"""Waiting until a worker cannot run: its private layer is read only then.

The host reads and applies a session's changes while every thread of the worker is
stopped (the session SIGSTOPs its process group at the end of each run) or the worker
is gone, so that the layer does not change under the walk; each file is checked
against the walk again as it is copied all the same.
"""

from __future__ import annotations

import os
import select
import time

#: How long the host waits for a worker to stop (or die) before it gives up applying.
STILL_TIMEOUT_S = 5.0


def task_states(pid: int) -> list[str] | None:
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


def readable(fd: int) -> bool:
    """True when ``fd`` (a pidfd: the process has exited) is readable now."""
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
        if pidfd is not None and readable(pidfd):
            return True  # exited: the pid cannot have been reused while the pidfd is open
        states = task_states(pid)
        if states is None or all(state in "TtZX" for state in states):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(pause)
        pause = min(pause * 2, 0.02)
