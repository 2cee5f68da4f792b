"""The adaptive connection limit: halve once per 429 episode, pause, grow back slowly."""

from __future__ import annotations

import asyncio
import time

import pytest

from codeact.bench.limiter import AdaptiveLimiter


def test_a_rate_limited_episode_halves_once_and_growth_is_slow() -> None:
    async def scenario() -> None:
        limiter = AdaptiveLimiter(8, episode_s=10)
        await limiter.rate_limited(None)
        await limiter.rate_limited(None)  # the same episode: calls already in flight
        assert (limiter.limit, limiter.halvings) == (4, 1)
        for _ in range(4):
            await limiter.acquire()
        assert limiter.in_flight == 4
        waiting = asyncio.create_task(limiter.acquire())
        await asyncio.sleep(0.01)
        assert not waiting.done()  # the fifth waits for a free connection
        await limiter.release(ok=True)
        await asyncio.wait_for(waiting, 1)
        for _ in range(4):
            await limiter.release(ok=True)
        # 4 successes at limit 4 grow it by one (the first counted already).
        assert limiter.limit == 5

    asyncio.run(scenario())


@pytest.mark.timeout(30)
def test_retry_after_holds_every_new_call() -> None:
    async def scenario() -> float:
        limiter = AdaptiveLimiter(4, episode_s=0)
        await limiter.rate_limited(0.3)
        started = time.monotonic()
        await limiter.acquire()
        return time.monotonic() - started

    assert asyncio.run(scenario()) >= 0.25


def test_a_fixed_limit_does_not_adapt() -> None:
    async def scenario() -> int:
        limiter = AdaptiveLimiter(3, adaptive=False)
        await limiter.rate_limited(None)
        return limiter.limit

    assert asyncio.run(scenario()) == 3
    with pytest.raises(ValueError, match="at least 1"):
        AdaptiveLimiter(0)
