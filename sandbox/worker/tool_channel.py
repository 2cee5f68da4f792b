"""The worker's end of tool calls: each call carries an id, several may be in flight.

A call made while the script's event loop runs (``await tool(x)``,
``asyncio.gather(tool(a), tool(b))``) is sent at once, marked ``concurrent``, and
becomes an awaitable; the loop waits for replies instead of sleeping and resumes each
awaitable with the reply bearing its id, in whatever order the host answers. A plain
call outside the loop waits for its own reply, as a function call does.

Ids count up from 1 in each run, in the order the script made the calls; the host
refuses any other id. At most :func:`~sandbox.protocol.in_flight_cap` calls are in flight at once;
calls beyond it wait in the worker, in order, for a slot. Before a run's ``done`` is
sent, every call still in flight is answered and its reply dropped (a task the script
cancelled, a loop that ended first), so replies never cross into the next run.

Worker side: standard library only.
"""

from __future__ import annotations

import asyncio
import contextlib
import select
import signal
import socket
from collections import deque
from collections.abc import Callable, Iterator
from typing import cast

from sandbox.protocol import CallFrame, ChannelClosed, FrameReader, Op, ResultFrame

_CPU_SIGNALS = {signal.SIGPROF, signal.SIGXCPU}


@contextlib.contextmanager
def _cpu_signals_held() -> Iterator[None]:
    """Hold the CPU-limit signals while the channel's state changes: raised halfway
    through (a frame half read, a reply taken but its queued successor not sent), the
    limit would leave the two ends disagreeing. A signal held is delivered on leaving."""
    signal.pthread_sigmask(signal.SIG_BLOCK, _CPU_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _CPU_SIGNALS)


class ToolChannel:
    """Sends tool calls on the worker's socket and routes the replies by id."""

    def __init__(
        self,
        sock: socket.socket,
        reader: FrameReader,
        encode_call: Callable[[CallFrame], bytes],
        cap: int,
    ) -> None:
        self._sock = sock
        self._reader = reader
        self._encode = encode_call
        self._cap = cap
        self._last_id = 0
        # id -> the future awaiting it (None once nobody can take the reply).
        self._waiting: dict[int, asyncio.Future[ResultFrame] | None] = {}
        self._queued: deque[bytes] = deque()
        # Calls on their way out. Never sent blocking: the host may be sending a large
        # reply meanwhile, and both ends waiting to write would wait for ever.
        self._out = bytearray()

    def new_run(self) -> None:
        """Ids start again at 1 (the host counts them per run)."""
        self._last_id = 0

    def _frame(self, request: CallFrame) -> tuple[int, bytes]:
        # Encoded before an id is taken: a call that cannot go leaves no gap in the ids.
        # ``request`` is the caller's own fresh dict: marked in place, not copied.
        call_id = request["id"] = self._last_id + 1
        frame = self._encode(request)
        self._last_id = call_id
        return call_id, frame

    def call(self, request: CallFrame) -> ResultFrame:
        """A call the script waits for: send it, return its reply."""
        if self._waiting:
            self.drain()  # earlier ids first: the host takes them in order
        call_id, frame = self._frame(request)
        self._sock.sendall(frame)
        reply = self._read_reply()
        if reply.get("id") != call_id:
            raise ChannelClosed("a reply for a call not in flight")
        return reply

    def start(self, request: CallFrame) -> asyncio.Future[ResultFrame]:
        """A call awaited in the running script loop: sent now (or queued behind the
        cap); the future is resolved with its reply."""
        request["concurrent"] = True
        call_id, frame = self._frame(request)
        future: asyncio.Future[ResultFrame] = asyncio.get_running_loop().create_future()
        self._waiting[call_id] = future
        self._queued.append(frame)
        with _cpu_signals_held():
            self._pump()
        return future

    def _pump(self) -> None:
        """Send queued calls while fewer than the cap are in flight, as far as the
        socket takes them now; :meth:`wait` sends the rest."""
        while self._queued and len(self._waiting) - len(self._queued) < self._cap:
            self._out += self._queued.popleft()
        while self._out:
            try:
                sent = self._sock.send(self._out, socket.MSG_DONTWAIT)
            except BlockingIOError:
                return
            del self._out[:sent]

    def in_flight(self) -> bool:
        """Whether replies are outstanding."""
        return bool(self._waiting)

    def wait(self, timeout: float | None) -> None:
        """Take the replies that arrive within ``timeout`` (None: until one does)."""
        with _cpu_signals_held():
            self._take(timeout)

    def _take(self, timeout: float | None) -> None:
        if not self._reader.pending():
            writing = [self._sock] if self._out else []
            readable, writable, _ = select.select([self._sock], writing, [], timeout)
            if writable:
                self._pump()
            if not readable:
                return
            self._reader.fill()
        while self._waiting and self._reader.pending():
            self._settle(self._read_reply())

    def forget(self) -> None:
        """The loop is closing: replies still to come are dropped when they arrive."""
        for call_id in self._waiting:
            self._waiting[call_id] = None

    def drain(self) -> None:
        """Wait until every call in flight has its reply (the replies are dropped)."""
        if not self._waiting:
            return  # the common case: every run ends here, most without calls in flight
        self.forget()
        with _cpu_signals_held():
            self._pump()
            while self._waiting:
                self._take(None)

    def _read_reply(self) -> ResultFrame:
        reply = self._reader.read_json()
        if not isinstance(reply, dict) or reply.get("op") != Op.RESULT:
            raise ChannelClosed("unexpected reply from host")
        return cast(ResultFrame, reply)

    def _settle(self, reply: ResultFrame) -> None:
        call_id = reply.get("id")
        if not isinstance(call_id, int) or call_id not in self._waiting:
            raise ChannelClosed("a reply for a call not in flight")
        future = self._waiting.pop(call_id)
        self._pump()
        if future is not None and not future.done():
            future.set_result(reply)
