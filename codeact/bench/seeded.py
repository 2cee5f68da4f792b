"""`SeededSandbox`: a view of a shared sandbox whose sessions start with a known seed.

Every session of a sample seeds the script-visible ``random`` from the sample's id
before the agent's first script runs, so a rerun of the sample draws the same numbers.
The seeding script runs in the session itself (it leaves ``random`` imported there).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Self

from sandbox import AsyncSandbox, AsyncSession, Sandbox, Snapshot
from sandbox.host.tools import ToolGate


class SeededSession(AsyncSession):
    """An `AsyncSession` that runs ``random.seed(seed)`` when it starts."""

    seed: int = 0

    async def start(self) -> Self:
        fresh = self._session is None
        await super().start()
        if fresh:
            execution = await self.run(f"import random\nrandom.seed({int(self.seed)})")
            if execution.output.type == "error":
                raise RuntimeError(f"seeding the session failed: {execution.output}")
        return self


class SeededSandbox(AsyncSandbox):
    """Sessions of `sandbox` (shared, kept up by the caller) seeded with `seed`."""

    def __init__(self, sandbox: Sandbox, seed: int) -> None:
        self.sync = sandbox
        self.seed = seed

    def session(
        self,
        tools: Mapping[str, Callable[..., Any]] | None = None,
        *,
        gate: ToolGate | None = None,
        tool_timeouts: Mapping[str, float | None] | None = None,
        restore: bytes | Snapshot | None = None,
    ) -> AsyncSession:
        session = SeededSession(self.sync, tools, gate, tool_timeouts, restore)
        session.seed = self.seed
        return session
