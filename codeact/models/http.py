"""Shared HTTP machinery of the provider clients: requests, retries, SSE streams.

Provider modules supply the wire format (request body, response parser, stream
parser); this module owns the transport concerns: the network block switch, error
classification, retry with backoff, and the rule that a stream is retried only while
nothing has been yielded to the caller.
"""

from __future__ import annotations

import asyncio
import json
from abc import abstractmethod
from collections.abc import AsyncGenerator, Mapping, Sequence
from contextlib import aclosing
from typing import Any, Protocol

import httpx

from codeact.messages import Ai, Message
from codeact.models.base import CallOptions, Model, StreamEnd, StreamEvent
from codeact.models.bounded import (
    ResponseLimits,
    body_lines,
    deadline_error,
    read_body,
    streamed_chars,
    too_large,
    within,
)
from codeact.models.errors import ModelError, ModelErrorCode, classify_error
from codeact.models.guard import check_network_allowed
from codeact.models.retry import RetryPolicy, retry_call
from codeact.models.sse import SseEvent, aiter_sse

__all__ = ["DEFAULT_TIMEOUT", "HttpModel", "StreamParser"]

DEFAULT_TIMEOUT = httpx.Timeout(connect=10.0, read=120.0, write=30.0, pool=10.0)
"""Timeouts of clients the models create themselves; ``read`` bounds the gap between
two stream chunks, so it must allow for a slow first token."""

_RESERVED_BODY_KEYS = frozenset({"model", "messages", "stream"})


class StreamParser(Protocol):
    """Turns one provider's SSE events into stream events and a final reply."""

    @property
    def finished(self) -> bool:
        """Whether the provider's end-of-stream event has been seen."""
        ...

    def feed(self, event: SseEvent) -> list[StreamEvent]:
        """Consume one SSE event (raising `ModelError` for in-stream errors)."""
        ...

    def result(self) -> Ai:
        """The reply assembled so far (complete once `finished`)."""
        ...


def _partial(parser: StreamParser) -> Ai | None:
    """What a broken stream delivered, if it can be assembled at all."""
    try:
        return parser.result()
    except ModelError:
        return None


class HttpModel(Model):
    """Base of the clients that speak a provider's HTTP API.

    `client` may be supplied (tests pass one with ``httpx.MockTransport``); it then
    stays owned by the caller. Otherwise the model creates one and closes it in
    `aclose`. `limits` bounds each call's response size, streamed text and total time
    (see `ResponseLimits`). ``vision=False`` is a text-only model: the images scripts
    show reach it as a note (see `Model.vision`).
    """

    provider: str = "http"

    def __init__(
        self,
        model: str,
        *,
        base_url: str,
        api_key: str | None,
        client: httpx.AsyncClient | None = None,
        retry: RetryPolicy | None = None,
        timeout: float | httpx.Timeout | None = None,
        headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, Any] | None = None,
        limits: ResponseLimits | None = None,
        vision: bool = True,
    ) -> None:
        if not model or not model.strip():
            raise ValueError(f"{self.provider}: model name must not be empty")
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"{self.provider}: base URL must be http(s), got {base_url!r}")
        reserved = _RESERVED_BODY_KEYS & set(extra_body or {})
        if reserved:
            raise ValueError(f"extra_body may not set {sorted(reserved)}")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.retry = retry or RetryPolicy()
        self.limits = limits or ResponseLimits()
        self.vision = vision
        self.extra_body: dict[str, Any] = dict(extra_body or {})
        self._headers = dict(headers or {})
        if timeout is not None and not isinstance(timeout, httpx.Timeout):
            timeout = httpx.Timeout(timeout)
        self._owns_client = client is None
        # A caller's client keeps its own defaults unless a timeout was asked for.
        self._timeout: httpx.Timeout | None = None if client is None else timeout
        if client is None:
            client = httpx.AsyncClient(timeout=DEFAULT_TIMEOUT if timeout is None else timeout)
        self._client = client

    # --- provider hooks ----------------------------------------------------------------

    @abstractmethod
    def _url(self) -> str:
        """The endpoint to POST to."""

    @abstractmethod
    def _auth_headers(self) -> dict[str, str]:
        """Authentication and version headers."""

    @abstractmethod
    def _build_body(
        self, messages: Sequence[Message], options: CallOptions, *, stream: bool
    ) -> dict[str, Any]:
        """The JSON request body."""

    @abstractmethod
    def _parse_response(self, data: Any) -> Ai:
        """Parse a non-streaming response body."""

    @abstractmethod
    def _stream_parser(self) -> StreamParser:
        """A fresh parser for one streaming attempt."""

    # --- the Model's requests: one reply, or one stream -----------------------------------

    async def _request(self, messages: list[Message], options: CallOptions) -> Ai:
        body = self._merge_extra(self._build_body(messages, options, stream=False))
        check_network_allowed(self.name)
        attempts = retry_call(self.retry, lambda: self._post_once(body))
        return await within(self.limits.deadline_s, attempts, self._late)

    async def _stream_request(
        self, messages: list[Message], options: CallOptions
    ) -> AsyncGenerator[StreamEvent, None]:
        body = self._merge_extra(self._build_body(messages, options, stream=True))
        check_network_allowed(self.name)
        attempt, waited = 1, 0.0
        deadline = None
        if self.limits.deadline_s is not None:
            deadline = asyncio.get_running_loop().time() + self.limits.deadline_s
        while True:
            parser = self._stream_parser()
            yielded = False
            try:
                async with aclosing(self._bounded(body, parser, deadline)) as events:
                    async for event in events:
                        yielded = True
                        yield event
                yield StreamEnd(message=parser.result())
                return
            except ModelError as error:
                if yielded:
                    # The caller already consumed part of this reply; a retry would
                    # repeat it, so the failure is final.
                    if error.partial is None:
                        error.partial = _partial(parser)
                    raise
                delay = self.retry.next_delay(error, attempt, waited)
                if delay is None:
                    raise
                if deadline is not None and asyncio.get_running_loop().time() + delay > deadline:
                    raise self._late() from error
                await asyncio.sleep(delay)
                waited += delay
                attempt += 1

    async def _bounded(
        self, body: dict[str, Any], parser: StreamParser, deadline: float | None
    ) -> AsyncGenerator[StreamEvent, None]:
        """One attempt's events, within the call's deadline and the character cap."""
        cap = self.limits.max_stream_chars
        async with aclosing(self._stream_once(body, parser)) as events:
            chars = 0
            while (event := await self._next_before(events, deadline)) is not None:
                chars += streamed_chars(event)
                if chars > cap:
                    raise self._over(f"the stream passed {cap:,} characters (max_stream_chars)")
                yield event

    async def _next_before(
        self, events: AsyncGenerator[StreamEvent, None], deadline: float | None
    ) -> StreamEvent | None:
        """The stream's next event (None at its end), within the call's deadline."""
        try:
            if deadline is None:
                return await anext(events)
            async with asyncio.timeout_at(deadline):
                return await anext(events)
        except StopAsyncIteration:
            return None
        except TimeoutError:
            if deadline is not None and asyncio.get_running_loop().time() >= deadline:
                raise self._late() from None
            raise

    def _late(self) -> ModelError:
        assert self.limits.deadline_s is not None
        return deadline_error(self.name, self.provider, self.limits.deadline_s)

    def _over(self, what: str) -> ModelError:
        return too_large(self.name, self.provider, what)

    async def aclose(self) -> None:
        if self._owns_client:
            await self._client.aclose()

    # --- transport ---------------------------------------------------------------------

    def _merge_extra(self, body: dict[str, Any]) -> dict[str, Any]:
        return {**body, **self.extra_body}

    def _request_headers(self) -> dict[str, str]:
        return {
            "content-type": "application/json",
            "user-agent": "codeact",
            **self._auth_headers(),
            **self._headers,
        }

    def _timeout_kwargs(self) -> dict[str, Any]:
        return {} if self._timeout is None else {"timeout": self._timeout}

    async def _post_once(self, body: dict[str, Any]) -> Ai:
        cap = self.limits.max_response_bytes
        try:
            async with self._client.stream(
                "POST",
                self._url(),
                json=body,
                headers=self._request_headers(),
                **self._timeout_kwargs(),
            ) as response:
                raw = await read_body(response, cap, self._over)
        except httpx.TimeoutException as exc:
            raise self._transport_error(ModelErrorCode.TIMEOUT, exc) from exc
        except httpx.TransportError as exc:
            raise self._transport_error(ModelErrorCode.CONNECTION_ERROR, exc) from exc
        if response.status_code >= 400:
            raise self._http_error(response, raw)
        try:
            data = json.loads(raw)
        except ValueError as exc:
            text = raw[:200].decode("utf-8", "replace")
            raise self._malformed(f"response body is not JSON: {text!r}") from exc
        return self._parse_response(data)

    async def _stream_once(
        self, body: dict[str, Any], parser: StreamParser
    ) -> AsyncGenerator[StreamEvent, None]:
        started = False
        try:
            async with self._client.stream(
                "POST",
                self._url(),
                json=body,
                headers=self._request_headers(),
                **self._timeout_kwargs(),
            ) as response:
                cap = self.limits.max_response_bytes
                if response.status_code >= 400:
                    raise self._http_error(response, await read_body(response, cap, self._over))
                ctype = response.headers.get("content-type", "")
                if "json" in ctype and "event-stream" not in ctype:
                    # Some servers answer a stream request with a plain JSON error.
                    raw = await read_body(response, cap, self._over)
                    raise self._json_instead_of_stream(response, raw)
                async for sse in aiter_sse(body_lines(response, cap, self._over)):
                    started = True
                    for event in parser.feed(sse):
                        yield event
                    if parser.finished:
                        return
        except httpx.TimeoutException as exc:
            code = ModelErrorCode.STREAM_INTERRUPTED if started else ModelErrorCode.TIMEOUT
            raise self._transport_error(code, exc) from exc
        except httpx.TransportError as exc:
            code = ModelErrorCode.STREAM_INTERRUPTED if started else ModelErrorCode.CONNECTION_ERROR
            raise self._transport_error(code, exc) from exc
        raise ModelError(
            ModelErrorCode.STREAM_INTERRUPTED,
            f"{self.name}: stream ended before its end-of-stream event",
            provider=self.provider,
            partial=_partial(parser),
        )

    # --- errors ------------------------------------------------------------------------

    def _transport_error(self, code: ModelErrorCode, exc: Exception) -> ModelError:
        detail = str(exc) or type(exc).__name__
        return ModelError(code, f"{self.name}: {detail}", provider=self.provider)

    def _malformed(self, detail: str) -> ModelError:
        return ModelError(
            ModelErrorCode.MALFORMED_RESPONSE, f"{self.name}: {detail}", provider=self.provider
        )

    def _http_error(self, response: httpx.Response, raw: bytes) -> ModelError:
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        return classify_error(
            response.status_code, body, headers=response.headers, provider=self.provider
        )

    def _json_instead_of_stream(self, response: httpx.Response, raw: bytes) -> ModelError:
        try:
            body = json.loads(raw)
        except ValueError:
            return self._malformed("stream response is not an event stream")
        if isinstance(body, Mapping) and "error" in body:
            return classify_error(None, body, headers=response.headers, provider=self.provider)
        return self._malformed(f"expected an event stream, got JSON: {json.dumps(body)[:200]}")
