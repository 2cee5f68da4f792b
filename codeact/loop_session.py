"""LoopSession: the sandbox session the agent in charge of a loop runs its scripts in.

Opened at the first script (restoring a checkpoint's snapshot on resume), lent by a
conversation when its agent is in charge, snapshotted when a checkpoint could be taken,
and closed on a transfer and at the end of the run (a conversation's stays open).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from codeact.settle import uncancellable
from sandbox import AsyncSession, RestoreReport, SnapshotError

if TYPE_CHECKING:
    from codeact.conversation import SessionLease
    from codeact.loop import AgentLoop

_log = logging.getLogger("codeact.loop")


class LoopSession:
    """The session of one loop (see the module docstring)."""

    def __init__(self, loop: AgentLoop, lease: SessionLease | None) -> None:
        self._loop = loop
        self._lease = lease
        self.current: AsyncSession | None = None
        #: A checkpoint's snapshot, rebuilt in the next session opened (on resume).
        self._pending: bytes | None = None
        #: What that session rebuilt of it (None: nothing was restored).
        self.restored: RestoreReport | None = None

    def restore_from(self, snapshot: bytes | None) -> None:
        """Rebuild ``snapshot`` (a checkpoint's) in the next session opened."""
        self._pending = snapshot

    async def open(self) -> AsyncSession:
        """The session of the agent in charge, opened (and restored) if need be."""
        if self.current is not None:
            return self.current
        loop, agent = self._loop, self._loop.agent
        if self._lease is not None and self._lease.agent is agent:
            self.current = await self._lease.open(loop)
            return self.current
        sandbox = await loop.ctx.sandbox(agent.policy)
        tools, timeouts, gated = loop.session_tools(agent)
        restore, self._pending = self._pending, None
        for attempt in (restore, None) if restore is not None else (None,):
            session = sandbox.session(
                tools, gate=loop.gate if gated else None, tool_timeouts=timeouts, restore=attempt
            )
            # Kept before it starts, so that close() ends it even if the start is
            # interrupted; the start itself is waited for (it runs in a thread).
            self.current = session
            try:
                await uncancellable(session.start())
            except SnapshotError as exc:  # the run goes on, without the variables
                _log.warning("run %s: the checkpoint was not restored: %s", loop.ctx.run_id, exc)
                self.current = None
                continue
            if attempt is not None:
                self.restored = session.restored
            return session
        raise AssertionError("unreachable: the last attempt restores nothing")

    async def snapshot(self) -> bytes | None:
        """The open session's state, or None (no session yet, or it could not be kept:
        a checkpoint then says the variables are gone)."""
        if self.current is None:
            return None
        try:
            return bytes(await self.current.snapshot())
        except SnapshotError as exc:
            _log.warning("run %s: the state was not kept: %s", self._loop.ctx.run_id, exc)
            return None

    async def close(self) -> None:
        """End the session (a conversation's stays open)."""
        if self.current is not None:
            session, self.current = self.current, None
            if self._lease is None or session is not self._lease.session:
                await session.close()
