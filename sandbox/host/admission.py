"""Admission control: how many sessions may hold a worker at once.

Like a Kubernetes pod's requests and limits: each worker keeps its hard limits (its
policy's ``memory_mb``, CPU, ...), while admission charges what sessions use. A new
session is admitted while the memory the sandbox's processes use now, measured
(``memory_use.py``), plus a small request per session (``session_request_mb``: room
for a fresh session to grow into before it is measured) stays within
``memory_budget_mb`` (80 % of the machine's memory by default), and while fewer than
``max_workers`` sessions are open. Otherwise it waits — looking again whenever a session
closes and every :data:`_RECHECK_S`, as use falls — at most ``timeout_s``, then fails
with :class:`AdmissionTimeout` saying which budget is full.
"""

from __future__ import annotations

import asyncio
import contextlib
import resource
import threading
import time
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field

from sandbox.errors import AdmissionCancelled, AdmissionTimeout, SandboxError

#: The share of the machine's memory the default budget may use.
_MEMORY_SHARE = 0.8
#: How often a waiting session looks at the measured use again.
_RECHECK_S = 0.25
#: Descriptors the host keeps for itself, and what each session holds at most (its
#: worker's channel and pidfd, a staged mount's directory, the zygote's end).
_OWN_FILES, _FILES_PER_SESSION = 256, 4


class AdmissionFigures(BaseModel):
    """The budget and how it is used now."""

    model_config = ConfigDict(frozen=True)

    max_workers: int
    memory_budget_mb: int | None
    admitted: int
    waiting: int
    refused: int
    measured_mb: float | None = Field(
        default=None, description="What the sandbox's processes use now, as measured."
    )
    measured_by: str | None = Field(default=None, description="Where that figure comes from.")
    session_request_mb: int | None = Field(
        default=None, description="Charged per open session on top of the measured use."
    )


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
    max_workers: int | None, memory_budget_mb: int | None, request_mb: int
) -> tuple[int, int | None]:
    """(max sessions, memory budget in MB) from what was given and the machine: by
    default as many sessions as their requests fit in the budget and the host's
    open-files limit allows."""
    if memory_budget_mb is None:
        total = machine_memory_mb()
        memory_budget_mb = int(total * _MEMORY_SHARE) if total else None
    if request_mb < 0:
        raise ValueError(f"session_request_mb must not be negative, not {request_mb}")
    if memory_budget_mb is not None and memory_budget_mb < max(request_mb, 1):
        raise ValueError(
            f"the budget admits no session: memory_budget_mb={memory_budget_mb} is below "
            f"one session's request (session_request_mb={request_mb})"
        )
    if max_workers is None:
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        files = 1 << 20 if hard == resource.RLIM_INFINITY else hard
        max_workers = max(1, (files - _OWN_FILES) // _FILES_PER_SESSION)
        if memory_budget_mb is not None and request_mb > 0:
            max_workers = min(max_workers, memory_budget_mb // request_mb)
    if max_workers < 1:
        raise ValueError(f"max_workers must be at least 1, not {max_workers}")
    return max_workers, memory_budget_mb


class Admission:
    """A gate on measured memory and a count, with a bounded wait and figures for
    ``Sandbox.health()``. ``used()`` is the measured use in bytes, ``used_by()`` says
    how it was measured."""

    def __init__(
        self,
        max_workers: int,
        memory_budget_mb: int | None,
        timeout_s: float,
        *,
        request_mb: int = 0,
        used: Callable[[], int] = lambda: 0,
        used_by: Callable[[], str] = lambda: "nothing",
    ) -> None:
        self.max_workers = max_workers
        self.memory_budget_mb = memory_budget_mb
        self.timeout_s = timeout_s
        self.request_mb = request_mb
        self._used = used
        self._used_by = used_by
        self._cond = threading.Condition()
        self._admitted = 0
        self._waiting = 0
        self._refused = 0
        self._closed = False
        # Async waiters, each woken (on its own loop) when a slot may have come free.
        self._wakeups: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []

    def _full(self) -> str | None:
        """Under the lock: which budget a new session would pass, or None."""
        if self._admitted >= self.max_workers:
            return "count"
        if self.memory_budget_mb is None:
            return None
        charged = self._used() + (self._admitted + 1) * (self.request_mb << 20)
        return "memory" if charged > self.memory_budget_mb << 20 else None

    def enter(self, cancel: threading.Event | None = None) -> None:
        """Take a slot, waiting up to ``timeout_s`` for one (or until ``cancel`` is set:
        then :class:`AdmissionCancelled`)."""
        deadline = time.monotonic() + self.timeout_s
        with self._cond:
            self._waiting += 1
            try:
                while not self._closed and (full := self._full()) is not None:
                    if cancel is not None and cancel.is_set():
                        raise AdmissionCancelled("the wait for a session slot was cancelled")
                    left = deadline - time.monotonic()
                    if left <= 0:
                        self._refused += 1
                        raise AdmissionTimeout(self._refusal(full))
                    # A cancel and a fall in use are seen within one slice.
                    self._cond.wait(min(left, _RECHECK_S))
                if self._closed:
                    raise SandboxError("the sandbox is closed")
                self._admitted += 1
            finally:
                self._waiting -= 1

    async def enter_async(self) -> None:
        """:meth:`enter` on the event loop, holding no thread while it waits (cancel
        the awaiting task to abandon the wait)."""
        deadline = time.monotonic() + self.timeout_s
        loop = asyncio.get_running_loop()
        with self._cond:
            self._waiting += 1
        try:
            while True:
                with self._cond:
                    if self._closed:
                        raise SandboxError("the sandbox is closed")
                    full = self._full()
                    if full is None:
                        self._admitted += 1
                        return
                    left = deadline - time.monotonic()
                    if left <= 0:
                        self._refused += 1
                        raise AdmissionTimeout(self._refusal(full))
                    wakeup: asyncio.Future[None] = loop.create_future()
                    waiter = (loop, wakeup)
                    self._wakeups.append(waiter)
                try:
                    await asyncio.wait_for(wakeup, min(left, _RECHECK_S))
                except TimeoutError:
                    pass
                finally:
                    with self._cond:
                        if waiter in self._wakeups:
                            self._wakeups.remove(waiter)
        finally:
            with self._cond:
                self._waiting -= 1

    def _wake(self) -> None:
        """Under the lock: every waiter looks again."""
        self._cond.notify_all()
        wakeups, self._wakeups = self._wakeups, []
        for loop, wakeup in wakeups:
            with contextlib.suppress(RuntimeError):  # its loop is closed: it is gone
                loop.call_soon_threadsafe(_set_once, wakeup)

    def _refusal(self, full: str) -> str:
        waited = f"no session slot became free within {self.timeout_s:g} s"
        if full == "count":
            memory = (
                f" (a memory budget of {self.memory_budget_mb} MB)"
                if self.memory_budget_mb is not None
                else ""
            )
            return (
                f"{waited}: all {self.max_workers} workers this sandbox admits{memory} are "
                "in use; close sessions sooner, or give Sandbox(max_workers=..., "
                "memory_budget_mb=...)"
            )
        used = self._used() / (1 << 20)
        return (
            f"{waited}: the sandbox's processes use {used:.0f} MB (measured: "
            f"{self._used_by()}), and with {self.request_mb} MB requested for each of its "
            f"{self._admitted} open sessions and the new one it would pass its memory "
            f"budget of {self.memory_budget_mb} MB; close sessions sooner, or give "
            "Sandbox(memory_budget_mb=..., session_request_mb=...)"
        )

    def leave(self) -> None:
        """Give a slot back."""
        with self._cond:
            self._admitted = max(0, self._admitted - 1)
            self._wake()

    def close(self) -> None:
        """Wake every waiter: the sandbox is closing."""
        with self._cond:
            self._closed = True
            self._wake()

    def figures(self) -> AdmissionFigures:
        """The budget and its use now."""
        with self._cond:
            budgeted = self.memory_budget_mb is not None
            return AdmissionFigures(
                max_workers=self.max_workers,
                memory_budget_mb=self.memory_budget_mb,
                admitted=self._admitted,
                waiting=self._waiting,
                refused=self._refused,
                measured_mb=round(self._used() / (1 << 20), 1) if budgeted else None,
                measured_by=self._used_by() if budgeted else None,
                session_request_mb=self.request_mb,
            )


def _set_once(wakeup: asyncio.Future[None]) -> None:
    if not wakeup.done():
        wakeup.set_result(None)
