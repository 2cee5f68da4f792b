"""Session: one worker's life — scripts run one after another and share variables.

``Session.run`` sends a script, serves the worker's tool calls, enforces the wall-clock
and hard CPU limits itself by killing the worker's process group, and returns an
:class:`Execution` whatever happens. The run itself is a state machine
(``run_machine.py``), waited for in the caller's thread (:meth:`Session.run`) or with
the event loop (:meth:`Session.run_async`, holding no thread: ``run_drivers.py``). Its
workers come from the :class:`~sandbox.host.supply.WorkerSupply` its sandbox handed it.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable
from typing import Self

from sandbox.errors import SandboxError
from sandbox.execution import ErrorCode, Execution, ToolCallRecord, WrittenFile
from sandbox.host import resource_watch
from sandbox.host.deaths import explain_death
from sandbox.host.frames import RunDone
from sandbox.host.resource_watch import RunCosts, RunWatch
from sandbox.host.run_drivers import LoopDriver, PollDriver, exit_status, gone
from sandbox.host.run_limits import capped_answer, capped_images, refuse_source
from sandbox.host.run_machine import Finished, Lost, RunMachine, Stopped
from sandbox.host.session_state import StateExchange
from sandbox.host.snapshots import RestoreReport
from sandbox.host.supply import FreshWorker, WorkerSupply
from sandbox.host.tool_flight import Flight
from sandbox.host.tools import ToolSet
from sandbox.host.workers import WorkerHandle
from sandbox.host.writes.direct import DirectWrites
from sandbox.host.writes.private import PrivateWrites
from sandbox.limits_text import explain
from sandbox.output import Error
from sandbox.protocol import ExitedNotice, Op, encode, in_flight_cap

#: How long a dead worker's exit notice is awaited (the zygote sends it at once).
_EXIT_NOTICE_S = 2.0


class Session(StateExchange):
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
        #: What :meth:`restore` rebuilt, once it has (``sb.session(restore=...)``).
        self.restored: RestoreReport | None = None
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
            refusal = self._refusal(source, cancel)
            if refusal is not None:
                return refusal
            restarted = self._worker_lost if self._worker is None else False
            if self._worker is None:
                self._start_worker()
                self._worker_lost = False
            driver = PollDriver()
            machine = self._machine(driver.notify, inline=True)
            try:
                end = driver.run(machine, source)
            finally:
                records = machine.flight.close()  # idempotent; nothing is left in flight
            end = self._limit_reached(end)
            if isinstance(end, Lost):
                peak = self._costs().peak_memory_bytes  # read while /proc has it
                origin, pid = machine.worker.origin, machine.worker.pid
                status = origin.exit_status(pid, _EXIT_NOTICE_S) if origin else None
                execution, zygote_dead = self._died(machine, end, records, status, peak)
                if zygote_dead:
                    self._supply.check_zygote()
            else:
                execution = self._ended(machine, end, records)
                self._supply.ran(machine.worker)
            return _restarted(execution) if restarted else execution

    async def run_async(self, source: str) -> Execution:
        """:meth:`run` on the running event loop: the run waits with the loop, not in
        a thread; async tools run on this loop, sync ones on the sandbox's tool
        threads. Cancelling it kills the worker (the next run starts a fresh one)."""
        if not self._run_lock.acquire(blocking=False):
            raise SandboxError("the session is running another script")
        try:
            refusal = self._refusal(source, None)
            if refusal is not None:
                return refusal
            restarted = self._worker_lost if self._worker is None else False
            if self._worker is None:
                await self._supply.in_start_thread(self._start_worker)
                self._worker_lost = False
            driver = LoopDriver(asyncio.get_running_loop())
            machine = self._machine(driver.notify, inline=False)
            try:
                end = await driver.run(machine, source)
            except BaseException:
                worker = machine.worker
                worker.kill()  # cancelled: the worker goes, the session stays
                machine.flight.close()
                self._costs()  # the watch ends with the run
                try:
                    await gone(worker, _EXIT_NOTICE_S)  # so that the caller sees it gone on return
                finally:
                    self._retire(worker)
                raise
            records = machine.flight.close()
            end = self._limit_reached(end)
            if isinstance(end, Lost):
                peak = self._costs().peak_memory_bytes  # read while /proc has it
                status = await exit_status(machine.worker, _EXIT_NOTICE_S)
                execution, zygote_dead = self._died(machine, end, records, status, peak)
                if zygote_dead:
                    await self._supply.in_start_thread(self._supply.check_zygote)
            else:
                execution = self._ended(machine, end, records)
                self._supply.ran(machine.worker)
            return _restarted(execution) if restarted else execution
        finally:
            self._run_lock.release()

    def _refusal(self, source: str, cancel: threading.Event | None) -> Execution | None:
        """Why this run cannot start (an Execution saying so), or None; sets the abort
        event the run watches."""
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
        return refuse_source(source, self._limits)

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

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the run ----------------------------------------------------------------------
    def _machine(self, notify: Callable[[], None], *, inline: bool) -> RunMachine:
        """The state machine of the next run (see ``run_machine.py``)."""
        worker = self._worker
        assert worker is not None
        limits = self._limits
        flight = Flight(
            self._tools,
            limits,
            self._in_flight_cap,
            self._supply.tool_threads,
            self._tool_loop,
            notify,
            inline=inline,
        )
        self._seq += 1
        if self._abort.is_set():
            worker.kill()  # cancelled while the worker was starting
        # CPU is the kernel's count, read on a timer whatever the channel does.
        watch = self._watch = resource_watch.watch(worker, limits.cpu_hard_s)
        return RunMachine(
            worker,
            flight,
            wall_s=limits.wall_s,
            seq=self._seq,
            watch=watch,
            abort=self._abort,
            pause_between_runs=self._pause_between_runs,
        )

    def _ended(
        self, machine: RunMachine, end: Finished | Stopped, records: list[ToolCallRecord]
    ) -> Execution:
        if isinstance(end, Finished):
            return self._finished(end.message, end.size, machine, records)
        return self._killed(machine, end.code, records, end.message)

    def _limit_reached(self, end: Finished | Stopped | Lost) -> Finished | Stopped | Lost:
        """``end``, unless the resource watch killed the worker at a limit meanwhile
        (its channel then closes, or its answer came as the watch fired)."""
        limit = self._watch.check() if self._watch is not None else None
        return Stopped(limit) if limit is not None and not isinstance(end, Stopped) else end

    def _costs(self) -> RunCosts:
        """The run's costs as the host measured them (``resource_watch.py``)."""
        return self._watch.finish() if self._watch is not None else RunCosts(0.0, 0)

    def _finished(
        self, message: RunDone, frame_size: int, machine: RunMachine, records: list[ToolCallRecord]
    ) -> Execution:
        costs = self._costs()
        output, stdout, truncated, error_code = capped_answer(message, frame_size, self._limits)
        images, too_large = capped_images(message, self._limits)
        if too_large is not None:
            output, error_code = Error(message=too_large), ErrorCode.OUTPUT_LIMIT
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
            duration_s=_run_time(machine),
            cpu_s=costs.cpu_s,
            peak_memory_bytes=costs.peak_memory_bytes,
            tool_calls=records,
            confinement=self.confinement,
            images=images,
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
        machine: RunMachine,
        code: ErrorCode,
        records: list[ToolCallRecord],
        message: str | None = None,
    ) -> Execution:
        worker = machine.worker
        costs = self._costs()  # read while /proc still has the worker
        self._retire(worker)
        message = message or explain(code.value, self._limits.model_dump())
        files, unchecked = self._writes_of_stopped_run()
        return Execution(
            output=Error(message=message + unchecked),
            error_code=code,
            duration_s=_run_time(machine),
            cpu_s=costs.cpu_s,
            peak_memory_bytes=costs.peak_memory_bytes,
            tool_calls=records,
            confinement=self.confinement,
            files=files,
        )

    def _died(
        self,
        machine: RunMachine,
        end: Lost,
        records: list[ToolCallRecord],
        status: ExitedNotice | None,
        peak: int,
    ) -> tuple[Execution, bool]:
        """The run whose worker died, and whether its zygote died too (the caller then
        has it replaced)."""
        worker = machine.worker
        killed_by_host = worker.killed_by_host
        self._retire(worker, release=False)
        files, unchecked = self._writes_of_stopped_run()
        origin = worker.origin
        zygote_cause = None
        if origin is not None and not origin.alive:
            zygote_cause = origin.death_cause()
        self._supply.release(worker)
        death = explain_death(
            status,
            killed_by_host=killed_by_host,
            detail=end.detail,
            zygote_cause=zygote_cause,
            limits=self._limits.model_dump(),
        )
        execution = Execution(
            output=Error(message=death.message + unchecked),
            error_code=death.code,
            duration_s=_run_time(machine),
            cpu_s=self._costs().cpu_s,
            peak_memory_bytes=peak,
            tool_calls=records,
            confinement=self.confinement,
            files=files,
        )
        return execution, zygote_cause is not None

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


def _run_time(machine: RunMachine) -> float:
    """The run's wall time, less the time spent in tools."""
    return time.perf_counter() - machine.started - machine.flight.tool_time


def _restarted(execution: Execution) -> Execution:
    return execution.model_copy(update={"worker_restarted": True})
