"""Retry policy for model calls: which failures to retry and how long to wait.

Waits grow exponentially with jitter; a server-provided ``retry-after`` wins over the
computed backoff, and an explicit ``x-should-retry`` verdict wins over the error code.
Attempts and the total time spent waiting are both capped.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from typing import TypeVar

from pydantic import BaseModel, ConfigDict, Field, PositiveInt

from codeact.models.errors import RETRYABLE_CODES, ModelError, ModelErrorCode

__all__ = ["RetryPolicy", "retry_call"]

T = TypeVar("T")


_log = logging.getLogger("codeact.models")

class RetryPolicy(BaseModel):
    """How a model client retries failed calls.

    ``max_attempts`` counts the first try (1 disables retries). The n-th retry waits
    ``min(max_delay, initial_delay * multiplier**(n-1))`` reduced by up to ``jitter``
    (a fraction), unless the server asked for a specific wait: that is honoured as long
    as it is at most ``max_retry_after`` (a longer demand ends the retries). No retry
    happens if it would push the total waiting past ``max_total_wait``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_attempts: PositiveInt = 4
    initial_delay: float = Field(default=0.5, ge=0)
    multiplier: float = Field(default=2.0, ge=1)
    max_delay: float = Field(default=20.0, ge=0)
    jitter: float = Field(default=0.25, ge=0, le=1)
    max_total_wait: float = Field(default=60.0, ge=0)
    max_retry_after: float = Field(default=60.0, ge=0)
    honor_retry_after: bool = True
    honor_should_retry: bool = True
    retry_on: frozenset[ModelErrorCode] = RETRYABLE_CODES

    @classmethod
    def disabled(cls) -> RetryPolicy:
        """A policy that never retries."""
        return cls(max_attempts=1)

    def is_retryable(self, error: ModelError) -> bool:
        """Whether `error` may be retried at all (ignoring attempt and time budgets)."""
        if error.code is ModelErrorCode.QUOTA_EXHAUSTED:
            return False
        if self.honor_should_retry and error.should_retry is not None:
            return error.should_retry
        return error.code in self.retry_on

    def backoff(self, retry_number: int, rng: random.Random | None = None) -> float:
        """The computed wait before retry `retry_number` (1-based), jitter included."""
        base = min(self.max_delay, self.initial_delay * self.multiplier ** (retry_number - 1))
        draw = (rng or random).random()
        return base * (1.0 - self.jitter * draw)

    def next_delay(
        self,
        error: ModelError,
        attempt: int,
        waited: float,
        rng: random.Random | None = None,
    ) -> float | None:
        """Seconds to wait before the attempt after `attempt` (1-based), or None to stop.

        `waited` is the total already spent waiting on earlier retries.
        """
        if attempt >= self.max_attempts or not self.is_retryable(error):
            return None
        if self.honor_retry_after and error.retry_after is not None:
            if error.retry_after > self.max_retry_after:
                return None
            delay = error.retry_after
        else:
            delay = self.backoff(attempt, rng)
        if waited + delay > self.max_total_wait:
            return None
        return delay


async def retry_call(
    policy: RetryPolicy,
    call: Callable[[], Awaitable[T]],
    *,
    sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
    on_retry: Callable[[ModelError, int, float], None] | None = None,
) -> T:
    """Run `call` until it succeeds or `policy` gives up, re-raising the last error.

    Only `ModelError` is retried. `on_retry(error, attempt, delay)` is told about every
    retry before its wait (for logging).
    """
    attempt = 1
    waited = 0.0
    while True:
        try:
            return await call()
        except ModelError as error:
            delay = policy.next_delay(error, attempt, waited)
            if delay is None:
                raise
            _log.info(
                "model call failed (%s), retry %d in %.2f s: %s",
                error.code.value, attempt, delay, error,
            )
            if on_retry is not None:
                on_retry(error, attempt, delay)
            await sleep(delay)
            waited += delay
            attempt += 1
