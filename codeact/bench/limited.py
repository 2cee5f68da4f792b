"""`LimitedModel`: a sample's view of the run's model, through the connection limiter.

The model client's own retries are turned off for a benchmark (see `bench_model`):
retrying here instead lets a 429 shrink the shared limit, and every retry is written
into the sample's record.
"""

from __future__ import annotations

import asyncio
import random

from codeact.bench.limiter import ConnectionLimiter
from codeact.bench.records import ModelRetry
from codeact.messages import Ai, Message
from codeact.models.base import CallOptions, Model
from codeact.models.errors import ModelError, ModelErrorCode
from codeact.models.retry import RetryPolicy

RETRIED = frozenset(
    {
        ModelErrorCode.RATE_LIMITED,
        ModelErrorCode.OVERLOADED,
        ModelErrorCode.SERVER_ERROR,
        ModelErrorCode.TIMEOUT,
        ModelErrorCode.CONNECTION_ERROR,
    }
)


class LimitedModel(Model):
    """Calls `inner` under `limiter`, retrying infrastructure failures `max_retries` times.

    A wait is the server's ``retry-after`` or an exponential backoff from 0.5 s, never
    more than `max_wait_s` (a longer demand is waited out in `max_wait_s` steps rather
    than ending the sample).
    """

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
        self.vision = inner.vision
        self.limiter = limiter
        self.max_wait_s = max_wait_s
        self.policy = RetryPolicy(
            max_attempts=max_retries + 1,
            initial_delay=0.5,
            max_delay=max_wait_s,
            jitter=0.25,
            max_total_wait=float("inf"),
            max_retry_after=float("inf"),
            retry_on=RETRIED,
        )
        self.retries: list[ModelRetry] = []
        self._rng = random.Random(seed)

    @property
    def name(self) -> str:
        return self.inner.name

    async def _request(self, messages: list[Message], options: CallOptions) -> Ai:
        attempt, waited = 0, 0.0
        while True:
            attempt += 1
            await self.limiter.acquire()
            ok = False
            try:
                reply = await self.inner.complete(
                    messages,
                    stop=options.stop,
                    max_tokens=options.max_tokens,
                    temperature=options.temperature,
                    tools=options.tools,
                )
                ok = True
                return reply
            except ModelError as error:
                delay = self.policy.next_delay(error, attempt, waited, self._rng)
                if delay is None:
                    raise
                failure = error
            finally:
                await self.limiter.release(ok=ok)
            if failure.code is ModelErrorCode.RATE_LIMITED:
                await self.limiter.rate_limited(failure.retry_after)
            delay = min(delay, self.max_wait_s)
            self.retries.append(
                ModelRetry(
                    code=failure.code.value,
                    message=str(failure)[:500],
                    retry_after=failure.retry_after,
                    waited_s=round(delay, 3),
                )
            )
            await asyncio.sleep(delay)
            waited += delay
