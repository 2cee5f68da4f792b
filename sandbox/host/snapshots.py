"""A session's state taken from its worker and given to a fresh one: ``Snapshot``.

``Session.snapshot()`` asks the worker to describe its script's state as JSON
(``sandbox/worker/snapshot.py`` says what is kept and how); ``sb.session(restore=...)``
hands that JSON to a new worker, which rebuilds it (``sandbox/worker/restore.py``).
The host only moves the bytes: it checks that a worker's answer is a snapshot
(pydantic, on the envelope) and never builds a value from one, let alone unpickles.

An exchange is bounded like a run: by the policy's wall-clock limit (at least
:data:`MIN_WAIT_S`; twice that for a restore), after which the worker is killed and
:class:`SnapshotError` raised; the session then continues in a fresh worker, as after
a killed run.
"""

from __future__ import annotations

import select
import socket
import time
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from sandbox.errors import SnapshotError
from sandbox.host.frames import Restored, StateHeader, parse_worker_message
from sandbox.host.workers import WorkerHandle
from sandbox.policy import Limits
from sandbox.protocol import (
    SNAPSHOT_FORMAT,
    SNAPSHOT_MAX_BYTES,
    ChannelClosed,
    FrameTooLarge,
    Op,
    ToolFailure,
    encode,
    frame_text,
)

#: The least time a snapshot or a restore is given, whatever the policy's ``wall_s``.
MIN_WAIT_S = 10.0
_POLL_S = 0.05


class ExchangeFailed(SnapshotError):
    """The worker died, broke the protocol or ran out of time during the exchange: the
    session stops it, and goes on in a fresh worker."""


class LostVariable(BaseModel):
    """A variable a snapshot could not keep, or a restore could not rebuild."""

    model_config = ConfigDict(frozen=True)

    name: str
    reason: str


class Snapshot(BaseModel):
    """A session's state: ``data`` is the snapshot itself (JSON, UTF-8: write it to a
    file, pass it to ``sb.session(restore=...)``; ``bytes(snapshot)`` is the same)."""

    model_config = ConfigDict(frozen=True)

    data: bytes = Field(repr=False)
    variables: list[str] = Field(description="The variables kept, by name.")
    lost: list[LostVariable] = Field(description="The variables that could not be kept.")

    def __bytes__(self) -> bytes:
        return self.data

    @classmethod
    def load(cls, data: bytes | Snapshot) -> Snapshot:
        """``data`` as a snapshot; raises SnapshotError when it is not one."""
        if isinstance(data, Snapshot):
            return data
        if not isinstance(data, bytes | bytearray | memoryview):
            raise SnapshotError(f"a snapshot is bytes, not {type(data).__name__}")
        data = bytes(data)
        if len(data) > SNAPSHOT_MAX_BYTES:
            raise SnapshotError(
                f"the snapshot is {len(data)} bytes; at most {SNAPSHOT_MAX_BYTES} are accepted"
            )
        try:
            envelope = _Envelope.model_validate_json(data)
        except ValidationError as exc:
            raise SnapshotError(f"not a session snapshot: {_first(exc)}") from None
        return cls(data=data, variables=envelope.variables, lost=envelope.lost)


class RestoreReport(BaseModel):
    """What a restore rebuilt, and what it could not (the snapshot's own losses too)."""

    model_config = ConfigDict(frozen=True)

    variables: list[str]
    lost: list[LostVariable]


class _Envelope(BaseModel):
    model_config = ConfigDict(extra="ignore")

    format: Literal["codeact-session-snapshot"]
    version: Literal[1]
    variables: list[str]
    lost: list[LostVariable]


assert SNAPSHOT_FORMAT == "codeact-session-snapshot"


def _first(exc: ValidationError) -> str:
    error = exc.errors(include_url=False)[0]
    where = ".".join(str(p) for p in error["loc"]) or "the document"
    return f"{where}: {error['msg']}"


def take(worker: WorkerHandle, limits: Limits) -> tuple[Snapshot, float]:
    """Ask ``worker`` for its state; the snapshot and the worker's CPU clock after it."""
    deadline = time.perf_counter() + max(limits.wall_s, MIN_WAIT_S)
    _send(worker, encode({"op": Op.SNAPSHOT}), deadline)
    header = _answer(worker, deadline, "snapshot")
    if not isinstance(header, StateHeader):
        raise ExchangeFailed(f"protocol violation: {header.op!r} answered a snapshot")
    if header.error is not None:
        raise SnapshotError(f"the state could not be taken: {header.error}")
    if header.size > SNAPSHOT_MAX_BYTES:
        raise ExchangeFailed(f"protocol violation: a snapshot of {header.size} bytes")
    data = _payload(worker, header.size, deadline)
    try:
        return Snapshot.load(data), header.process_cpu_s
    except SnapshotError as exc:
        raise ExchangeFailed(f"protocol violation: {exc}") from None


def give(worker: WorkerHandle, snapshot: Snapshot, limits: Limits) -> tuple[RestoreReport, float]:
    """Hand ``snapshot`` to ``worker`` to rebuild; what it reports and its CPU clock.
    Given twice a snapshot's time: its definitions run as scripts, each within the
    policy's CPU limit."""
    deadline = time.perf_counter() + 2 * max(limits.wall_s, MIN_WAIT_S)
    request = encode({"op": Op.RESTORE, "size": len(snapshot.data)})
    _send(worker, request + frame_text(snapshot.data.decode("utf-8")), deadline)
    answer = _answer(worker, deadline, "restore")
    if not isinstance(answer, Restored):
        raise ExchangeFailed(f"protocol violation: {answer.op!r} answered a restore")
    if answer.error is not None:
        raise SnapshotError(answer.error)
    lost = [LostVariable(name=x.name, reason=x.reason) for x in answer.lost]
    return RestoreReport(variables=answer.variables, lost=lost), answer.process_cpu_s


def _send(worker: WorkerHandle, data: bytes, deadline: float) -> None:
    try:
        sent = _send_by(worker.sock, data, deadline)
    except OSError:
        raise ExchangeFailed("the session's worker is gone") from None
    if not sent:
        raise ExchangeFailed("the session's worker stopped reading")


def _answer(worker: WorkerHandle, deadline: float, what: str) -> StateHeader | Restored:
    """The worker's answer; tool calls made meanwhile (a decorator run again by a
    restore calling a tool) are refused."""
    while True:
        frame = _next_frame(worker, deadline, what)
        try:
            message = parse_worker_message(frame)
        except ValidationError as exc:  # the frame is not a worker message
            raise ExchangeFailed(f"protocol violation: {str(exc)[:300]}") from None
        if isinstance(message, StateHeader | Restored):
            return message
        if message.op != Op.CALL:
            raise ExchangeFailed(f"protocol violation: {message.op!r} during a {what}")
        refusal: ToolFailure = {
            "op": Op.RESULT,
            "id": message.id,
            "ok": False,
            "error_type": "RuntimeError",
            "message": f"tools cannot be called while a session's {what} is taken",
        }
        _send(worker, encode(refusal), deadline)


def _next_frame(worker: WorkerHandle, deadline: float, what: str) -> bytes:
    try:
        while True:
            frame = worker.reader.next_frame()
            if frame is not None:
                return frame
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise ExchangeFailed(f"the {what} took longer than the time it is given")
            ready, _, _ = select.select([worker.sock], [], [], min(remaining, _POLL_S))
            if ready:
                worker.reader.fill()
    except (ChannelClosed, OSError):
        raise ExchangeFailed(f"the session's worker died during the {what}") from None
    except FrameTooLarge as exc:
        raise ExchangeFailed(f"protocol violation: {exc}") from None


def _payload(worker: WorkerHandle, size: int, deadline: float) -> bytes:
    limit, worker.reader.max_frame = worker.reader.max_frame, max(worker.reader.max_frame, size)
    try:
        data = _next_frame(worker, deadline, "snapshot")
    finally:
        worker.reader.max_frame = limit
    if len(data) != size:
        raise ExchangeFailed("protocol violation: the snapshot's size is not the one announced")
    return data


def _send_by(sock: socket.socket, data: bytes, deadline: float) -> bool:
    """Send ``data`` on a blocking socket, giving up at ``deadline`` (``perf_counter``);
    False if it did not all go (a worker that stops reading must not hold the host)."""
    view = memoryview(data)
    while True:
        try:
            view = view[sock.send(view, socket.MSG_DONTWAIT) :]
        except BlockingIOError:
            pass
        if not view:
            return True
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return False
        select.select([], [sock], [], min(remaining, 0.05))
