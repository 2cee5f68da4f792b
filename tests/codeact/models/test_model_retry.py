"""RetryPolicy decisions and the retry loop."""

from __future__ import annotations

import asyncio
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from codeact.models import ModelError, ModelErrorCode, RetryPolicy
from codeact.models.retry import retry_call

NO_JITTER = RetryPolicy(
    max_attempts=6, initial_delay=1, multiplier=2, max_delay=5, jitter=0, max_total_wait=100
)


def err(code: str, **kw: object) -> ModelError:
    return ModelError(code, "x", **kw)  # type: ignore[arg-type]


def test_exponential_backoff_capped_by_max_delay() -> None:
    delays = [NO_JITTER.next_delay(err("server_error"), attempt, 0) for attempt in range(1, 6)]
    assert delays == [1, 2, 4, 5, 5]
    assert NO_JITTER.next_delay(err("server_error"), 6, 0) is None  # attempts used up


def test_jitter_only_shortens_the_wait() -> None:
    policy = RetryPolicy(initial_delay=1, jitter=0.5, max_delay=100)
    rng = random.Random(7)
    waits = [policy.next_delay(err("timeout"), 1, 0, rng) for _ in range(200)]
    assert all(w is not None and 0.5 <= w <= 1 for w in waits)
    assert len(set(waits)) > 100


def test_retry_after_wins_over_backoff() -> None:
    assert NO_JITTER.next_delay(err("rate_limited", retry_after=3.5), 1, 0) == 3.5
    ignoring = NO_JITTER.model_copy(update={"honor_retry_after": False})
    assert ignoring.next_delay(err("rate_limited", retry_after=3.5), 1, 0) == 1


def test_excessive_retry_after_ends_retries() -> None:
    policy = NO_JITTER.model_copy(update={"max_retry_after": 10})
    assert policy.next_delay(err("rate_limited", retry_after=11), 1, 0) is None


def test_total_wait_budget() -> None:
    policy = NO_JITTER.model_copy(update={"max_total_wait": 6})
    assert policy.next_delay(err("server_error"), 3, 2) == 4
    assert policy.next_delay(err("server_error"), 3, 2.5) is None


@pytest.mark.parametrize(
    "code",
    [
        "quota_exhausted",
        "context_length_exceeded",
        "auth",
        "bad_request",
        "content_filter",
        "malformed_response",
    ],
)
def test_non_retryable_codes(code: str) -> None:
    assert NO_JITTER.next_delay(err(code), 1, 0) is None


def test_should_retry_header_overrides_the_code() -> None:
    assert NO_JITTER.next_delay(err("bad_request", should_retry=True), 1, 0) == 1
    assert NO_JITTER.next_delay(err("server_error", should_retry=False), 1, 0) is None
    deaf = NO_JITTER.model_copy(update={"honor_should_retry": False})
    assert deaf.next_delay(err("bad_request", should_retry=True), 1, 0) is None
    assert NO_JITTER.next_delay(err("quota_exhausted", should_retry=True), 1, 0) is None


def test_retry_on_is_configurable() -> None:
    retry_on = frozenset({ModelErrorCode.MALFORMED_RESPONSE})
    policy = NO_JITTER.model_copy(update={"retry_on": retry_on})
    assert policy.next_delay(err("malformed_response"), 1, 0) == 1
    assert policy.next_delay(err("server_error"), 1, 0) is None


def test_disabled_policy() -> None:
    assert RetryPolicy.disabled().next_delay(err("server_error"), 1, 0) is None


@pytest.mark.parametrize(
    "bad", [{"max_attempts": 0}, {"initial_delay": -1}, {"jitter": 2}, {"tries": 3}]
)
def test_policy_validation(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        RetryPolicy.model_validate(bad)


def test_retry_call_retries_then_succeeds() -> None:
    slept: list[float] = []
    seen: list[tuple[str, int, float]] = []
    outcomes: list[object] = [err("overloaded"), err("rate_limited", retry_after=0.5), "ok"]

    async def call() -> str:
        item = outcomes.pop(0)
        if isinstance(item, ModelError):
            raise item
        return str(item)

    async def sleep(d: float) -> None:
        slept.append(d)

    result = asyncio.run(
        retry_call(
            NO_JITTER, call, sleep=sleep, on_retry=lambda e, a, d: seen.append((e.code, a, d))
        )
    )
    assert result == "ok"
    assert slept == [1, 0.5]
    assert seen == [("overloaded", 1, 1), ("rate_limited", 2, 0.5)]


def test_retry_call_gives_up_with_the_last_error() -> None:
    calls = 0

    async def call() -> None:
        nonlocal calls
        calls += 1
        raise err("server_error")

    async def sleep(d: float) -> None:
        return None

    policy = NO_JITTER.model_copy(update={"max_attempts": 3})
    with pytest.raises(ModelError) as info:
        asyncio.run(retry_call(policy, call, sleep=sleep))
    assert info.value.code is ModelErrorCode.SERVER_ERROR
    assert calls == 3


def test_retry_call_does_not_retry_other_exceptions() -> None:
    calls = 0

    async def call() -> None:
        nonlocal calls
        calls += 1
        raise KeyError("bug")

    with pytest.raises(KeyError):
        asyncio.run(retry_call(NO_JITTER, call))
    assert calls == 1


@given(
    initial=st.floats(0, 10),
    multiplier=st.floats(1, 4),
    max_delay=st.floats(0, 30),
    jitter=st.floats(0, 1),
    attempt=st.integers(1, 30),
    seed=st.integers(0, 2**32),
)
def test_backoff_bounds(
    initial: float, multiplier: float, max_delay: float, jitter: float, attempt: int, seed: int
) -> None:
    policy = RetryPolicy(
        initial_delay=initial, multiplier=multiplier, max_delay=max_delay, jitter=jitter
    )
    base = min(max_delay, initial * multiplier ** (attempt - 1))
    delay = policy.backoff(attempt, random.Random(seed))
    assert base * (1 - jitter) - 1e-9 <= delay <= base + 1e-9
    assert delay <= max_delay + 1e-9
