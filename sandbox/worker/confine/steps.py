"""Confining a freshly forked worker before it runs any script.

In order: its own session and process group (so the host can kill everything it
starts), death with its parent, no inherited descriptors, an empty environment, a
private copy-on-write view of each writable mount when asked (``overlay.py``, or a
staged copy where the kernel has no overlay for it: ``staging.py``), no privileges
(``privileges.py``: ``no_new_privs``, every capability set emptied — after the private
views, which need capabilities in the worker's user namespace), resource limits,
Landlock filesystem confinement (``landlock.py``) and the seccomp filter
(``seccomp.py``). Anything a machine does not allow is reported as degraded in the
returned report, never skipped silently.

Worker side: standard library only.
"""

from __future__ import annotations

import os
import resource
import signal
from collections.abc import Sequence
from typing import Any

from sandbox.worker.confine import landlock, namespaces, overlay, privileges, staging
from sandbox.worker.confine.seccomp import die_with_parent, install_syscall_filter

#: Signals a worker may have queued at once (its own timers use a few).
SIGPENDING = 32
#: This worker's upper layers (``overlay.py``), for its hello: the host opens them.
_layers: list[int] = []


def apply_rlimits(
    limits: dict[str, Any], *, max_file_bytes: int = 0, reserved_bytes: int = 0
) -> None:
    """Resource limits for this process; raises if one cannot be set.

    ``max_file_bytes`` is the largest file a script may write (0: none at all);
    ``reserved_bytes`` of the memory limit are held by the private views' tmpfs.
    """
    memory = int(limits["memory_mb"]) * 1024 * 1024 - reserved_bytes
    session_cpu = int(limits["session_cpu_s"])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversize writes fail with EFBIG instead
    settings = [
        (resource.RLIMIT_AS, (memory, memory)),
        (resource.RLIMIT_CPU, (session_cpu, session_cpu + 1)),
        (resource.RLIMIT_FSIZE, (max_file_bytes, max_file_bytes)),
        (resource.RLIMIT_NOFILE, (32, 32)),
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_NPROC, (0, 0)),
        (resource.RLIMIT_MEMLOCK, (0, 0)),
        # Per-user budgets a worker would charge up its user namespaces to the host's
        # user: queued signals (the host's own sigqueue and timers fail once they are
        # spent) and POSIX message queue bytes.
        (resource.RLIMIT_SIGPENDING, (SIGPENDING, SIGPENDING)),
        (resource.RLIMIT_MSGQUEUE, (0, 0)),
        (resource.RLIMIT_RTPRIO, (0, 0)),
    ]
    for which, value in settings:
        resource.setrlimit(which, value)


def detach(channel_fd: int) -> None:
    """New session, death with the parent, stdio on /dev/null, nothing else inherited."""
    os.setsid()
    die_with_parent()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        if fd != null:
            os.dup2(null, fd)
    keep = sorted({0, 1, 2, channel_fd})
    for low, high in zip(keep, [*keep[1:], 1 << 20], strict=True):
        if high > low + 1:
            os.closerange(low + 1, high)
    os.environ.clear()


def _own_process_group() -> None:
    os.setsid()
    die_with_parent()


def _restrict_filesystem(mounts: Sequence[dict[str, Any]]) -> str:
    read_only = [
        *landlock.python_paths(),
        *landlock.library_paths(),
        *(m["host_path"] for m in mounts if m["mode"] == "ro"),
    ]
    read_write = [m["host_path"] for m in mounts if m["mode"] == "rw"]
    try:
        abi = landlock.restrict(read_only, read_write)
    except OSError as exc:
        return f"degraded: {exc.strerror or exc}"
    return f"active (Landlock ABI {abi})"


def _sandbox_paths_missing(mounts: Sequence[dict[str, Any]]) -> bool:
    # The minimal root binds each mount at its sandbox path too (minimal_root.py).
    return not namespaces.minimal_root_active() and any(
        m["sandbox_path"] != m["host_path"] and not os.path.isdir(m["sandbox_path"])
        for m in mounts
    )


def _drop_privileges() -> str:
    try:
        return privileges.drop()
    except OSError as exc:
        return f"degraded: {exc.strerror or exc}"


def private_layers() -> list[int]:
    """This worker's upper layers, one descriptor per writable mount in mount order
    (empty: none, or staged copies, which the host reaches through the mounts)."""
    return list(_layers)


def _make_private(
    mounts: Sequence[dict[str, Any]], limits: dict[str, Any], entered: bool, via: str
) -> tuple[str, int]:
    """Cover the writable mounts with private views: (the report's state, the bytes
    their tmpfs may hold). Raises when a cover broke half-way (no state to run in).

    ``via``: "overlay" (falling back to staged copies where there is none) or "copy".
    """
    if not entered:
        return "degraded: the worker has no mount namespace of its own", 0
    memory = int(limits["memory_mb"]) * 1024 * 1024
    try:
        if via == "copy":
            raise overlay.Unavailable(0, "staged copies asked for")
        covered = overlay.build(mounts, memory, staging.address_space_bytes())
    except overlay.Unavailable as exc:
        try:
            description, reserved = staging.stage(mounts, memory, entered=True)
        except OSError as copy_exc:
            return f"degraded: {exc.strerror or exc}, and no staged copy: {copy_exc}", 0
        return description, reserved
    except OSError as exc:
        return f"degraded: {exc.strerror or exc}", 0
    _layers[:] = covered.layers
    return covered.description, covered.reserved_bytes


def confine(
    channel_fd: int,
    limits: dict[str, Any],
    *,
    os_layer: bool = True,
    mounts: Sequence[dict[str, Any]] = (),
    private_writes: bool = False,
    private_via: str = "overlay",
) -> dict[str, str]:
    """Apply the mechanisms; return each one's state: "active", "off" (the policy's
    ``os`` layer is off) or "degraded: <why>" (this machine does not allow it).

    With the OS layer off only the process group (the host's wall clock kills through
    it) and the rlimits remain. ``private_writes`` covers the writable mounts with
    private views (``overlay.py``, ``staging.py``) before the file-size limit applies;
    where that fails the state says why, and the host runs nothing in this worker.
    """
    report: dict[str, str] = {}
    if os_layer:
        # Before detach: it needs the zygote's /proc descriptor. Every unshare and mount
        # happens here or in the private views, before the syscall filter refuses them.
        report.update(namespaces.enter_worker(own_mounts=private_writes))
        detach(channel_fd)
        report["environment"] = "active" if not os.environ else "degraded: not empty"
        report["descriptors"] = "active"
    else:
        _own_process_group()
        report.update(namespaces.off())
        report["environment"] = report["descriptors"] = "off"
    report["process_group"] = "active"
    reserved = 0
    if os_layer and private_writes:
        entered = namespaces.in_own_mount_namespace(report)
        report["private_writes"], reserved = _make_private(mounts, limits, entered, private_via)
    report["privileges"] = _drop_privileges() if os_layer else "off"
    writable = [m for m in mounts if m["mode"] == "rw"]
    try:
        largest = max((m["max_bytes"] for m in writable), default=0)
        apply_rlimits(limits, max_file_bytes=largest, reserved_bytes=reserved)
        report["rlimits"] = "active"
    except (OSError, ValueError) as exc:
        report["rlimits"] = f"degraded: {exc}"
    if not os_layer:
        report["syscall_filter"] = report["filesystem"] = "off"
        return report
    report["filesystem"] = _restrict_filesystem(mounts)
    # Without Landlock, writes stay refused by the filter, writable mounts or not.
    landlocked = report["filesystem"].startswith("active")
    if landlocked and _sandbox_paths_missing(mounts):
        report["filesystem"] = (
            f"degraded: {report['filesystem']}, but without the minimal root library code "
            "(pandas, numpy, matplotlib...) finds the mounts at their host paths only"
        )
    try:
        # Landlock does not govern a file's mode, owner, times or xattrs: those calls are
        # allowed only where nothing outside the mounts exists (the minimal root, whose
        # other binds are read-only).
        install_syscall_filter(
            file_writes=bool(writable) and landlocked,
            metadata_writes=namespaces.minimal_root_active(),
        )
        report["syscall_filter"] = "active"
    except OSError as exc:
        report["syscall_filter"] = f"degraded: {exc.strerror or exc}"
    return report
