"""`LimitedModel`: a sample's view of the run's model, through the connection limiter.

The model client's own retries are turned off for a benchmark (see `bench_model`):
retrying here instead lets a 429 shrink the shared limit, and every retry is written
into the sample's record.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Sequence

from codeact.bench.limiter import ConnectionLimiter
from codeact.bench.records import ModelRetry
from codeact.messages import Ai, Message
from codeact.models.base import Done, Model, StreamEvent, TextDelta, ToolLike
from codeact.models.errors import ErrorCode, ModelError

RETRIED = frozenset(
    {
        ErrorCode.RATE_LIMITED,
        ErrorCode.OVERLOADED,
        ErrorCode.SERVER_ERROR,
        ErrorCode.TIMEOUT,
        ErrorCode.CONNECTION_ERROR,
    }
)


class LimitedModel(Model):
    """Calls `inner` under `limiter`, retrying infrastructure failures `max_retries` times."""

    def __init__(
        self,
        inner: Model,
        limiter: ConnectionLimiter,
        *,
        max_retries: int = 6,
        max_wait_s: float = 60.0,
        seed: int | None = None,
    ) -> None:
        self.inner = inner
        self.limiter = limiter
        self.max_retries = max_retries
        self.max_wait_s = max_wait_s
        self.retries: list[ModelRetry] = []
        self._rng = random.Random(seed)

    @property
    def name(self) -> str:
        return self.inner.name

    def _delay(self, error: ModelError, attempt: int) -> float:
        if error.retry_after is not None:
            return min(float(error.retry_after), self.max_wait_s)
        base: float = min(self.max_wait_s, 0.5 * 2.0 ** (attempt - 1))
        return base * (1 - 0.25 * self._rng.random())

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        stop: str | Sequence[str] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        tools: Sequence[ToolLike] | None = None,
    ) -> Ai:
        attempt = 0
        while True:
            attempt += 1
            await self.limiter.acquire()
            ok = False
            try:
                reply = await self.inner.complete(
                    messages, stop=stop, max_tokens=max_tokens, temperature=temperature, tools=tools
                )
                ok = True
                return reply
            except ModelError as error:
                if (
                    error.code not in RETRIED
                    or error.should_retry is False
                    or attempt > self.max_retries
                ):
                    raise
                failure = error
            finally:
                await self.limiter.release(ok=ok)
            if failure.code is ErrorCode.RATE_LIMITED:
                await self.limiter.rate_limited(failure.retry_after)
            delay = self._delay(failure, attempt)
            self.retries.append(
                ModelRetry(
                    code=failure.code.value,
                    message=str(failure)[:500],
                    retry_after=failure.retry_after,
                    waited_s=round(delay, 3),
                )
            )
            await asyncio.sleep(delay)

    async def stream(
        self,
        messages: Sequence[Message],
        *,
        stop: str | Sequence[str] | None = None,
        max_tokens: int | None = None,
        temperature: float | None = None,
        tools: Sequence[ToolLike] | None = None,
    ) -> AsyncIterator[StreamEvent]:
        reply = await self.complete(
            messages, stop=stop, max_tokens=max_tokens, temperature=temperature, tools=tools
        )
        if reply.text():
            yield TextDelta(text=reply.text())
        yield Done(message=reply)
