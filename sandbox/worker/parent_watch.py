"""The zygote's watch on the host process that started it: the zygote ends when the
host ends, however it ends and whatever the host forked.

The end of the control socket is not enough: a child the host forked (C code that
forks without Python's at-fork hooks, for one) may hold the host's end open after the
host died. So the zygote holds a pidfd of the host, readable once the host process has
exited, and asks the kernel for a parent-death signal as well. That signal comes when
the host *thread* that started the zygote exits, which a live host does too (a zygote
restarted from a supervisor thread): it only wakes the zygote, which then asks the
pidfd — or, without pidfds, its parent pid — whether the host is really gone.

Worker side: standard library only.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import select
import signal
import sys

#: Sent by the kernel when the thread that started the zygote exits (a wake-up only).
PARENT_DEATH_SIGNAL = signal.SIGUSR1
#: How often the zygote looks at its parent pid where no pidfd can be opened.
POLL_S = 1.0
_PR_SET_PDEATHSIG = 1


class ParentWatch:
    """Whether the host process that started this one is gone."""

    def __init__(self, host_pid: int) -> None:
        self.host_pid = host_pid
        self.pidfd: int | None = None
        # Installed before the prctl: the signal must wake this process, not end it.
        signal.signal(PARENT_DEATH_SIGNAL, lambda *_: None)
        _set_parent_death_signal(PARENT_DEATH_SIGNAL)
        with contextlib.suppress(OSError, AttributeError):
            self.pidfd = os.pidfd_open(host_pid)

    @property
    def fds(self) -> list[int]:
        """Descriptors to wait on beside the zygote's own: readable once the host is gone."""
        return [] if self.pidfd is None else [self.pidfd]

    @property
    def poll_s(self) -> float | None:
        """How long a wait may last before :meth:`gone` must be asked (None: no limit)."""
        return None if self.pidfd is not None else POLL_S

    def gone(self) -> bool:
        """True once the host process has exited (this process was handed to another)."""
        # Checked after the pidfd was opened: a host that died before that left this
        # process with another parent, and the pidfd may name a reused pid.
        if os.getppid() != self.host_pid:
            return True
        if self.pidfd is None:
            return False
        return bool(select.select([self.pidfd], [], [], 0)[0])

    def wait_readable(self, fd: int) -> bool:
        """Wait until ``fd`` is readable: False when the host went away first."""
        while not self.gone():
            readable, _, _ = select.select([fd, *self.fds], [], [], self.poll_s)
            if fd in readable:
                return True
        return False

    def forget(self) -> None:
        """In a forked worker: no watch (it dies with the zygote instead)."""
        signal.signal(PARENT_DEATH_SIGNAL, signal.SIG_DFL)
        if self.pidfd is not None:
            with contextlib.suppress(OSError):
                os.close(self.pidfd)
            self.pidfd = None


def _set_parent_death_signal(signum: int) -> None:
    if sys.platform != "linux":
        return
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
    libc.prctl.restype = ctypes.c_int
    if libc.prctl(_PR_SET_PDEATHSIG, signum, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl(PR_SET_PDEATHSIG): {os.strerror(err)}")
