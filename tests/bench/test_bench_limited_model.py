"""LimitedModel: a sample's model calls under the shared limiter, retried and recorded."""

from __future__ import annotations

import asyncio

import pytest

from codeact.bench.limited import LimitedModel
from codeact.bench.limiter import AdaptiveLimiter
from codeact.messages import Message
from codeact.models import CallInfo, FunctionModel, ModelError, ModelErrorCode


def failing(*errors: ModelError) -> FunctionModel:
    queue = list(errors)

    def reply(messages: list[Message], info: CallInfo) -> str:
        if queue:
            raise queue.pop(0)
        return f"ok after {info.call_index} failures"

    return FunctionModel(reply)


def test_a_long_retry_after_is_waited_at_most_max_wait_s_and_recorded() -> None:
    inner = failing(ModelError(ModelErrorCode.OVERLOADED, "busy", retry_after=3600))
    model = LimitedModel(inner, AdaptiveLimiter(2), max_wait_s=0.01, seed=1)
    reply = asyncio.run(model.complete([Message.human("hi")], max_tokens=9))
    assert reply.text() == "ok after 1 failures"
    ((code, waited),) = [(r.code, r.waited_s) for r in model.retries]
    assert (code, waited) == ("overloaded", 0.01)
    assert [info.max_tokens for info in inner.call_infos] == [9, 9]


def test_retries_stop_after_max_retries_and_skip_request_errors() -> None:
    busy = [ModelError(ModelErrorCode.SERVER_ERROR, f"broke {i}") for i in range(4)]
    model = LimitedModel(failing(*busy), AdaptiveLimiter(2), max_retries=2, max_wait_s=0.001)
    with pytest.raises(ModelError, match="broke 2"):
        asyncio.run(model.complete([Message.human("hi")]))
    assert len(model.retries) == 2
    bad = LimitedModel(
        failing(ModelError(ModelErrorCode.BAD_REQUEST, "malformed")), AdaptiveLimiter(2)
    )
    with pytest.raises(ModelError, match="malformed"):
        asyncio.run(bad.complete([Message.human("hi")]))
    assert bad.retries == []
