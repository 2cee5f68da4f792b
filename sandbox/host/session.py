"""Session: one worker's life — scripts run one after another and share variables.

``Session.run`` sends a script, serves the worker's tool calls, enforces the wall-clock
and hard CPU limits itself by killing the worker's process group, and returns an
:class:`Execution` whatever happens. Its workers come from the
:class:`~sandbox.host.supply.WorkerSupply` its sandbox handed it.
"""

from __future__ import annotations

import asyncio
import select
import threading
import time
from types import TracebackType
from typing import Any, Self

from sandbox.errors import SandboxError
from sandbox.execution import ErrorCode, Execution, WrittenFile
from sandbox.host import resource_watch
from sandbox.host.deaths import explain_death
from sandbox.host.frames import RunDone, parse_worker_message
from sandbox.host.resource_watch import RunCosts, RunWatch
from sandbox.host.run_limits import capped_answer, refuse_source
from sandbox.host.supply import FreshWorker, WorkerSupply
from sandbox.host.tool_flight import CallRefused, Flight
from sandbox.host.tools import ToolSet
from sandbox.host.workers import WorkerHandle
from sandbox.host.writes.direct import DirectWrites
from sandbox.host.writes.private import PrivateWrites
from sandbox.limits_text import explain
from sandbox.output import Error
from sandbox.protocol import (
    ChannelClosed,
    FrameTooLarge,
    Op,
    encode,
    encode_run,
    in_flight_cap,
    send_by,
)

#: How long a waiting run sleeps at most before it looks at its limits again.
_POLL_S = 0.05
#: How long a dead worker's exit notice is awaited (the zygote sends it at once).
_EXIT_NOTICE_S = 2.0


class Session:
    """One worker's life: scripts run one after another and share their variables."""

    def __init__(
        self, supply: WorkerSupply, tools: ToolSet, loop: asyncio.AbstractEventLoop | None
    ) -> None:
        self._supply = supply
        self._tools = tools
        self._loop = loop
        self._limits = supply.policy.limits
        self._worker: WorkerHandle | None = None
        self._watch: RunWatch | None = None
        self._seq = 0
        # The mounts as the workers see them, resolved when the sandbox started.
        mounts = supply.worker_config["mounts"]
        self._private = bool(supply.worker_config.get("private_writes"))
        self._writes: PrivateWrites | DirectWrites | None = None
        if any(m["mode"] == "rw" for m in mounts):
            self._writes = PrivateWrites(mounts) if self._private else DirectWrites(mounts)
        self._overdrawn: str | None = None
        # Every worker is stopped between runs, whatever the layers: no run is watched
        # then, and a script can leave work behind for that time even with the language
        # layer on (a signal handler on a timer, with every module allowed); the host
        # also reads private layers after a run, and measures direct writes.
        self._pause_between_runs = True
        self._in_flight_cap = in_flight_cap({"tool_calls": self._limits.tool_calls})
        self._tool_loop = lambda: self._loop or self._supply.async_loop()
        self.confinement: dict[str, str] = {}
        self._worker_lost = False
        self._closed = False
        self._run_lock = threading.Lock()
        self._own_abort = threading.Event()
        self._abort = self._own_abort
        self._start_worker()

    def _start_worker(self) -> None:
        init = encode({"op": Op.INIT, "tools": self._tools.names})
        for _ in range(3):
            fresh = self._supply.acquire()
            worker = fresh.handle
            self.confinement = fresh.confinement
            if self._writes is not None:
                self._attach_writes(fresh)
            try:
                worker.sock.sendall(init)
            except OSError:
                self._release(worker)  # died between its hello and now: take another
                continue
            self._worker = worker
            if self._closed:  # closed from another thread meanwhile: leave nothing
                self._worker = None
                self._release(worker)
                raise SandboxError("the session is closed")
            return
        raise SandboxError("a new worker failed to start: each one died before it was used")

    def _attach_writes(self, fresh: FreshWorker) -> None:
        """Open the new worker's private layers; refuse the session where its writable
        mounts could not be made private (no fail-open: nothing writes them directly
        unless the policy says ``writes = "direct"``)."""
        assert self._writes is not None
        state = fresh.confinement.get("private_writes", "not reported by the worker")
        if self._private and not state.startswith("active"):
            self._release(fresh.handle)
            raise SandboxError(
                f"the writable mounts cannot be made private to this session here "
                f"(private_writes: {state}); a policy may say writes = 'direct' to let "
                f"scripts write them directly, outside the OS layer's boundary"
            )
        try:
            self._writes.attach(fresh.handle.pid, fresh.layers)
        except OSError as exc:
            self._release(fresh.handle)
            raise SandboxError(f"cannot open the worker's private layers: {exc}") from None

    def _release(self, worker: WorkerHandle) -> None:
        worker.close()
        resource_watch.release(worker)
        self._supply.release(worker)

    @property
    def pid(self) -> int | None:
        """The current worker's process id."""
        return self._worker.pid if self._worker else None

    def run(self, source: str, *, cancel: threading.Event | None = None) -> Execution:
        """Run ``source`` in this session's worker and report what happened.

        ``cancel``, once set (with :meth:`kill`), makes the run end as ``cancelled``
        even if it is set before the run has a worker.
        """
        with self._run_lock:
            if self._closed:
                raise SandboxError("the session is closed")
            if self._overdrawn is not None:
                return Execution(
                    output=Error(message=self._overdrawn), error_code=ErrorCode.OUTPUT_LIMIT
                )
            if cancel is None:
                cancel = self._own_abort  # reused: an Event costs microseconds to make
                cancel.clear()
            self._abort = cancel
            refusal = refuse_source(source, self._limits)
            if refusal is not None:
                return refusal
            restarted = False
            if self._worker is None:
                self._start_worker()
                restarted = self._worker_lost
                self._worker_lost = False
            if self._abort.is_set() and self._worker is not None:
                self._worker.kill()  # cancelled while the worker was starting
            execution = self._drive(source)
            if restarted:
                execution = execution.model_copy(update={"worker_restarted": True})
            return execution

    def kill(self) -> None:
        """Kill the current worker now (a running ``run`` returns promptly)."""
        self._abort.set()  # a wait for a tool's answer ends too
        worker = self._worker
        if worker is not None:
            worker.kill()

    def close(self) -> None:
        """End the session and kill its worker."""
        self._closed = True
        if self._writes is not None:
            self._writes.close()
        worker, self._worker = self._worker, None
        if worker is not None:
            self._release(worker)
        self._supply.leave(self)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- the run loop ------------------------------------------------------------------
    def _drive(self, source: str) -> Execution:
        # Everything the worker says is checked here again: with the language layer off,
        # a script can write its own frames to the channel.
        worker = self._worker
        assert worker is not None
        limits = self._limits
        flight = Flight(
            self._tools,
            limits,
            self._in_flight_cap,
            self._supply.tool_threads,
            self._tool_loop,
            self._abort,
        )
        started = time.perf_counter()
        # Time spent in host tools does not count against the script (flight.paused).
        deadline = started + limits.wall_s
        # CPU is the kernel's count, read on a timer whatever the channel does.
        watch = self._watch = resource_watch.watch(worker, limits.cpu_hard_s)
        self._seq += 1
        try:
            if self._pause_between_runs:
                worker.resume()
            if not send_by(worker.sock, encode_run(source, self._seq), deadline):
                return self._killed(worker, ErrorCode.TIMEOUT, started, flight)
            while True:
                if (limit := watch.exceeded()) is not None:
                    return self._killed(worker, limit, started, flight)
                frame = worker.reader.next_frame()
                if frame is None:
                    now = time.perf_counter()
                    paused = flight.paused(now)
                    for answer in flight.replies() if flight.busy else ():
                        if not send_by(worker.sock, answer, deadline + paused):
                            return self._killed(worker, ErrorCode.TIMEOUT, started, flight)
                    remaining = deadline + paused - now
                    if remaining <= 0:
                        return self._killed(worker, ErrorCode.TIMEOUT, started, flight)
                    wake = flight.wake_fd
                    waited: list[Any] = [worker.sock] if wake is None else [worker.sock, wake]
                    ready, _, _ = select.select(waited, [], [], min(remaining, _POLL_S))
                    if worker.sock in ready:
                        worker.reader.fill()
                    continue
                message = parse_worker_message(frame)
                if message.op == Op.CALL:
                    reply = flight.take(message)
                    if reply is not None and not send_by(
                        worker.sock, reply, deadline + flight.paused(time.perf_counter())
                    ):
                        return self._killed(worker, ErrorCode.TIMEOUT, started, flight)
                elif message.op == Op.CRASH:
                    raise ValueError(f"worker error: {message.message}")
                elif message.op == Op.DONE:
                    if message.seq != self._seq:
                        continue  # not this run's answer (a stale or forged frame)
                    if self._pause_between_runs:
                        # Nothing may run between two runs, whatever the script left behind.
                        worker.pause()
                    if (limit := watch.exceeded()) is not None:
                        return self._killed(worker, limit, started, flight)
                    return self._finished(message, len(frame), started, flight)
                else:
                    raise ValueError(f"unexpected {message.op!r} message during a run")
        except CallRefused as exc:
            return self._killed(worker, exc.code, started, flight, exc.message)
        except (ChannelClosed, OSError):
            if (limit := watch.exceeded()) is not None:
                return self._killed(worker, limit, started, flight)
            return self._died(worker, started, flight, detail=None)
        except (FrameTooLarge, ValueError) as exc:
            worker.kill()
            return self._died(worker, started, flight, detail=str(exc))
        finally:
            flight.close()  # idempotent: nothing is left in flight, whatever happened
            watch.finish()

    def _finished(
        self,
        message: RunDone,
        frame_size: int,
        started: float,
        flight: Flight,
    ) -> Execution:
        records = flight.close()
        costs = self._costs()
        output, stdout, truncated, error_code = capped_answer(message, frame_size, self._limits)
        overdrawn = self._check_writes()
        if overdrawn is not None:
            output, error_code = Error(message=overdrawn), ErrorCode.OUTPUT_LIMIT
        files = self._files_written()  # before the notes: listing them counts what is left
        if self._writes is not None and (problems := self._writes.take_problems()):
            # The script's writes that did not reach the host must not vanish unnoticed.
            stdout += "".join(f"[sandbox] not applied to the host: {p}\n" for p in problems)
        if self._writes is not None and (notes := self._writes.take_notes()):
            stdout += "".join(f"[sandbox] {note}\n" for note in notes)  # files not listed
        # Every field is already validated: skip a second validation pass.
        return Execution.model_construct(
            output=output,
            stdout=stdout,
            stdout_truncated=truncated,
            error_code=error_code,
            duration_s=time.perf_counter() - started - flight.tool_time,
            cpu_s=costs.cpu_s,
            peak_memory_bytes=costs.peak_memory_bytes,
            tool_calls=records,
            confinement=self.confinement,
            files=files,
            worker_restarted=False,
        )

    def _files_written(self) -> list[WrittenFile]:
        """What the run wrote under the writable mounts (also a run stopped by a limit)."""
        return self._writes.take_files() if self._writes is not None else []

    def _check_writes(self) -> str | None:
        """Writes beyond a mount's budget (possible with the language layer off) retire
        the session's worker, and the session refuses further runs."""
        overdrawn = self._writes.overdrawn() if self._writes is not None else None
        if overdrawn is not None:
            if self._worker is not None:
                self._retire(self._worker)
            self._overdrawn = overdrawn
        return overdrawn

    def _retire(self, worker: WorkerHandle, *, release: bool = True) -> None:
        """Kill ``worker`` for good; the session's next run starts in a fresh one."""
        worker.close()
        resource_watch.release(worker)
        if release:
            self._supply.release(worker)
        self._worker = None
        self._worker_lost = True

    def _killed(
        self,
        worker: WorkerHandle,
        code: ErrorCode,
        started: float,
        flight: Flight,
        message: str | None = None,
    ) -> Execution:
        costs = self._costs()  # read while /proc still has the worker
        self._retire(worker)
        records, tool_time = flight.close(), flight.tool_time
        message = message or explain(code.value, self._limits.model_dump())
        files, unchecked = self._writes_of_stopped_run()
        return Execution(
            output=Error(message=message + unchecked),
            error_code=code,
            duration_s=time.perf_counter() - started - tool_time,
            cpu_s=costs.cpu_s,
            peak_memory_bytes=costs.peak_memory_bytes,
            tool_calls=records,
            confinement=self.confinement,
            files=files,
        )

    def _died(
        self,
        worker: WorkerHandle,
        started: float,
        flight: Flight,
        detail: str | None,
    ) -> Execution:
        killed_by_host = worker.killed_by_host
        records, tool_time = flight.close(), flight.tool_time
        costs = self._costs()
        self._retire(worker, release=False)
        files, unchecked = self._writes_of_stopped_run()
        origin = worker.origin
        status = origin.exit_status(worker.pid, _EXIT_NOTICE_S) if origin else None
        zygote_cause = None
        if origin is not None and not origin.alive:
            zygote_cause = origin.death_cause()
        self._supply.release(worker)
        if zygote_cause is not None:
            self._supply.check_zygote()
        death = explain_death(
            status,
            killed_by_host=killed_by_host,
            detail=detail,
            zygote_cause=zygote_cause,
            limits=self._limits.model_dump(),
        )
        return Execution(
            output=Error(message=death.message + unchecked),
            error_code=death.code,
            duration_s=time.perf_counter() - started - tool_time,
            cpu_s=costs.cpu_s,
            peak_memory_bytes=costs.peak_memory_bytes,
            tool_calls=records,
            confinement=self.confinement,
            files=files,
        )

    def _costs(self) -> RunCosts:
        """The run's costs as the host measured them (``resource_watch.py``)."""
        return self._watch.finish() if self._watch is not None else RunCosts(0.0, 0)

    def _writes_of_stopped_run(self) -> tuple[list[WrittenFile], str]:
        """What a stopped or dead worker's run wrote, and a sentence for its message if
        the mounts could not be looked at. The host's verdict stands either way: this
        runs inside the run's channel handler, which would otherwise report the worker
        it just lost as cancelled."""
        try:
            self._check_writes()
            return self._files_written(), ""
        except OSError as exc:
            return [], f" What the run wrote could not be checked: {exc.strerror or exc}."
