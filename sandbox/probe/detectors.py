"""Deciding whether an attack escaped, from host-side evidence only.

An escape is an effect on the host, never the mere absence of an error: a secret of
the host in what came back, a marker file created, a file outside the mounts changed
(content or metadata) or made impossible to open, the host process's limits, priority,
CPUs or scheduling policy changed, a listener contacted, a decoy process killed, a
process alive after its session, a limit not enforced by the host (wall time, output,
result, memory, tool calls), the host's own memory grown, a fresh session that no
longer works, or what the worker must not see of the host (its SysV objects, its
processes, hostname, interfaces and files).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: Fragments of well-known host files: seeing one means a host file was read.
HOST_FILE_FRAGMENTS = ("root:x:0:0:",)

MB = 1024 * 1024


@dataclass
class Bounds:
    """The limits the host must enforce, with the slack a loaded machine needs."""

    wall_s: float
    output_bytes: int
    result_bytes: int
    memory_mb: int
    tool_calls: int
    rw_max_bytes: int
    cpu_hard_s: float = 1.5
    wall_slack_s: float = 4.0
    cpu_slack_s: float = 1.0
    host_rss_growth_mb: int = 256


@dataclass
class Evidence:
    """Everything the runner observed about one case on the host."""

    dump: str = ""
    secrets: list[str] = field(default_factory=list)
    marker_exists: bool = False
    secret_intact: bool = True
    secret_metadata_changed: bool = False
    host_process_changes: list[str] = field(default_factory=list)
    host_open_failures: list[str] = field(default_factory=list)
    changed_outside: list[str] = field(default_factory=list)
    host_view: list[str] = field(default_factory=list)
    rw_case_bytes: int = 0
    rw_special_bits: list[str] = field(default_factory=list)
    unserializable: str = ""
    host_signals_blocked: bool = False
    worker_cpu_s: float = 0.0
    victim: list[str] = field(default_factory=list)
    other_pids: list[int] = field(default_factory=list)
    contacted: list[str] = field(default_factory=list)
    decoy_killed: bool = False
    survivors: str = ""
    elapsed_s: float = 0.0
    busy_after_run: bool = False
    stdout_bytes: int = 0
    result_bytes: int = 0
    peak_memory_bytes: int = 0
    tool_invocations: int = 0
    followup: str = "ok"
    host_rss_growth: int = 0


def judge(evidence: Evidence, bounds: Bounds) -> list[str]:
    """Every host effect the evidence shows, in words (empty: contained)."""
    e, b = evidence, bounds
    effects = [f"host secret {s[:8]}… visible in the run" for s in e.secrets if s in e.dump]
    effects += [f"host file content visible ({f!r})" for f in HOST_FILE_FRAGMENTS if f in e.dump]
    if e.marker_exists:
        effects.append("the marker path was created on the host")
    if not e.secret_intact:
        effects.append("the secret file outside the mounts was changed or removed")
    if e.secret_metadata_changed:
        effects.append("the metadata of the secret file outside the mounts was changed")
    effects += e.host_process_changes
    effects += [
        f"the host could not open a file outside the mounts: {f}"
        for f in sorted(set(e.host_open_failures))
    ]
    effects += [f"changed outside the writable mount: {p}" for p in e.changed_outside]
    effects += e.host_view
    if e.rw_case_bytes > b.rw_max_bytes + 65536:
        effects.append(f"wrote {e.rw_case_bytes} bytes to a mount allowing {b.rw_max_bytes}")
    effects += [f"a setuid, setgid or sticky bit reached the host: {p}" for p in e.rw_special_bits]
    if e.unserializable:
        effects.append(f"the run's result cannot be serialized: {e.unserializable}")
    if e.host_signals_blocked:
        effects.append("the host's user could not queue a signal while the session was open")
    effects += e.victim
    effects += [f"the worker named another process of the sandbox (pid {n})" for n in e.other_pids]
    if e.worker_cpu_s > b.cpu_hard_s + b.cpu_slack_s:
        effects.append(f"the worker used {e.worker_cpu_s:.1f} s of CPU against {b.cpu_hard_s:g} s")
    effects += [f"{what} was contacted" for what in e.contacted]
    if e.decoy_killed:
        effects.append("the decoy host process was killed")
    if e.survivors:
        effects.append(f"processes outlived the session: {e.survivors}")
    if e.elapsed_s > b.wall_s * 1.5 + b.wall_slack_s:
        effects.append(f"ran {e.elapsed_s:.1f} s against a {b.wall_s:g} s wall limit")
    if e.busy_after_run:
        effects.append("the worker kept computing after the host considered the run over")
    if e.stdout_bytes > b.output_bytes + 4096:
        effects.append(f"{e.stdout_bytes} bytes of output against a {b.output_bytes} limit")
    if e.result_bytes > b.result_bytes + 4096:
        effects.append(f"a {e.result_bytes}-byte result against a {b.result_bytes} limit")
    if e.peak_memory_bytes > b.memory_mb * MB * 1.05:
        effects.append(f"peak memory {e.peak_memory_bytes // MB} MB over {b.memory_mb} MB")
    if e.tool_invocations > b.tool_calls:
        effects.append(f"{e.tool_invocations} tool calls served against a {b.tool_calls} limit")
    if e.followup != "ok":
        effects.append(f"a fresh session afterwards failed: {e.followup}")
    if e.host_rss_growth > b.host_rss_growth_mb * MB:
        effects.append(f"the host grew by {e.host_rss_growth // MB} MB")
    return effects
