"""Admission control: how many sessions may hold a worker at once.

Each worker may use its policy's ``memory_mb``, so many concurrent sessions can ask for
more memory than the machine has. A sandbox admits at most ``max_workers`` sessions at
once (by default, what fits in 80 % of the machine's memory at ``memory_mb`` each);
the next one waits for a slot, at most ``timeout_s``, then fails with
:class:`AdmissionTimeout`.
"""

from __future__ import annotations

import threading
import time

from pydantic import BaseModel, ConfigDict

from sandbox.errors import AdmissionCancelled, AdmissionTimeout, SandboxError

#: The share of the machine's memory the default budget may promise to workers.
_MEMORY_SHARE = 0.8


class AdmissionFigures(BaseModel):
    """The budget and how it is used now."""

    model_config = ConfigDict(frozen=True)

    max_workers: int
    memory_budget_mb: int | None
    admitted: int
    waiting: int
    refused: int


def machine_memory_mb() -> int | None:
    """MemTotal from /proc/meminfo, in MB (None where unknown)."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def budget(
    memory_mb: int, max_workers: int | None, memory_budget_mb: int | None
) -> tuple[int, int | None]:
    """(max workers, memory budget in MB) from what was given and the machine."""
    if memory_budget_mb is None and max_workers is None:
        total = machine_memory_mb()
        memory_budget_mb = int(total * _MEMORY_SHARE) if total else None
    limit = max_workers if max_workers is not None else 1 << 20
    if memory_budget_mb is not None:
        limit = min(limit, memory_budget_mb // memory_mb)
    if limit < 1:
        raise ValueError(
            f"the budget admits no worker: memory_budget_mb={memory_budget_mb} is below "
            f"one worker's memory_mb={memory_mb}"
        )
    return limit, memory_budget_mb


class Admission:
    """A counting gate with a bounded wait and figures for ``Sandbox.health()``."""

    def __init__(self, max_workers: int, memory_budget_mb: int | None, timeout_s: float) -> None:
        self.max_workers = max_workers
        self.memory_budget_mb = memory_budget_mb
        self.timeout_s = timeout_s
        self._cond = threading.Condition()
        self._admitted = 0
        self._waiting = 0
        self._refused = 0
        self._closed = False

    def enter(self, cancel: threading.Event | None = None) -> None:
        """Take a slot, waiting up to ``timeout_s`` for one (or until ``cancel`` is set:
        then :class:`AdmissionCancelled`)."""
        deadline = time.monotonic() + self.timeout_s
        with self._cond:
            self._waiting += 1
            try:
                while self._admitted >= self.max_workers and not self._closed:
                    if cancel is not None and cancel.is_set():
                        raise AdmissionCancelled("the wait for a session slot was cancelled")
                    left = deadline - time.monotonic()
                    if left <= 0:
                        self._refused += 1
                        raise AdmissionTimeout(self._refusal())
                    # A cancel is seen within one slice (nobody notifies for it).
                    self._cond.wait(min(left, 0.1) if cancel is not None else left)
                if self._closed:
                    raise SandboxError("the sandbox is closed")
                self._admitted += 1
            finally:
                self._waiting -= 1

    def _refusal(self) -> str:
        memory = (
            f" (a memory budget of {self.memory_budget_mb} MB)"
            if self.memory_budget_mb is not None
            else ""
        )
        return (
            f"no session slot became free within {self.timeout_s:g} s: all "
            f"{self.max_workers} workers this sandbox admits{memory} are in use; close "
            "sessions sooner, or give Sandbox(max_workers=..., memory_budget_mb=...)"
        )

    def leave(self) -> None:
        """Give a slot back."""
        with self._cond:
            self._admitted = max(0, self._admitted - 1)
            self._cond.notify()

    def close(self) -> None:
        """Wake every waiter: the sandbox is closing."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def figures(self) -> AdmissionFigures:
        """The budget and its use now."""
        with self._cond:
            return AdmissionFigures(
                max_workers=self.max_workers,
                memory_budget_mb=self.memory_budget_mb,
                admitted=self._admitted,
                waiting=self._waiting,
                refused=self._refused,
            )
