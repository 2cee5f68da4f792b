"""``Sandbox.health()``: what an app that runs sessions all day may want to watch."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from sandbox.host.admission import AdmissionFigures


class SandboxHealth(BaseModel):
    """A snapshot of one sandbox's machinery."""

    model_config = ConfigDict(frozen=True)

    running: bool = Field(description="Started and not closed.")
    zygote_pid: int | None = Field(description="The current fork server's pid.")
    zygote_restarts: int = Field(
        description="Times the zygote was found dead or stuck and replaced."
    )
    last_restart_cause: str | None = Field(description="Why it was last replaced.")
    live_workers: int = Field(description="Sessions' workers alive now.")
    spares: int = Field(description="Spare workers forked ahead of time, ready now.")
    sessions_open: int
    sessions_served: int = Field(description="Sessions opened since the sandbox started.")
    tool_threads_busy: int = Field(
        description="Threads running sync tool calls now (hung calls included)."
    )
    admission: AdmissionFigures | None = Field(description="None before the sandbox starts.")
    cgroup: str = Field(description="The sandbox's cgroup: 'active (...)' or 'degraded: why'.")
    open_files_limit: int | None = Field(
        default=None,
        description="The host's open-files soft limit, raised to the hard one at start "
        "(each open session holds a few descriptors).",
    )

    @classmethod
    def stopped(cls) -> SandboxHealth:
        """The figures of a sandbox not started yet."""
        return cls(
            running=False,
            zygote_pid=None,
            zygote_restarts=0,
            last_restart_cause=None,
            live_workers=0,
            spares=0,
            sessions_open=0,
            sessions_served=0,
            tool_threads_busy=0,
            admission=None,
            cgroup="off: the sandbox is not running",
        )
