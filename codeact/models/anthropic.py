"""`AnthropicModel`: the Anthropic Messages API (``POST {base_url}/v1/messages``).

The key comes from ``api_key=`` or ``ANTHROPIC_API_KEY``, the base URL from
``base_url=``, ``ANTHROPIC_BASE_URL`` or ``https://api.anthropic.com``. Extended
thinking is enabled through ``extra_body={"thinking": {"type": "enabled",
"budget_tokens": N}}``; thinking blocks come back on the `Ai` with their signatures
and are replayed verbatim on the next request.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

import httpx

from codeact.messages import Ai, Message
from codeact.models.anthropic_format import (
    AnthropicStreamParser,
    mark_cache_breakpoints,
    parse_message,
    to_anthropic_messages,
    to_anthropic_tools,
)
from codeact.models.base import CallOptions
from codeact.models.bounded import ResponseLimits
from codeact.models.errors import MissingApiKeyError
from codeact.models.http import HttpModel, StreamParser
from codeact.models.retry import RetryPolicy

__all__ = ["ANTHROPIC_DEFAULT_BASE_URL", "ANTHROPIC_VERSION", "AnthropicModel"]

ANTHROPIC_DEFAULT_BASE_URL = "https://api.anthropic.com"
ANTHROPIC_VERSION = "2023-06-01"


class AnthropicModel(HttpModel):
    """A Claude model over the Messages API.

    The API requires ``max_tokens`` on every request: `max_tokens` here is the default
    used when a call does not give one. ``beta`` lists ``anthropic-beta`` features.
    ``cache_prompt`` turns on prompt caching: cache breakpoints after the system prompt
    and after the newest message, so that each step of an agent run reads the
    conversation so far from the cache (see ``cache_read_tokens`` in the usage).
    """

    provider = "anthropic"

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        client: httpx.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
        timeout: float | httpx.Timeout | None = None,
        headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        limits: ResponseLimits | None = None,
        vision: bool = True,
        max_tokens: int = 4096,
        temperature: float | None = None,
        version: str = ANTHROPIC_VERSION,
        beta: Sequence[str] = (),
        cache_prompt: bool = False,
        env: Mapping[str, str] | None = None,
    ) -> None:
        env = os.environ if env is None else env
        api_key = api_key or env.get("ANTHROPIC_API_KEY") or None
        if api_key is None:
            raise MissingApiKeyError("anthropic", "ANTHROPIC_API_KEY")
        base_url = base_url or env.get("ANTHROPIC_BASE_URL") or ANTHROPIC_DEFAULT_BASE_URL
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
        self.version = version
        self.beta = list(beta)
        self.cache_prompt = cache_prompt

    @property
    def name(self) -> str:
        return f"anthropic:{self.model}"

    def _url(self) -> str:
        # Accept base URLs given with or without the version segment.
        if self.base_url.endswith("/v1"):
            return f"{self.base_url}/messages"
        return f"{self.base_url}/v1/messages"

    def _auth_headers(self) -> dict[str, str]:
        headers = {"x-api-key": self.api_key or "", "anthropic-version": self.version}
        if self.beta:
            headers["anthropic-beta"] = ",".join(self.beta)
        return headers

    def _build_body(
        self, messages: Sequence[Message], options: CallOptions, *, stream: bool
    ) -> dict[str, Any]:
        system, turns = to_anthropic_messages(messages)
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": options.max_tokens or self.default_options.max_tokens,
            "messages": turns,
        }
        if self.cache_prompt:
            mark_cache_breakpoints(system, turns)
        if system:
            body["system"] = system
        if options.stop:
            body["stop_sequences"] = list(options.stop)
        temperature = (
            options.temperature
            if options.temperature is not None
            else self.default_options.temperature
        )
        if temperature is not None:
            # The API accepts 0..1 only; 0..2 is the OpenAI range validated upstream.
            if temperature > 1:
                raise ValueError(f"anthropic: temperature must be within 0..1, got {temperature}")
            body["temperature"] = temperature
        if options.tools:
            body["tools"] = to_anthropic_tools(options.tools)
        if stream:
            body["stream"] = True
        return body

    def _parse_response(self, data: Any) -> Ai:
        return parse_message(self.provider, data)

    def _stream_parser(self) -> StreamParser:
        return AnthropicStreamParser(self.provider)
