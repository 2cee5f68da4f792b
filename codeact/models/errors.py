"""Model failures with stable codes, and the classification of provider errors.

Every failure of a model call surfaces as `ModelError`; callers branch on ``.code``
(a `ModelErrorCode`), never on provider-specific text.
"""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Mapping
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from codeact.messages import Ai

__all__ = [
    "RETRYABLE_CODES",
    "MissingApiKeyError",
    "ModelError",
    "ModelErrorCode",
    "ModelErrorData",
    "classify_error",
    "parse_retry_after",
]


class ModelErrorCode(StrEnum):
    """Stable failure codes."""

    RATE_LIMITED = "rate_limited"
    QUOTA_EXHAUSTED = "quota_exhausted"
    OVERLOADED = "overloaded"
    SERVER_ERROR = "server_error"
    TIMEOUT = "timeout"
    CONTEXT_LENGTH_EXCEEDED = "context_length_exceeded"
    AUTH = "auth"
    BAD_REQUEST = "bad_request"
    CONTENT_FILTER = "content_filter"
    STREAM_INTERRUPTED = "stream_interrupted"
    MALFORMED_RESPONSE = "malformed_response"
    CONNECTION_ERROR = "connection_error"


RETRYABLE_CODES: frozenset[ModelErrorCode] = frozenset(
    {
        ModelErrorCode.RATE_LIMITED,
        ModelErrorCode.OVERLOADED,
        ModelErrorCode.SERVER_ERROR,
        ModelErrorCode.TIMEOUT,
        ModelErrorCode.STREAM_INTERRUPTED,
        ModelErrorCode.CONNECTION_ERROR,
    }
)
"""Codes worth retrying by default: transient conditions on the provider or the wire."""


class ModelErrorData(BaseModel):
    """The serialisable part of a `ModelError` (for logs and run records)."""

    model_config = ConfigDict(frozen=True)

    code: ModelErrorCode
    message: str
    status: int | None = None
    provider: str | None = None
    provider_message: str | None = None
    provider_code: str | None = None
    retry_after: float | None = None
    should_retry: bool | None = None


class ModelError(Exception):
    """A failed model call.

    ``status`` is the HTTP status (None for failures without one), ``provider_message``
    the provider's own error text, ``retry_after`` the wait the server asked for (in
    seconds), ``should_retry`` the server's explicit ``x-should-retry`` verdict, and
    ``partial`` whatever reply was received before the failure, if any.
    """

    def __init__(
        self,
        code: ModelErrorCode | str,
        message: str,
        *,
        status: int | None = None,
        provider: str | None = None,
        provider_message: str | None = None,
        provider_code: str | None = None,
        retry_after: float | None = None,
        should_retry: bool | None = None,
        partial: Ai | None = None,
    ) -> None:
        self.code = ModelErrorCode(code)
        self.message = message
        self.status = status
        self.provider = provider
        self.provider_message = provider_message
        self.provider_code = provider_code
        self.retry_after = retry_after
        self.should_retry = should_retry
        self.partial = partial
        super().__init__(message)

    def __str__(self) -> str:
        where = f" (HTTP {self.status})" if self.status is not None else ""
        return f"[{self.code.value}]{where} {self.message}"

    def __repr__(self) -> str:
        return (
            f"ModelError(code={self.code.value!r}, status={self.status!r}, "
            f"message={self.message!r})"
        )

    def __reduce__(self) -> tuple[Any, ...]:
        # Subclasses have their own __init__ signatures; rebuild from state instead
        # so errors survive pickling (e.g. across worker processes).
        return (_restore_error, (type(self), dict(self.__dict__)))

    @property
    def retryable(self) -> bool:
        """Whether retrying may help, by default policy (a server's verdict wins)."""
        if self.should_retry is not None:
            return self.should_retry
        return self.code in RETRYABLE_CODES

    def data(self) -> ModelErrorData:
        """The error as a pydantic model."""
        return ModelErrorData(
            code=self.code,
            message=self.message,
            status=self.status,
            provider=self.provider,
            provider_message=self.provider_message,
            provider_code=self.provider_code,
            retry_after=self.retry_after,
            should_retry=self.should_retry,
        )


def _restore_error(cls: type[ModelError], state: dict[str, Any]) -> ModelError:
    error = cls.__new__(cls)
    Exception.__init__(error, state.get("message", ""))
    error.__dict__.update(state)
    return error


class MissingApiKeyError(ModelError):
    """No API key was given or found in the environment (raised when a model is built)."""

    def __init__(self, provider: str, env_var: str) -> None:
        super().__init__(
            ModelErrorCode.AUTH,
            f"{provider}: no API key; pass api_key=... or set the {env_var} environment variable",
            provider=provider,
            should_retry=False,
        )


# --- classification -------------------------------------------------------------------

# Phrases servers use for prompts that do not fit the context window: OpenAI/vLLM/
# DeepSeek ("maximum context length"), Anthropic ("prompt is too long"), llama.cpp
# ("exceeds the available context size"), Ollama and others.
_CONTEXT_PATTERNS = re.compile(
    r"maximum context length|context[ _]length[ _]exceeded|prompt is too long"
    r"|context[ _]window|exceeds? (?:the )?(?:available |model'?s? )?(?:maximum )?context"
    r"|context size|input is too long|too many input tokens|exceed_context_size",
    re.IGNORECASE,
)
_QUOTA_PATTERNS = re.compile(
    r"insufficient[ _]quota|exceeded your current quota|billing|credit balance"
    r"|out of credits|insufficient (?:credits|balance|funds)|payment required",
    re.IGNORECASE,
)
_CONTENT_FILTER_CODES = frozenset(
    {
        "content_filter",
        "content_policy_violation",
        "content_filtered",
        "responsibleaipolicyviolation",
    }
)
_CONTEXT_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error"})
_QUOTA_CODES = frozenset({"insufficient_quota", "billing_error", "billing_hard_limit_reached"})

# Error "type" values with an unambiguous meaning (Anthropic types, OpenAI types/codes).
_TYPE_CODES: Mapping[str, ModelErrorCode] = {
    "overloaded_error": ModelErrorCode.OVERLOADED,
    "rate_limit_error": ModelErrorCode.RATE_LIMITED,
    "rate_limit_exceeded": ModelErrorCode.RATE_LIMITED,
    "authentication_error": ModelErrorCode.AUTH,
    "permission_error": ModelErrorCode.AUTH,
    "invalid_api_key": ModelErrorCode.AUTH,
    "api_error": ModelErrorCode.SERVER_ERROR,
    "server_error": ModelErrorCode.SERVER_ERROR,
    "timeout_error": ModelErrorCode.TIMEOUT,
    "invalid_request_error": ModelErrorCode.BAD_REQUEST,
    "not_found_error": ModelErrorCode.BAD_REQUEST,
    "request_too_large": ModelErrorCode.BAD_REQUEST,
}


# Statuses that mean the same thing whatever the body says (a 401 may carry the type
# "invalid_request_error", but it is still an auth failure).
_DECISIVE_STATUSES = frozenset({401, 402, 403, 408, 429, 503, 504, 529})


def _status_code(status: int) -> ModelErrorCode:
    if status in (401, 403):
        return ModelErrorCode.AUTH
    if status == 402:
        return ModelErrorCode.QUOTA_EXHAUSTED
    if status == 429:
        return ModelErrorCode.RATE_LIMITED
    if status in (408, 504):
        return ModelErrorCode.TIMEOUT
    if status in (503, 529):
        return ModelErrorCode.OVERLOADED
    if status >= 500:
        return ModelErrorCode.SERVER_ERROR
    return ModelErrorCode.BAD_REQUEST


def _error_fields(body: Any) -> tuple[str | None, str | None, str | None]:
    """(message, type, code) from the error bodies of OpenAI, Anthropic, vLLM, Ollama…"""
    if isinstance(body, str):
        return (body.strip() or None), None, None
    if not isinstance(body, Mapping):
        return None, None, None
    err: Any = body.get("error", body)
    if isinstance(err, str):
        return err, None, None
    if not isinstance(err, Mapping):
        return None, None, None
    message = err.get("message") or err.get("detail") or body.get("message")
    etype = err.get("type")
    code = err.get("code")
    # vLLM puts the HTTP status in "code"; only string codes are meaningful here.
    return (
        str(message) if message is not None else None,
        str(etype) if isinstance(etype, str) else None,
        code if isinstance(code, str) else None,
    )


def classify_error(
    status: int | None,
    body: Any,
    *,
    headers: Mapping[str, str] | None = None,
    provider: str | None = None,
) -> ModelError:
    """Turn an HTTP error response or an in-stream error event into a `ModelError`.

    `body` is the decoded JSON body (or its text). `status` is None for errors that
    arrive inside a stream.
    """
    message, etype, pcode = _error_fields(body)
    keys = {k.lower() for k in (etype, pcode) if k}
    text = message or ""

    code: ModelErrorCode
    if keys & _QUOTA_CODES or (status in (402, 429, None) and _QUOTA_PATTERNS.search(text)):
        code = ModelErrorCode.QUOTA_EXHAUSTED
    elif keys & _CONTEXT_CODES or (
        status not in (401, 403, 429) and _CONTEXT_PATTERNS.search(text)
    ):
        code = ModelErrorCode.CONTEXT_LENGTH_EXCEEDED
    elif keys & _CONTENT_FILTER_CODES:
        code = ModelErrorCode.CONTENT_FILTER
    elif status in _DECISIVE_STATUSES:
        code = _status_code(status)
    elif typed := [
        _TYPE_CODES[k.lower()] for k in (pcode, etype) if k and k.lower() in _TYPE_CODES
    ]:
        code = typed[0]
    elif status is not None:
        code = _status_code(status)
    else:
        # An unexplained in-stream error: treat as a provider-side failure.
        code = ModelErrorCode.SERVER_ERROR

    hdrs = {k.lower(): v for k, v in (headers or {}).items()}
    should_retry: bool | None = None
    flag = hdrs.get("x-should-retry", "").strip().lower()
    if flag in ("true", "false"):
        should_retry = flag == "true"
    # Quota exhaustion never heals by waiting, whatever the headers say.
    if code is ModelErrorCode.QUOTA_EXHAUSTED:
        should_retry = False

    who = provider or "model provider"
    summary = text or (f"HTTP {status}" if status is not None else "error event")
    return ModelError(
        code,
        f"{who}: {summary}",
        status=status,
        provider=provider,
        provider_message=message,
        provider_code=pcode or etype,
        retry_after=parse_retry_after(hdrs),
        should_retry=should_retry,
    )


def parse_retry_after(headers: Mapping[str, str], *, now: float | None = None) -> float | None:
    """Seconds to wait per ``retry-after-ms`` or ``retry-after`` (seconds or HTTP date)."""
    hdrs = {k.lower(): v for k, v in headers.items()}
    ms = hdrs.get("retry-after-ms")
    if ms is not None:
        try:
            value = float(ms) / 1000.0
        except ValueError:
            value = -1.0
        if value >= 0:
            return value
    raw = hdrs.get("retry-after")
    if raw is None:
        return None
    raw = raw.strip()
    try:
        seconds = float(raw)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        if when is None:
            return None
        seconds = when.timestamp() - (time.time() if now is None else now)
        return max(0.0, seconds)
    return seconds if seconds >= 0 else None
