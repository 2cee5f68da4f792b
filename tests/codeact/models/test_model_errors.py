"""Classification of provider errors into stable codes; retry-after parsing."""

from __future__ import annotations

import email.utils
import json
import pickle
from typing import Any

import pytest

from codeact.models import (
    MissingApiKeyError,
    ModelError,
    ModelErrorCode,
    ModelErrorData,
    NetworkBlockedError,
    ScriptExhaustedError,
    classify_error,
)
from codeact.models.errors import parse_retry_after

OPENAI_CONTEXT = {
    "error": {
        "message": "This model's maximum context length is 128000 tokens. However, your "
        "messages resulted in 130000 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "param": "messages",
        "code": "context_length_exceeded",
    }
}
VLLM_CONTEXT = {
    "object": "error",
    "message": "This model's maximum context length is 4096 tokens. However, you requested "
    "5000 tokens (4000 in the messages, 1000 in the completion).",
    "type": "BadRequestError",
    "param": None,
    "code": 400,
}
DEEPSEEK_CONTEXT = {
    "error": {
        "message": "This model's maximum context length is 65536 tokens. However, you "
        "requested 70000 tokens (70000 in the messages, 0 in the completion).",
        "type": "invalid_request_error",
        "param": None,
        "code": "invalid_request_error",
    }
}
ANTHROPIC_CONTEXT = {
    "type": "error",
    "error": {
        "type": "invalid_request_error",
        "message": "prompt is too long: 208000 tokens > 200000 maximum",
    },
}
LLAMACPP_CONTEXT = {
    "error": {
        "code": 400,
        "message": "the request exceeds the available context size, try increasing it",
        "type": "exceed_context_size_error",
        "n_prompt_tokens": 5000,
        "n_ctx": 4096,
    }
}


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (
            429,
            {"error": {"message": "Rate limit reached for gpt-4o", "type": "tokens"}},
            "rate_limited",
        ),
        (
            429,
            {
                "error": {
                    "message": "You exceeded your current quota, please check your plan and "
                    "billing details.",
                    "type": "insufficient_quota",
                    "code": "insufficient_quota",
                }
            },
            "quota_exhausted",
        ),
        (402, {"error": {"message": "Insufficient credits"}}, "quota_exhausted"),
        (
            400,
            {
                "type": "error",
                "error": {"type": "billing_error", "message": "credit balance is too low"},
            },
            "quota_exhausted",
        ),
        (400, OPENAI_CONTEXT, "context_length_exceeded"),
        (400, VLLM_CONTEXT, "context_length_exceeded"),
        (400, DEEPSEEK_CONTEXT, "context_length_exceeded"),
        (400, ANTHROPIC_CONTEXT, "context_length_exceeded"),
        (400, LLAMACPP_CONTEXT, "context_length_exceeded"),
        (
            413,
            {"error": {"message": "input is too long for requested model"}},
            "context_length_exceeded",
        ),
        (
            529,
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            "overloaded",
        ),
        (503, "Service Unavailable", "overloaded"),
        (
            500,
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            "overloaded",
        ),
        (
            500,
            {"error": {"message": "The server had an error", "type": "server_error"}},
            "server_error",
        ),
        (502, "<html>Bad gateway</html>", "server_error"),
        (504, "", "timeout"),
        (408, {}, "timeout"),
        (
            401,
            {
                "error": {
                    "message": "Incorrect API key",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
            },
            "auth",
        ),
        (403, {"type": "error", "error": {"type": "permission_error", "message": "no"}}, "auth"),
        (
            400,
            {"error": {"message": "Your request was rejected", "code": "content_policy_violation"}},
            "content_filter",
        ),
        (404, {"error": "model 'llama9' not found, try pulling it first"}, "bad_request"),
        (422, {"detail": [{"loc": ["body", "messages"], "msg": "field required"}]}, "bad_request"),
        (
            400,
            {"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}},
            "bad_request",
        ),
        (
            None,
            {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
            "overloaded",
        ),
        (None, {"error": {"message": "boom", "type": "server_error"}}, "server_error"),
        (None, {"error": {"message": "Rate limit", "type": "rate_limit_error"}}, "rate_limited"),
        (None, {"error": {"message": "who knows"}}, "server_error"),
        (
            None,
            {"error": {"message": "maximum context length is 8192 tokens"}},
            "context_length_exceeded",
        ),
    ],
)
def test_classification(status: int | None, body: Any, code: str) -> None:
    error = classify_error(status, body, provider="p")
    assert error.code == code
    assert error.status == status
    assert error.provider == "p"


def test_provider_message_and_code_are_kept() -> None:
    error = classify_error(400, OPENAI_CONTEXT, provider="openai")
    assert error.provider_message is not None
    assert error.provider_message.startswith("This model's maximum context length")
    assert error.provider_code == "context_length_exceeded"
    assert "maximum context length" in str(error)
    assert "[context_length_exceeded]" in str(error) and "HTTP 400" in str(error)
    assert classify_error(404, {"error": "model not found"}).provider_message == "model not found"


def test_retry_headers_are_read() -> None:
    error = classify_error(429, {}, headers={"Retry-After": "7", "x-should-retry": "true"})
    assert error.retry_after == 7.0
    assert error.should_retry is True and error.retryable
    error = classify_error(500, {}, headers={"retry-after-ms": "250", "X-Should-Retry": "false"})
    assert error.retry_after == 0.25
    assert error.should_retry is False and not error.retryable


def test_quota_is_never_retryable_even_if_the_server_says_so() -> None:
    body = {"error": {"message": "quota", "type": "insufficient_quota"}}
    error = classify_error(429, body, headers={"x-should-retry": "true"})
    assert error.code is ModelErrorCode.QUOTA_EXHAUSTED
    assert not error.retryable


@pytest.mark.parametrize(
    ("code", "retryable"),
    [
        ("rate_limited", True),
        ("overloaded", True),
        ("server_error", True),
        ("timeout", True),
        ("stream_interrupted", True),
        ("connection_error", True),
        ("quota_exhausted", False),
        ("context_length_exceeded", False),
        ("auth", False),
        ("bad_request", False),
        ("content_filter", False),
        ("malformed_response", False),
    ],
)
def test_default_retryability(code: str, retryable: bool) -> None:
    assert ModelError(code, "x").retryable is retryable


def test_unknown_code_is_rejected() -> None:
    with pytest.raises(ValueError):
        ModelError("mystery", "x")


def test_error_data_round_trips_as_json() -> None:
    error = classify_error(429, {"error": {"message": "slow down"}}, headers={"retry-after": "2"})
    data = error.data()
    again = ModelErrorData.model_validate_json(data.model_dump_json())
    assert again == data
    assert json.loads(data.model_dump_json())["code"] == "rate_limited"


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "1500"}, 1.5),
        ({"retry-after-ms": "20", "retry-after": "9"}, 0.02),
        ({"retry-after-ms": "junk", "retry-after": "3"}, 3.0),
        ({"retry-after": "0"}, 0.0),
        ({"retry-after": "2.5"}, 2.5),
        ({"retry-after": "-4"}, None),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(headers) == expected


def test_parse_retry_after_http_date() -> None:
    now = 1_700_000_000.0
    future = email.utils.formatdate(now + 30, usegmt=True)
    past = email.utils.formatdate(now - 30, usegmt=True)
    assert parse_retry_after({"Retry-After": future}, now=now) == pytest.approx(30, abs=1)
    assert parse_retry_after({"Retry-After": past}, now=now) == 0.0


def test_errors_survive_pickling() -> None:
    errors: list[ModelError] = [
        classify_error(429, {"error": {"message": "slow"}}, headers={"retry-after": "3"}),
        NetworkBlockedError("openai:gpt-4o-mini"),
        ScriptExhaustedError("scripted", 2),
        MissingApiKeyError("openai", "OPENAI_API_KEY"),
    ]
    for error in errors:
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error)
        assert again.data() == error.data()
        assert str(again) == str(error)
