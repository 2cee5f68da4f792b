"""`OpenAIChatModel`: the Chat Completions API of OpenAI and OpenAI-compatible servers.

``openai:MODEL`` talks to OpenAI (or wherever ``OPENAI_BASE_URL`` points) and needs
``OPENAI_API_KEY``. ``openai-compatible:MODEL@URL`` talks to vLLM, Ollama, llama.cpp,
LM Studio, DeepSeek, OpenRouter, Together, Groq…; a key is optional there (from
``api_key=`` or ``OPENAI_COMPATIBLE_API_KEY``) so that ``OPENAI_API_KEY`` is never sent
to a third-party server by accident.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx

from codeact.messages import Ai, Message
from codeact.models.base import CallOptions
from codeact.models.bounded import ResponseLimits
from codeact.models.errors import MissingApiKeyError
from codeact.models.http import HttpModel, StreamParser
from codeact.models.openai_format import (
    OpenAIStreamParser,
    parse_chat_completion,
    to_openai_messages,
    to_openai_tools,
)
from codeact.models.retry import RetryPolicy

__all__ = ["OPENAI_DEFAULT_BASE_URL", "OpenAIChatModel"]

OPENAI_DEFAULT_BASE_URL = "https://api.openai.com/v1"

OpenAIProvider = Literal["openai", "openai-compatible"]


class OpenAIChatModel(HttpModel):
    """A chat model behind a Chat Completions endpoint (``{base_url}/chat/completions``).

    ``max_tokens`` / ``temperature`` given here are defaults for every call.
    ``max_tokens_field`` names the request field for the output limit; OpenAI's own
    API wants ``max_completion_tokens`` (its reasoning models reject ``max_tokens``),
    compatible servers want ``max_tokens``; the default picks by host.
    ``stream_usage=False`` drops ``stream_options`` for servers that reject it.
    """

    def __init__(
        self,
        model: str,
        *,
        provider: OpenAIProvider = "openai",
        api_key: str | None = None,
        base_url: str | None = None,
        client: httpx.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
        timeout: float | httpx.Timeout | None = None,
        headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        limits: ResponseLimits | None = None,
        vision: bool = True,
        max_tokens: int | None = None,
        temperature: float | None = None,
        max_tokens_field: Literal["max_tokens", "max_completion_tokens"] | None = None,
        stream_usage: bool = True,
        env: Mapping[str, str] | None = None,
    ) -> None:
        env = os.environ if env is None else env
        if provider == "openai":
            api_key = api_key or env.get("OPENAI_API_KEY") or None
            if api_key is None:
                raise MissingApiKeyError("openai", "OPENAI_API_KEY")
            base_url = base_url or env.get("OPENAI_BASE_URL") or OPENAI_DEFAULT_BASE_URL
        elif provider == "openai-compatible":
            api_key = api_key or env.get("OPENAI_COMPATIBLE_API_KEY") or None
            if not base_url:
                raise ValueError(
                    "openai-compatible models need a base URL: "
                    "'openai-compatible:MODEL@http://host:port/v1' or base_url=..."
                )
        else:
            raise ValueError(f"unknown OpenAI provider {provider!r}")
        self.provider = provider
        super().__init__(
            model,
            base_url=base_url,
            api_key=api_key,
            client=client,
            retry=retry,
            timeout=timeout,
            headers=headers,
            extra_body=extra_body,
            limits=limits,
            vision=vision,
        )
        self.default_options = CallOptions.build(max_tokens=max_tokens, temperature=temperature)
        if max_tokens_field is None:
            host = urlsplit(self.base_url).hostname or ""
            max_tokens_field = (
                "max_completion_tokens" if host.endswith("api.openai.com") else "max_tokens"
            )
        self.max_tokens_field = max_tokens_field
        self.stream_usage = stream_usage

    @property
    def name(self) -> str:
        if self.provider == "openai-compatible":
            return f"openai-compatible:{self.model}@{self.base_url}"
        return f"openai:{self.model}"

    def _url(self) -> str:
        return f"{self.base_url}/chat/completions"

    def _auth_headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    def _build_body(
        self, messages: Sequence[Message], options: CallOptions, *, stream: bool
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model, "messages": to_openai_messages(messages)}
        if options.stop:
            body["stop"] = list(options.stop)
        max_tokens = options.max_tokens or self.default_options.max_tokens
        if max_tokens is not None:
            body[self.max_tokens_field] = max_tokens
        temperature = (
            options.temperature
            if options.temperature is not None
            else self.default_options.temperature
        )
        if temperature is not None:
            body["temperature"] = temperature
        if options.tools:
            body["tools"] = to_openai_tools(options.tools)
        if stream:
            body["stream"] = True
            if self.stream_usage:
                body["stream_options"] = {"include_usage": True}
        return body

    def _parse_response(self, data: Any) -> Ai:
        return parse_chat_completion(self.provider, data)

    def _stream_parser(self) -> StreamParser:
        return OpenAIStreamParser(self.provider)
