"""The two ways a run is waited for: one machine (``run_machine.py``), two drivers.

:class:`PollDriver` waits in the caller's thread with ``poll`` (never ``select``: a
host serving a thousand sessions holds descriptors far above 1024) on the worker's
channel and on a pipe that tool threads write to when a call finishes. It is the sync
API's: many threads may each drive their own run. :class:`LoopDriver` waits with the
event loop (``add_reader``, ``add_writer``, ``call_at``): an async run holds no thread
at all, so runs nested in tools (sub-agents) never wait for a thread another run holds;
what an async run waits for after its worker is killed or dies, it awaits too.
"""

from __future__ import annotations

import asyncio
import math
import os
import select
import threading
import time

from sandbox.host.run_machine import RunEnd, RunMachine
from sandbox.host.workers import WorkerHandle
from sandbox.protocol import ExitedNotice

_READ = select.POLLIN | select.POLLHUP | select.POLLERR | select.POLLNVAL


class _Waker:
    """A pipe a tool thread writes to when a call finishes."""

    def __init__(self) -> None:
        self.fd, self._write_fd = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)

    def notify(self) -> None:
        try:
            os.write(self._write_fd, b"x")
        except (BlockingIOError, OSError):
            pass  # full of wake-ups already

    def drain(self) -> None:
        try:
            while os.read(self.fd, 4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def close(self) -> None:
        os.close(self.fd)
        os.close(self._write_fd)


_local = threading.local()


class PollDriver:
    """Drives a run from the calling thread, waiting with ``poll``. The pipe that tool
    threads wake it through is made by the first call that finishes off this thread,
    and closed with the run: most runs make none, and a run leaves no descriptor."""

    def __init__(self) -> None:
        poller: select.poll | None = getattr(_local, "poller", None)
        if poller is None:
            poller = _local.poller = select.poll()  # one a thread (it holds no descriptor)
        self._poller = poller
        self._waker: _Waker | None = None
        self._lock = threading.Lock()
        self._over = False

    def notify(self) -> None:
        """A tool call finished (from any thread)."""
        with self._lock:
            if not self._over:
                self._ensure_waker().notify()

    def _ensure_waker(self) -> _Waker:
        """Under the lock (or before any call is off this thread): the wake-up pipe."""
        if self._waker is None:
            self._waker = _Waker()
        return self._waker

    def run(self, machine: RunMachine, source: str) -> RunEnd:
        """Run ``source`` to its end."""
        poller, fd = self._poller, machine.fd
        waker: _Waker | None = None
        now = time.perf_counter()
        machine.begin(source, now)
        writing: bool | None = None
        try:
            while machine.end is None:
                if machine.wants_write is not writing:
                    writing = machine.wants_write
                    poller.register(fd, _READ | (select.POLLOUT if writing else 0))
                if waker is None and machine.flight.busy:
                    # A call is off this thread: its end must be able to wake the poll.
                    with self._lock:
                        waker = self._ensure_waker()
                    poller.register(waker.fd, select.POLLIN)
                wait_ms = math.ceil((machine.wake_at(now) - now) * 1000)
                machine.launch()
                events = poller.poll(max(0, wait_ms))
                now = time.perf_counter()
                for ready, mask in events:
                    if ready != fd:
                        if waker is not None:
                            waker.drain()
                        continue
                    if mask & _READ:
                        machine.readable(now)
                    if mask & select.POLLOUT:
                        machine.writable()
                machine.tick(now)
        finally:
            self._finish(fd)
        end = machine.end
        assert end is not None
        return end

    def _finish(self, fd: int) -> None:
        with self._lock:
            self._over = True
            waker, self._waker = self._waker, None
        for registered in (fd, waker.fd if waker is not None else None):
            if registered is not None:
                try:
                    self._poller.unregister(registered)
                except (KeyError, ValueError):
                    pass  # never registered, or closed meanwhile
        if waker is not None:
            waker.close()


class LoopDriver:
    """Drives a run on the running event loop; no thread waits for it."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._machine: RunMachine | None = None
        self._done: asyncio.Future[None] | None = None
        self._writing = False
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = math.inf

    def notify(self) -> None:
        """A tool call finished (from any thread)."""
        try:
            self._loop.call_soon_threadsafe(self._step)
        except RuntimeError:
            pass  # the loop is closed: nothing is driven any more

    async def run(self, machine: RunMachine, source: str) -> RunEnd:
        """Run ``source`` to its end; cancelling this leaves the machine unfinished
        (the caller kills the worker)."""
        loop = self._loop
        self._machine = machine
        self._done = loop.create_future()
        fd = machine.fd
        loop.add_reader(fd, self._on_readable)
        try:
            machine.begin(source, time.perf_counter())
            self._step()
            await self._done
        finally:
            self._machine = None
            loop.remove_reader(fd)
            if self._writing:
                loop.remove_writer(fd)
            if self._timer is not None:
                self._timer.cancel()
        end = machine.end
        assert end is not None
        return end

    def _on_readable(self) -> None:
        machine = self._machine
        if machine is not None:
            machine.readable(time.perf_counter())
            self._step()

    def _on_writable(self) -> None:
        machine = self._machine
        if machine is not None:
            machine.writable()
            self._step()

    def _on_timer(self) -> None:
        self._timer, self._timer_at = None, math.inf
        self._step()

    def _step(self) -> None:
        machine, done = self._machine, self._done
        if machine is None or done is None or done.done():
            return
        now = time.perf_counter()
        machine.tick(now)
        if machine.end is not None:
            done.set_result(None)
            return
        if machine.wants_write is not self._writing:
            self._writing = machine.wants_write
            if self._writing:
                self._loop.add_writer(machine.fd, self._on_writable)
            else:
                self._loop.remove_writer(machine.fd)
        wake = machine.wake_at(now)
        if wake < self._timer_at:
            # Only ever brought forward: a timer that fires early just ticks and asks
            # again, which is cheaper than a new timer on every frame.
            if self._timer is not None:
                self._timer.cancel()
            self._timer_at = wake
            at = self._loop.time() + max(0.0, wake - now)
            self._timer = self._loop.call_at(at, self._on_timer)
        machine.launch()


async def exit_status(worker: WorkerHandle, timeout: float) -> ExitedNotice | None:
    """A dead worker's exit notice, awaited without holding the loop (the zygote sends
    it at once; on a loaded machine it may take a moment)."""
    origin = worker.origin
    if origin is None:
        return None
    deadline = time.perf_counter() + timeout
    while True:
        status = origin.exit_status(worker.pid, 0)
        if status is not None or time.perf_counter() >= deadline or not origin.alive:
            return status
        await asyncio.sleep(0.002)


async def gone(worker: WorkerHandle, timeout: float) -> None:
    """Wait, ``timeout`` at most, for a killed worker to have exited."""
    deadline = time.perf_counter() + timeout
    while worker.alive() and time.perf_counter() < deadline:
        await asyncio.sleep(0.002)
