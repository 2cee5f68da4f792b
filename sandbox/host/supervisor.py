"""Supervision: the sandbox's zygote is watched, and replaced when it dies or hangs.

Every wait on the zygote is bounded (:meth:`Zygote.wait_fork`). When the zygote is dead,
stopped or silent, :meth:`Supervisor.restart` discards its spares (a dead spare's hello
may still sit in its socket buffer, so a spare is never trusted without a liveness
check) and starts a new zygote. A stopped zygote's workers still serve their sessions:
it is killed once the last of them is released.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from sandbox.errors import SandboxError, ZygoteFailure
from sandbox.host.frames import Hello, parse_worker_message
from sandbox.host.spares import WorkerPool
from sandbox.host.workers import READY_TIMEOUT_S, WorkerHandle, Zygote, process_state
from sandbox.protocol import ChannelClosed, FrameTooLarge

#: Attempts to get a live worker, restarting the zygote in between when it failed.
_ATTEMPTS = 3


_log = logging.getLogger("sandbox.host.sandbox")

class Supervisor:
    """The current zygote and its spares, plus zygotes retired while still in use."""

    def __init__(
        self,
        config: dict[str, Any],
        spares: int,
        *,
        start_timeout_s: float,
        before_start: Callable[[int], None] | None = None,
    ) -> None:
        self._config = config
        self._spares = spares
        self._timeout = start_timeout_s
        self._before_start = before_start
        self._lock = threading.Lock()
        self._users: dict[Zygote, int] = {}
        self._retired: list[Zygote] = []
        self._closed = False
        self.restarts = 0
        self.last_restart_cause: str | None = None
        self.zygote = self._new_zygote()
        self.pool = self._new_pool(self.zygote)

    def _new_zygote(self) -> Zygote:
        # Its first start imports everything a worker needs: on a loaded machine that can
        # take far longer than a fork, so it gets at least the zygote's own default.
        zygote = Zygote(
            self._config,
            start_timeout_s=max(self._timeout, READY_TIMEOUT_S),
            before_start=self._before_start,
        )
        zygote.on_exit = self._died
        return zygote

    def _died(self, zygote: Zygote) -> None:
        # Restart at once (not in the reader thread, which is the dead zygote's), so that
        # health() shows it and spares are ready before the next session asks.
        cause = f"the sandbox zygote {zygote.death_cause()}"
        threading.Thread(
            target=self._restart_quietly, args=(zygote, cause), name="sandbox-restart", daemon=True
        ).start()

    def _restart_quietly(self, zygote: Zygote, cause: str) -> None:
        try:
            self.restart(zygote, cause)
        except SandboxError:
            pass  # the next acquire tries again and reports the failure

    def _new_pool(self, zygote: Zygote) -> WorkerPool:
        # A spare's staged copy of a writable mount would miss what sessions wrote after
        # it was forked: such workers are forked when a session needs one.
        return WorkerPool(zygote, 0 if self._config.get("stage_writes") else self._spares)

    # -- workers -----------------------------------------------------------------------
    def acquire(self) -> tuple[WorkerHandle, Hello]:
        """A live, confined worker and its hello; restarts a failed zygote on the way."""
        problem = "no attempt made"
        for _ in range(_ATTEMPTS):
            with self._lock:
                if self._closed:
                    raise SandboxError("the sandbox is closed")
                zygote, pool = self.zygote, self.pool
            if not zygote.alive:
                # Its spares die with it, though their hellos may sit in their sockets.
                self.restart(zygote, f"the sandbox zygote {zygote.death_cause()}")
                continue
            if process_state(zygote.pid) in ("T", "t"):
                # Its spares would work, but it could no longer fork nor report exits.
                self.restart(zygote, "the sandbox zygote was stopped (SIGSTOP)")
                continue
            try:
                worker = pool.acquire(self._timeout)
            except ZygoteFailure as exc:
                problem = str(exc)
                self.restart(zygote, problem)
                continue
            hello, problem = self._hello(worker)
            if hello is not None:
                with self._lock:
                    self._users[zygote] = self._users.get(zygote, 0) + 1
                return worker, hello
            worker.close()
            if not zygote.alive:
                self.restart(zygote, f"the sandbox zygote {zygote.death_cause()}")
        raise SandboxError(f"a new worker failed to start: {problem}")

    def _hello(self, worker: WorkerHandle) -> tuple[Hello | None, str]:
        worker.sock.settimeout(self._timeout)
        try:
            hello = parse_worker_message(worker.reader.read_frame())
        except TimeoutError:
            return None, f"the worker sent no hello within {self._timeout:g} s"
        except (ChannelClosed, FrameTooLarge, OSError, ValueError) as exc:
            return None, f"the worker died before it was ready ({exc or 'channel closed'})"
        finally:
            worker.sock.settimeout(None)
        if not isinstance(hello, Hello):
            return None, f"the worker's first message was {hello.op!r}, not hello"
        if not worker.alive():
            # A spare whose hello was buffered, dead since (e.g. with its zygote).
            return None, "the worker died before it was used"
        return hello, ""

    def release(self, worker: WorkerHandle) -> None:
        """A session is done with ``worker`` (already killed): forget its exit notice,
        and stop its zygote if that was retired and this was its last worker."""
        origin = worker.origin
        if origin is None:
            return
        origin.forget(worker.pid)
        with self._lock:
            if worker.released:
                return
            worker.released = True
            left = self._users.get(origin, 0) - 1
            if left > 0:
                self._users[origin] = left
            else:
                self._users.pop(origin, None)
            done = left <= 0 and origin in self._retired
            if done:
                self._retired.remove(origin)
        if done:
            origin.close(force=True)

    # -- restarts ----------------------------------------------------------------------
    def restart(self, failed: Zygote, cause: str) -> None:
        """Replace ``failed`` (if it is still the current zygote) with a new one."""
        with self._lock:
            if self._closed or self.zygote is not failed:
                return  # closed, or another thread already replaced it
            self.pool.close()
            zygote = self._new_zygote()  # may raise: the next acquire tries again
            in_use = self._users.get(failed, 0) > 0 and failed.alive
            if in_use:
                self._retired.append(failed)
            self.restarts += 1
            self.last_restart_cause = cause
            self.zygote, self.pool = zygote, self._new_pool(zygote)
        _log.warning("restarted the sandbox zygote (restart %d): %s", self.restarts, cause)
        if not in_use:
            failed.close(force=True)

    def check(self) -> None:
        """Restart the zygote now if it has died (called when a session's worker did)."""
        zygote = self.zygote
        if not zygote.alive:
            self.restart(zygote, f"the sandbox zygote {zygote.death_cause()}")

    # -- figures and shutdown ----------------------------------------------------------
    def pids(self) -> set[int]:
        """The zygotes' (current and retired) and the spares' pids."""
        with self._lock:
            zygotes = [self.zygote, *self._retired]
            pool = self.pool
        helpers = {pid for z in zygotes for pid in z.helper_pids}
        return {z.pid for z in zygotes} | helpers | pool.pids()

    def spare_count(self) -> int:
        """Spare workers ready now."""
        return len(self.pool.pids())

    def close(self) -> None:
        """Kill the spares and stop every zygote (their workers die with them)."""
        with self._lock:
            self._closed = True
            zygotes = [self.zygote, *self._retired]
            self._retired = []
            pool = self.pool
        pool.close()
        for zygote in zygotes:
            zygote.close(force=zygote is not self.zygote)
