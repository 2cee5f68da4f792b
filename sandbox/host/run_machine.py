"""One run as a state machine: the worker's frames and the clock in; what to send, when
to look again and how the run ended out.

The machine never waits and never blocks: a driver waits for it (``run_drivers.py``:
``poll`` in the caller's thread for the sync API, the event loop for the async API)
and tells it when the worker's channel is readable or writable, and when the time it
asked for has come (:meth:`RunMachine.wake_at`) or a tool call finished. Everything the
worker says is checked here again: with the language layer off, a script can write its
own frames to the channel. The machine decides; the session carries out what it
decided (``RunMachine.end``) — collecting the result, killing the worker, reporting its
death.

On every tick the machine sends the replies of finished tool calls, enforces the
wall-clock limit (time spent in tools does not count) and, every
:attr:`ResourceWatch.interval_s`, asks its :class:`ResourceWatch` about the worker's use
of the machine, during tool calls too.
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass
from typing import Protocol

from sandbox.execution import ErrorCode
from sandbox.host.frames import RunDone, parse_worker_message
from sandbox.host.tool_flight import CallRefused, Flight
from sandbox.host.workers import WorkerHandle
from sandbox.protocol import ChannelClosed, FrameTooLarge, Op, encode_run

#: How often a run asks its resource watch (the worker's CPU time, ...).
WATCH_INTERVAL_S = 0.05


@dataclass(frozen=True)
class Finished:
    """The worker answered the run (``size``: its frame's bytes)."""

    message: RunDone
    size: int


@dataclass(frozen=True)
class Stopped:
    """The host stops the worker at a limit (``message`` None: the limit's own words)."""

    code: ErrorCode
    message: str | None = None


@dataclass(frozen=True)
class Lost:
    """The worker is gone: its channel closed (``detail`` None), or it broke the
    protocol (``detail`` says how; the worker is killed already)."""

    detail: str | None


RunEnd = Finished | Stopped | Lost


class ResourceWatch(Protocol):
    """What a run asks about its worker every ``interval_s`` while it lasts."""

    interval_s: float

    def check(self) -> ErrorCode | None:
        """The limit the worker went past (the host's own measure), or None."""
        ...


class RunMachine:
    """One run of ``source`` in ``worker``; see the module docstring."""

    # Made for every run: slots make its attributes cheaper to set and read.
    __slots__ = (
        "_abort", "_deadline", "_next_watch", "_out", "_pause", "_send_lock", "_seq",
        "_wall_s", "_watch", "end", "flight", "started", "worker",
    )

    def __init__(
        self,
        worker: WorkerHandle,
        flight: Flight,
        *,
        wall_s: float,
        seq: int,
        watch: ResourceWatch,
        abort: threading.Event,
        pause_between_runs: bool,
    ) -> None:
        self.worker = worker
        self.flight = flight
        #: How the run ended; None while it lasts.
        self.end: RunEnd | None = None
        self._wall_s = wall_s
        self._seq = seq
        self._watch = watch
        self._abort = abort
        self._pause = pause_between_runs
        self._out = bytearray()
        # Sends come from the driver and, for a plain sync tool call, from the tool
        # thread that answers it (``send_now``): one at a time, in order.
        self._send_lock = threading.Lock()
        flight.answer_with(self.send_now)
        self.started = 0.0
        self._deadline = 0.0
        self._next_watch = 0.0

    @property
    def fd(self) -> int:
        """The worker's channel (the drivers wait on it)."""
        return self.worker.sock.fileno()

    @property
    def wants_write(self) -> bool:
        """Bytes wait to go to the worker (it has not read what was sent yet)."""
        return bool(self._out)

    def begin(self, source: str, now: float) -> None:
        """Send the run."""
        self.started = now
        self._deadline = now + self._wall_s
        self._next_watch = now + self._watch.interval_s
        if self._pause:
            self.worker.resume()
        self._queue(encode_run(source, self._seq))
        self.writable()

    def _queue(self, data: bytes) -> None:
        with self._send_lock:
            self._out += data

    def send_now(self, frame: bytes) -> bool:
        """From any thread: send ``frame`` at once, after whatever waits; True if part
        of it waits still (the driver must be told, to send it when it can)."""
        with self._send_lock:
            if self.end is not None:
                return False
            if not self._out:
                try:
                    sent = self.worker.sock.send(frame, socket.MSG_DONTWAIT)
                except BlockingIOError:
                    sent = 0
                except OSError:
                    return False  # the worker is gone: the driver sees its channel close
                if sent == len(frame):
                    return False
                frame = frame[sent:]
            self._out += frame
            return True

    def wake_at(self, now: float) -> float:
        """When to :meth:`tick` next, at the latest (``perf_counter``)."""
        wake = min(self._deadline + self.flight.paused(now), self._next_watch)
        due = self.flight.next_due()
        return wake if due is None else min(wake, due)

    def launch(self) -> None:
        """Hand the tool calls taken to their threads: the drivers call this right
        before they wait, when the interpreter is about to be free for those threads."""
        self.flight.launch()

    def writable(self) -> None:
        """Send what waits, as far as the channel takes it now."""
        if not self._out or self.end is not None:
            return
        with self._send_lock:
            try:
                sent = self.worker.sock.send(self._out, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return
            except OSError:
                self.end = Lost(None)
                return
            del self._out[:sent]

    def readable(self, now: float) -> None:
        """Take what the worker sent: one read, then every whole frame in it."""
        if self.end is not None:
            return
        reader = self.worker.reader
        try:
            if not reader.fill(socket.MSG_DONTWAIT):
                return
            while self.end is None:
                frame = reader.next_frame()
                if frame is None:
                    break
                self._take(frame)
        except CallRefused as exc:
            self.end = Stopped(exc.code, exc.message)
        except (ChannelClosed, OSError):
            self.end = Lost(None)
        except (FrameTooLarge, ValueError) as exc:
            self.worker.kill()
            self.end = Lost(str(exc))
        self.writable()

    def _take(self, frame: bytes) -> None:
        message = parse_worker_message(frame)
        if message.op == Op.CALL:
            reply = self.flight.take(message)
            if reply is not None:
                self._queue(reply)
        elif message.op == Op.DONE:
            if message.seq != self._seq:
                return  # not this run's answer (a stale or forged frame)
            if self._pause:
                # Nothing may run between two runs, whatever the script left behind.
                self.worker.pause()
            self.end = Finished(message, len(frame))
        elif message.op == Op.CRASH:
            raise ValueError(f"worker error: {message.message}")
        else:
            raise ValueError(f"unexpected {message.op!r} message during a run")

    def tick(self, now: float) -> None:
        """Replies of finished calls out; the wall clock, cancellation and the
        resource watch checked."""
        if self.end is not None:
            return
        for reply in self.flight.replies():
            self._queue(reply)
        self.writable()
        if self.end is not None:
            return
        if now >= self._deadline + self.flight.paused(now):
            # Also a worker that stopped reading what it is sent (a plain-Python script
            # owns its end of the channel).
            self.end = Stopped(ErrorCode.TIMEOUT)
        elif self._abort.is_set():
            self.worker.kill()
            self.end = Lost(None)
        elif now >= self._next_watch:
            self._next_watch = now + self._watch.interval_s
            code = self._watch.check()
            if code is not None:
                self.end = Stopped(code)
