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

from .execution import ErrorCode
from .limits_text import explain
from .process import signal_name

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
        return Death(ErrorCode.CPU_LIMIT, explain("cpu_limit", limits))
    lost = "variables from earlier runs are lost."
    if status is None and zygote_cause is not None:
        how = (
            f"The sandbox's zygote (the process that forks workers) {zygote_cause}, and "
            "its workers died with it. The sandbox has started a new one"
        )
        return Death(ErrorCode.WORKER_CRASHED, f"{how}; {lost}")
    if signum:
        name = signal_name(int(signum))
        if signum in (signal.SIGKILL, signal.SIGTERM, signal.SIGINT, signal.SIGXCPU):
            how = f"killed by {name} from outside the sandbox (not by one of its limits)"
        else:
            how = (
                f"killed by {name}; this usually means a crash in C code, e.g. very "
                "deep recursion"
            )
    elif detail is not None:
        how = f"stopped: {detail}"
    elif status is not None:
        how = f"exited with status {status.get('code')}"
    else:
        how = "gone: its channel closed"
    message = f"The sandbox worker running the script was {how}; {lost}"
    return Death(ErrorCode.WORKER_CRASHED, message)
