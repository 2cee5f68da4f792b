"""A session's script state exchanged with its worker: :meth:`snapshot` and
:meth:`restore` (the snapshot itself, and what the host checks of it, are in
``snapshots.py``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TypeVar

from sandbox.errors import SandboxError, SnapshotError
from sandbox.host.snapshots import ExchangeFailed, RestoreReport, Snapshot, give, take
from sandbox.host.workers import WorkerHandle
from sandbox.policy import Limits

_T = TypeVar("_T")


class StateExchange:
    """:class:`~sandbox.host.session.Session`'s snapshot and restore."""

    _closed: bool
    _limits: Limits
    _pause_between_runs: bool
    _run_lock: threading.Lock
    _worker: WorkerHandle | None
    restored: RestoreReport | None

    def _start_worker(self) -> None: ...  # the session's own
    def _retire(self, worker: WorkerHandle, *, release: bool = True) -> None: ...

    def snapshot(self) -> Snapshot:
        """The script's state as a :class:`Snapshot` (JSON bytes) that
        ``sb.session(restore=...)`` rebuilds (``sandbox/host/snapshots.py``)."""
        return self._exchange(lambda worker: take(worker, self._limits), ExchangeFailed)

    def restore(self, snapshot: bytes | Snapshot) -> RestoreReport:
        """Rebuild ``snapshot`` here; what could not be is in the report's ``lost``.
        Raises SnapshotError for a snapshot that is not intact (the session then goes on
        in a fresh worker)."""
        loaded = Snapshot.load(snapshot)
        report = self._exchange(lambda worker: give(worker, loaded, self._limits), SnapshotError)
        self.restored = report
        return report

    def _exchange(
        self, call: Callable[[WorkerHandle], tuple[_T, float]], retire_on: type[Exception]
    ) -> _T:
        """``call(worker)`` with the session's worker idle and running (plain-Python
        workers wait stopped); a failure of kind ``retire_on`` ends the worker."""
        with self._run_lock:
            if self._closed:
                raise SandboxError("the session is closed")
            if self._worker is None:
                self._start_worker()
            worker = self._worker
            assert worker is not None
            if self._pause_between_runs:
                worker.resume()
            try:
                result, _ = call(worker)
            except retire_on:
                self._retire(worker)
                raise
            if self._pause_between_runs:
                worker.pause()
            return result
