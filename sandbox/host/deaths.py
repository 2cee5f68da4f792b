"""Why a worker died, told from its exit notice: the code and the message a run reports.

The host knows when it killed a worker itself (cancellation, its own wall-clock and
CPU kills). The kernel's RLIMIT_CPU sends SIGXCPU at the soft limit and SIGKILL at the
hard one, so a SIGKILL is the kernel's only when the worker had used that much CPU
time (the zygote reports it from ``wait4``); any other SIGKILL came from outside.
"""

from __future__ import annotations

import signal
from dataclasses import dataclass
from typing import Any

from sandbox.execution import ErrorCode
from sandbox.host.workers import signal_name

#: Slack on the kernel's CPU accounting (it checks RLIMIT_CPU once per tick).
_CPU_SLACK_S = 0.5


@dataclass(frozen=True)
class Death:
    """What a run reports about its worker's death."""

    code: ErrorCode
    message: str


def explain_death(
    status: dict[str, Any] | None,
    *,
    killed_by_host: bool,
    detail: str | None,
    zygote_cause: str | None,
    limits: dict[str, Any],
) -> Death:
    """The error code and message for a worker that died during a run.

    ``status`` is the zygote's exit notice (None if none came), ``detail`` what the
    host saw go wrong on the channel (None: it just closed), ``zygote_cause`` how the
    zygote ended if it is gone.
    """
    if killed_by_host and detail is None:
        return Death(ErrorCode.CANCELLED, "The run was cancelled and its worker was killed.")
    signum = (status or {}).get("signal")
    cpu_s = (status or {}).get("cpu_s")
    kernel_cpu = float(limits["session_cpu_s"]) - _CPU_SLACK_S
    if signum in (signal.SIGXCPU, signal.SIGKILL) and cpu_s is not None and cpu_s >= kernel_cpu:
        return Death(
            ErrorCode.CPU_LIMIT,
            f"The session's worker used up its CPU time for the whole session "
            f"(session_cpu_s={limits['session_cpu_s']} s, {cpu_s:.1f} s used) and was "
            "stopped by the kernel; the next run starts in a fresh worker, and variables "
            "from earlier runs are lost.",
        )
    lost = "variables from earlier runs are lost."
    if status is None and zygote_cause is not None:
        how = (
            f"The sandbox's zygote (the process that forks workers) {zygote_cause}, and "
            "its workers died with it. The sandbox has started a new one"
        )
        return Death(ErrorCode.WORKER_CRASHED, f"{how}; {lost}")
    # The host killed it for what it sent: that, not the SIGKILL, is why it died.
    how = f"stopped: {detail}" if killed_by_host and detail is not None else _how(status, detail)
    message = f"The sandbox worker running the script was {how}; {lost}"
    return Death(ErrorCode.WORKER_CRASHED, message)


def _how(status: dict[str, Any] | None, detail: str | None) -> str:
    signum = (status or {}).get("signal")
    if signum:
        name = signal_name(int(signum))
        if signum in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGXCPU):
            return f"killed by {name} from outside the sandbox (not by one of its limits)"
        return f"killed by {name}; this usually means a crash in C code, e.g. very deep recursion"
    if detail is not None:
        return f"stopped: {detail}"
    if status is not None:
        return f"exited with status {status.get('code')}"
    return "gone: its channel closed"
