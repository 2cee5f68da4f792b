"""Images in and out, on the wire: a chart a script draws reaches the next request as an
image part (OpenAI ``image_url`` data URL, Anthropic ``image`` block), and a task's
images go out the same way; a model without vision gets a note instead."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from codeact import Agent
from codeact.messages import ImageDataPart, TextPart
from codeact.models import AnthropicModel, OpenAIChatModel, RetryPolicy
from sandbox import Sandbox

pytestmark = pytest.mark.timeout(120)

FENCE = "`" * 3
DRAW = (
    f"Let me look at it.\n{FENCE}python\nimport matplotlib.pyplot as plt\n"
    f"plt.plot([1, 2, 3], [2, 4, 3])\nplt.title('sales')\nplt.show()\n{FENCE}"
)
DONE = f"{FENCE}python\nfinal_result('rising, then a dip')\n{FENCE}"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def data_sandbox() -> Iterator[Sandbox]:
    with Sandbox("data", spares=1) as sb:
        yield sb


def _openai_reply(text: str) -> dict[str, Any]:
    return {
        "id": "c",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                     "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5},
    }  # fmt: skip


def _anthropic_reply(text: str) -> dict[str, Any]:
    return {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _model(kind: str, loopback: Any, vision: bool) -> Any:
    retry = RetryPolicy.disabled()
    if kind == "openai":
        return OpenAIChatModel(
            "gpt-test", provider="openai-compatible", base_url=f"{loopback.url}/v1",
            env={}, retry=retry, vision=vision,
        )  # fmt: skip
    return AnthropicModel(
        "claude-test", api_key="k", base_url=loopback.url, retry=retry, vision=vision
    )


def _images_in(kind: str, message: dict[str, Any]) -> list[bytes]:
    """The images of one request message, decoded."""
    content = message["content"]
    if isinstance(content, str):
        return []
    if kind == "openai":
        urls = [p["image_url"]["url"] for p in content if p["type"] == "image_url"]
        assert all(u.startswith("data:image/png;base64,") for u in urls), urls
        return [base64.b64decode(u.partition(",")[2]) for u in urls]
    blocks = [p["source"] for p in content if p["type"] == "image"]
    assert all(b["type"] == "base64" and b["media_type"] == "image/png" for b in blocks)
    return [base64.b64decode(b["data"]) for b in blocks]


def _text_of(message: dict[str, Any]) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content if p["type"] == "text")


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_chart_a_script_draws_reaches_the_next_request(
    kind: str, loopback: Any, json_action: Callable[..., Any], data_sandbox: Sandbox
) -> None:
    reply = _openai_reply if kind == "openai" else _anthropic_reply
    loopback.push(json_action(200, reply(DRAW)), json_action(200, reply(DONE)))
    agent = Agent("analyst", _model(kind, loopback, vision=True), policy="data")
    out = agent.run_sync("How do sales move?", sandbox=data_sandbox)
    assert out.value == "rising, then a dip"
    first, second = (r.body for r in loopback.requests)
    assert "plt.show()" in json.dumps(first)  # the system prompt says how to show a chart
    last = second["messages"][-1]
    assert last["role"] == "user"
    (image,) = _images_in(kind, last)
    assert image.startswith(PNG) and len(image) > 1000  # a real rendered chart
    assert "The script displayed 1 image" in _text_of(last)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_model_without_vision_gets_a_note(
    kind: str, loopback: Any, json_action: Callable[..., Any], data_sandbox: Sandbox
) -> None:
    reply = _openai_reply if kind == "openai" else _anthropic_reply
    loopback.push(json_action(200, reply(DRAW)), json_action(200, reply(DONE)))
    agent = Agent("analyst", _model(kind, loopback, vision=False), policy="data")
    agent.run_sync("How do sales move?", sandbox=data_sandbox)
    last = loopback.requests[1].body["messages"][-1]
    assert _images_in(kind, last) == []
    assert "which you cannot see" in _text_of(last)


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
def test_a_task_with_an_image_sends_it(
    kind: str, loopback: Any, json_action: Callable[..., Any]
) -> None:
    reply = _openai_reply if kind == "openai" else _anthropic_reply
    loopback.push(json_action(200, reply(f"{FENCE}python\nfinal_result('a cat')\n{FENCE}")))
    picture = base64.b64encode(PNG + b"cat").decode()
    task = [TextPart(text="What is this?"), ImageDataPart(media_type="image/png", data=picture)]
    out = Agent("eyes", _model(kind, loopback, vision=True)).run_sync(task)
    assert out.value == "a cat"
    first = loopback.requests[0].body["messages"][-1]
    assert _images_in(kind, first) == [PNG + b"cat"]
    assert _text_of(first) == "What is this?"
