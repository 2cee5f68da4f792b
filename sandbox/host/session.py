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
from sandbox.host.deaths import explain_death
from sandbox.host.frames import RunDone
from sandbox.host.run_drivers import LoopDriver, PollDriver, exit_status, gone
from sandbox.host.run_limits import capped_answer, refuse_source
from sandbox.host.run_machine import CpuWatch, Finished, Lost, RunMachine, Stopped
from sandbox.host.supply import WorkerSupply
from sandbox.host.tool_flight import Flight
from sandbox.host.tools import ToolSet
from sandbox.host.workers import WorkerHandle
from sandbox.host.writes.changed import WrittenFiles
from sandbox.host.writes.staged import StagedWrites
from sandbox.host.writes.usage import MountUsage
from sandbox.limits_text import explain
from sandbox.output import Error
from sandbox.protocol import ExitedNotice, Op, encode, in_flight_cap

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
        self._worker_cpu = 0.0
        self._seq = 0
        # The mounts as the workers see them, resolved when the sandbox started.
        mounts = supply.worker_config["mounts"]
        self._measured = MountUsage(mounts)
        self._written = WrittenFiles(mounts) if any(m["mode"] == "rw" for m in mounts) else None
        self._staged = (
            StagedWrites(mounts, self._measured.baseline)
            if supply.worker_config.get("stage_writes")
            else None
        )
        self._writes: MountUsage | StagedWrites = self._measured
        self._overdrawn: str | None = None
        # With the language layer on, a script cannot reach the channel, so the worker is
        # idle in recv() after its answer; only plain-Python scripts need stopping.
        self._pause_between_runs = not supply.policy.layers.language
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
            worker, self._worker_cpu = fresh.handle, fresh.process_cpu_s
            self.confinement = fresh.confinement
            self._writes = self._measured
            if self._staged is not None and self.confinement["write_staging"].startswith("active"):
                try:
                    self._staged.attach(worker.pid)
                except OSError as exc:
                    self._release(worker)
                    raise SandboxError(f"cannot open the worker's staged mounts: {exc}") from None
                self._writes = self._staged
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

    def _release(self, worker: WorkerHandle) -> None:
        worker.close()
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
            if isinstance(end, Lost):
                peak = machine.worker.memory_bytes() or 0  # read while /proc has it
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
                try:
                    await gone(worker, _EXIT_NOTICE_S)  # so that the caller sees it gone on return
                finally:
                    self._retire(worker)
                raise
            records = machine.flight.close()
            if isinstance(end, Lost):
                peak = machine.worker.memory_bytes() or 0  # read while /proc has it
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
        if self._staged is not None:
            self._staged.close()
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
        return RunMachine(
            worker,
            flight,
            wall_s=limits.wall_s,
            seq=self._seq,
            watch=CpuWatch(worker, self._worker_cpu, limits.cpu_hard_s),
            abort=self._abort,
            pause_between_runs=self._pause_between_runs,
        )

    def _ended(
        self, machine: RunMachine, end: Finished | Stopped, records: list[ToolCallRecord]
    ) -> Execution:
        if isinstance(end, Finished):
            self._worker_cpu = end.message.process_cpu_s
            return self._finished(end.message, end.size, machine, records)
        return self._killed(machine, end.code, records, end.message)

    def _finished(
        self, message: RunDone, frame_size: int, machine: RunMachine, records: list[ToolCallRecord]
    ) -> Execution:
        output, stdout, truncated, error_code = capped_answer(message, frame_size, self._limits)
        overdrawn = self._check_writes()
        if overdrawn is not None:
            output, error_code = Error(message=overdrawn), ErrorCode.OUTPUT_LIMIT
        if self._staged is not None and (problems := self._staged.take_problems()):
            # The script's writes that did not reach the host must not vanish unnoticed.
            stdout += "".join(f"[sandbox] not applied to the host: {p}\n" for p in problems)
        # Every field is already validated: skip a second validation pass.
        return Execution.model_construct(
            output=output,
            stdout=stdout,
            stdout_truncated=truncated,
            error_code=error_code,
            duration_s=_run_time(machine),
            cpu_s=message.cpu_s,
            peak_memory_bytes=message.peak_memory_bytes,
            tool_calls=records,
            confinement=self.confinement,
            files=self._files_written(),
            worker_restarted=False,
        )

    def _files_written(self) -> list[WrittenFile]:
        """What the run wrote under the writable mounts (also a run stopped by a limit)."""
        return self._written.since_last() if self._written is not None else []

    def _check_writes(self) -> str | None:
        """Writes beyond a mount's budget (possible with the language layer off) retire
        the session's worker, and the session refuses further runs."""
        overdrawn = self._writes.overdrawn()
        if overdrawn is not None:
            if self._worker is not None:
                self._retire(self._worker)
            self._overdrawn = overdrawn
        return overdrawn

    def _retire(self, worker: WorkerHandle, *, release: bool = True) -> None:
        """Kill ``worker`` for good; the session's next run starts in a fresh one."""
        worker.close()
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
        cpu = worker.cpu_seconds() or 0.0
        peak = worker.memory_bytes() or 0  # read while /proc still has it
        self._retire(worker)
        message = message or explain(code.value, self._limits.model_dump())
        files, unchecked = self._writes_of_stopped_run()
        return Execution(
            output=Error(message=message + unchecked),
            error_code=code,
            duration_s=_run_time(machine),
            cpu_s=cpu,
            peak_memory_bytes=peak,
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
