"""The sandbox's own cgroup (v2), where the machine delegates one to this user.

The zygote is moved into a child of the host's current cgroup before it forks
anything, so every worker is born inside it; ``memory.max`` caps the workers' memory
together (the admission budget) and ``pids.max`` their number. Nothing outside that
child is ever written: without a writable cgroup v2 whose parent already delegates the
``memory`` and ``pids`` controllers, the state is "degraded: <why>" and the sandbox
relies on its per-worker limits (RLIMIT_AS, RLIMIT_NPROC) and admission control alone.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from pathlib import Path

_MOUNTS = (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified"))
_COUNTER = itertools.count()


def _current(proc_cgroup: Path) -> str | None:
    try:
        for line in proc_cgroup.read_text().splitlines():
            if line.startswith("0::"):
                return line[3:]
    except OSError:
        return None
    return None


class SandboxCgroup:
    """A child cgroup for one sandbox (``state`` says whether it is in use)."""

    def __init__(self, path: Path | None, state: str) -> None:
        self.path = path
        self.state = state

    @classmethod
    def create(
        cls,
        memory_bytes: int | None,
        max_pids: int,
        *,
        mounts: tuple[Path, ...] = _MOUNTS,
        proc_cgroup: Path = Path("/proc/self/cgroup"),
    ) -> SandboxCgroup:
        """Create the child cgroup, or explain why it cannot be."""
        mount = next((m for m in mounts if (m / "cgroup.controllers").is_file()), None)
        if mount is None:
            return cls(None, "degraded: cgroup v2 is not mounted (only v1 or none)")
        current = _current(proc_cgroup)
        if current is None:
            return cls(None, "degraded: this process is in no cgroup v2")
        parent = mount / current.lstrip("/")
        try:
            delegated = set((parent / "cgroup.subtree_control").read_text().split())
        except OSError as exc:
            return cls(None, f"degraded: cannot read {parent}/cgroup.subtree_control: {exc}")
        missing = {"memory", "pids"} - delegated
        if missing:
            return cls(
                None,
                f"degraded: {parent} does not delegate the {', '.join(sorted(missing))} "
                "controller to its children",
            )
        if not os.access(parent, os.W_OK):
            return cls(None, f"degraded: {parent} is not writable by this user")
        path = parent / f"codeact-sandbox-{os.getpid()}-{next(_COUNTER)}"
        try:
            path.mkdir()
        except OSError as exc:
            return cls(None, f"degraded: cannot create {path}: {exc}")
        cgroup = cls(path, "")
        try:
            if memory_bytes is not None:
                (path / "memory.max").write_text(str(memory_bytes))
            (path / "pids.max").write_text(str(max_pids))
        except OSError as exc:
            cgroup.close()
            return cls(None, f"degraded: cannot set limits in {path}: {exc}")
        memory = f"memory.max={memory_bytes // (1 << 20)} MB, " if memory_bytes else ""
        cgroup.state = f"active ({path}: {memory}pids.max={max_pids})"
        return cgroup

    def adopt(self, pid: int) -> None:
        """Move ``pid`` (the zygote, before it forks) into this cgroup."""
        if self.path is None:
            return
        try:
            (self.path / "cgroup.procs").write_text(str(pid))
        except OSError as exc:
            self.state = f"degraded: cannot move the zygote into {self.path}: {exc}"

    def memory_current(self) -> int | None:
        """What the kernel counts for the cgroup now (``memory.current``), None when
        there is no cgroup or it cannot be read."""
        path = self.path
        if path is None or not self.state.startswith("active"):
            return None
        try:
            return int((path / "memory.current").read_text())
        except (OSError, ValueError):
            return None

    def close(self) -> None:
        """Kill whatever is left inside and remove the cgroup."""
        path, self.path = self.path, None
        if path is None:
            return
        kill = path / "cgroup.kill"  # Linux 5.14+; before, the zygote's exit did it
        if kill.exists():
            with contextlib.suppress(OSError):
                kill.write_text("1")
        deadline = time.monotonic() + 2.0
        while True:
            try:
                path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                # EBUSY while the killed processes are still exiting.
                if time.monotonic() > deadline:
                    return
                time.sleep(0.01)
