"""Model connections: an adaptive limit shared by every sample of a run.

The limit starts at its ceiling (``--max-connections``). A ``rate_limited`` episode
halves it — once per episode: the 429s of calls that were already in flight when the
limit dropped belong to the same episode — and holds every new call until the
server's ``retry-after`` has passed. Each run of `limit` successful calls in a row
grows it back by one, up to the ceiling.
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol


class ConnectionLimiter(Protocol):
    """What a sample's model calls go through: `AdaptiveLimiter`, or a proxy of one
    shared by every node of a cluster (``codeact.ray.bench``)."""

    async def acquire(self) -> None: ...

    async def release(self, *, ok: bool) -> None: ...

    async def rate_limited(self, retry_after: float | None) -> None: ...


class AdaptiveLimiter:
    """At most `limit` model calls at once (see the module docstring)."""

    def __init__(self, ceiling: int, *, adaptive: bool = True, episode_s: float = 1.0) -> None:
        if ceiling < 1:
            raise ValueError("--max-connections must be at least 1")
        self.ceiling = ceiling
        self.adaptive = adaptive
        self.limit = ceiling
        self.in_flight = 0
        self.halvings = 0
        self._episode_s = episode_s
        self._episode_until = 0.0
        self._resume_at = 0.0
        self._streak = 0
        self._changed = asyncio.Condition()

    async def acquire(self) -> None:
        """Wait for a free connection (and for any retry-after pause to pass)."""
        async with self._changed:
            while True:
                pause = self._resume_at - time.monotonic()
                if pause > 0:
                    try:
                        await asyncio.wait_for(self._changed.wait(), pause)
                    except TimeoutError:
                        pass
                    continue
                if self.in_flight < self.limit:
                    self.in_flight += 1
                    return
                await self._changed.wait()

    async def release(self, *, ok: bool) -> None:
        """Give the connection back; `ok` counts towards growing the limit."""
        async with self._changed:
            self.in_flight -= 1
            if ok and self.adaptive and self.limit < self.ceiling:
                self._streak += 1
                if self._streak >= self.limit:
                    self.limit += 1
                    self._streak = 0
            self._changed.notify_all()

    async def rate_limited(self, retry_after: float | None) -> None:
        """A call was refused with 429: halve (once per episode), pause for retry-after."""
        now = time.monotonic()
        async with self._changed:
            if self.adaptive and now >= self._episode_until:
                self.limit = max(1, self.limit // 2)
                self.halvings += 1
                self._streak = 0
            wait = retry_after if retry_after is not None else 0.0
            self._episode_until = max(self._episode_until, now + max(wait, self._episode_s))
            self._resume_at = max(self._resume_at, now + wait)
            self._changed.notify_all()
