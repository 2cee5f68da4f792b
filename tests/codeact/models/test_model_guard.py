"""The switch that forbids real network model calls."""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest

from codeact.messages import Message
from codeact.models import (
    BLOCK_ENV_VAR,
    AnthropicModel,
    HttpModel,
    ModelError,
    NetworkBlockedError,
    OpenAIChatModel,
    allow_network_models,
    block_network_models,
    network_models_blocked,
)


class Never:
    """A transport handler counting the requests that get through."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        return httpx.Response(200, json={})


def models(handler: Never) -> list[HttpModel]:
    client = httpx.AsyncClient(transport=httpx.MockTransport(handler))
    return [
        OpenAIChatModel("gpt-4o-mini", api_key="k", client=client),
        AnthropicModel("claude", api_key="k", client=client),
    ]


def assert_blocked(model: HttpModel) -> None:
    with pytest.raises(NetworkBlockedError) as info:
        asyncio.run(model.complete([Message.human("hi")]))
    assert isinstance(info.value, ModelError)
    assert info.value.code == "connection_error" and not info.value.retryable
    assert BLOCK_ENV_VAR in str(info.value) and model.name in str(info.value)

    async def drain() -> None:
        async for _ in model.stream([Message.human("hi")]):
            pass

    with pytest.raises(NetworkBlockedError):
        asyncio.run(drain())


def test_environment_variable_blocks(monkeypatch: pytest.MonkeyPatch) -> None:
    handler = Never()
    monkeypatch.setenv(BLOCK_ENV_VAR, "1")
    assert network_models_blocked()
    for model in models(handler):
        assert_blocked(model)
    assert handler.calls == 0
    monkeypatch.setenv(BLOCK_ENV_VAR, "0")
    assert not network_models_blocked()


def test_context_manager_blocks_for_its_body_and_nests() -> None:
    handler = Never()
    assert not network_models_blocked()
    with block_network_models():
        with block_network_models():
            assert network_models_blocked()
        assert network_models_blocked()
        for model in models(handler):
            assert_blocked(model)
    assert not network_models_blocked()
    assert handler.calls == 0


def test_plain_call_blocks_until_allowed() -> None:
    block_network_models()
    assert network_models_blocked()
    allow_network_models()
    assert not network_models_blocked()


def test_block_applies_to_other_threads() -> None:
    seen: list[bool] = []
    with block_network_models():
        thread = threading.Thread(target=lambda: seen.append(network_models_blocked()))
        thread.start()
        thread.join()
    assert seen == [True]


def test_unblocked_requests_go_through() -> None:
    handler = Never()
    model = models(handler)[0]
    with pytest.raises(ModelError, match="no choices"):
        asyncio.run(model.complete([Message.human("hi")]))
    assert handler.calls == 1
