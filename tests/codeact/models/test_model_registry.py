"""model_from_string: spec strings, environment, overrides."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codeact.models import (
    AnthropicModel,
    MissingApiKeyError,
    Model,
    OpenAIChatModel,
    RetryPolicy,
    ScriptedModel,
    model_from_string,
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in (
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_BASE_URL",
        "OPENAI_COMPATIBLE_API_KEY",
    ):
        monkeypatch.delenv(var, raising=False)


def close(model: Model) -> None:
    asyncio.run(model.aclose())


def test_openai(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(MissingApiKeyError, match="OPENAI_API_KEY"):
        model_from_string("openai:gpt-4o-mini")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    model = model_from_string("openai:gpt-4o-mini")
    assert isinstance(model, OpenAIChatModel)
    assert (model.name, model.api_key, model.base_url) == (
        "openai:gpt-4o-mini",
        "sk-env",
        "https://api.openai.com/v1",
    )
    close(model)
    monkeypatch.setenv("OPENAI_BASE_URL", "https://api.together.xyz/v1")
    policy = RetryPolicy(max_attempts=2)
    model = model_from_string(" openai:meta/llama ", api_key="sk-arg", retry=policy)
    assert isinstance(model, OpenAIChatModel)
    assert (model.api_key, model.base_url, model.retry) == (
        "sk-arg",
        "https://api.together.xyz/v1",
        policy,
    )
    close(model)


def test_anthropic(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(MissingApiKeyError, match="ANTHROPIC_API_KEY"):
        model_from_string("anthropic:claude-sonnet-4-5")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "ak")
    model = model_from_string("anthropic:claude-sonnet-4-5", max_tokens=2000)
    assert isinstance(model, AnthropicModel)
    assert model.name == "anthropic:claude-sonnet-4-5"
    assert model.default_options.max_tokens == 2000
    close(model)


def test_openai_compatible(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "must-not-leak")
    model = model_from_string("openai-compatible:ollama/llama3.1:8b@http://127.0.0.1:11434/v1")
    assert isinstance(model, OpenAIChatModel)
    assert model.model == "ollama/llama3.1:8b"
    assert model.base_url == "http://127.0.0.1:11434/v1"
    assert model.api_key is None
    assert model.name == "openai-compatible:ollama/llama3.1:8b@http://127.0.0.1:11434/v1"
    close(model)
    monkeypatch.setenv("OPENAI_COMPATIBLE_API_KEY", "local-key")
    model = model_from_string("openai-compatible:qwen", base_url="http://localhost:8080/v1")
    assert isinstance(model, OpenAIChatModel)
    assert (model.api_key, model.base_url) == ("local-key", "http://localhost:8080/v1")
    close(model)


@pytest.mark.parametrize(
    ("spec", "kwargs", "message"),
    [
        ("gpt-4o", {}, "PROVIDER:MODEL"),
        ("openai:", {}, "PROVIDER:MODEL"),
        ("mystery:model", {}, "unknown model provider 'mystery'"),
        ("openai-compatible:qwen", {}, "need a base URL"),
        ("openai-compatible:qwen@localhost:8000", {}, "must be an http"),
        ("openai-compatible:q@http://h/v1", {"base_url": "http://x"}, "already names a base URL"),
    ],
)
def test_bad_specs(spec: str, kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        model_from_string(spec, **kwargs)


def test_scripted(tmp_path: Path) -> None:
    path = tmp_path / "replies.json"
    path.write_text('["hello", {"content": "bye"}]')
    model = model_from_string(f"scripted:{path}")
    assert isinstance(model, ScriptedModel) and model.remaining == 2
    assert asyncio.run(model.complete([])).text() == "hello"
    with pytest.raises(TypeError, match="no options"):
        model_from_string(f"scripted:{path}", api_key="x")
