"""The message model: constructors, accessors, JSON round trips, history resolution."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel, ValidationError

import codeact
from codeact.messages import (
    Ai,
    Human,
    ImageDataPart,
    ImageUrlPart,
    Message,
    Remove,
    System,
    TextPart,
    ThinkingBlock,
    ToolCall,
    ToolResult,
    messages_from_json,
    messages_to_json,
    resolve_history,
)
from codeact.usage import LlmUsage


def full_history() -> list[Message]:
    return [
        Message.system("You are terse."),
        Message.human(
            [
                TextPart(text="What is in "),
                TextPart(text="this picture?"),
                ImageUrlPart(url="https://example.com/cat.png", detail="low"),
                ImageDataPart(media_type="image/png", data="iVBORw0KGgo="),
            ]
        ),
        Message.ai_with_thinking("A cat.", "Looks feline.", signature="sig-1"),
        Message.ai_with_tool_calls(
            "",
            [
                ToolCall(id="c1", name="search", arguments={"q": "cats", "n": 3}),
                ToolCall(id="c2", name="broken", raw_arguments="{not json"),
            ],
        ),
        Message.tool_result("c1", "found 3", name="search"),
        Message.tool_error("c2", "bad arguments"),
        Message.ai_with_usage(
            "done",
            LlmUsage(input_tokens=10, output_tokens=2, cache_read_tokens=4, details={"x.y": 1}),
        ),
        Message.remove("nothing-yet"),
    ]


def test_constructors_build_the_right_roles() -> None:
    history = full_history()
    assert [type(m) for m in history] == [System, Human, Ai, Ai, ToolResult, ToolResult, Ai, Remove]
    assert [m.model_dump()["role"] for m in history] == [
        "system",
        "human",
        "ai",
        "ai",
        "tool",
        "tool",
        "ai",
        "remove",
    ]


def test_ids_are_fresh_uuid4_hex_unless_given() -> None:
    a, b = Message.human("x"), Message.human("x")
    assert re.fullmatch(r"[0-9a-f]{32}", a.id())
    assert a.id() != b.id()
    assert Message.human("x", id="m1").id() == "m1"
    assert Human(content="hi", id="m2").id() == "m2"
    assert Ai(content="").id() != Ai(content="").id()


def test_accessors() -> None:
    history = full_history()
    system, human, thought, calls, ok, err, with_usage, remove = history
    assert system.text() == "You are terse."
    assert human.text() == "What is in this picture?"
    assert thought.text() == "A cat." and thought.thinking() == "Looks feline."
    assert isinstance(thought, Ai) and thought.thinking_blocks[0].signature == "sig-1"
    assert calls.has_tool_calls() and not thought.has_tool_calls()
    assert [c.name for c in calls.tool_calls()] == ["search", "broken"]
    assert calls.tool_calls()[0].arguments == {"q": "cats", "n": 3}
    assert isinstance(ok, ToolResult) and ok.status == "success" and ok.tool_call_id == "c1"
    assert isinstance(err, ToolResult) and err.status == "error" and err.text() == "bad arguments"
    usage = with_usage.usage()
    assert usage is not None and usage.total_tokens == 12
    assert remove.text() == "" and remove.id() == "nothing-yet"
    for m in (system, human, ok, remove):
        assert m.usage() is None and m.thinking() is None and m.tool_calls() == []


def test_json_round_trip_is_lossless() -> None:
    history = full_history()
    text = messages_to_json(history)
    assert isinstance(json.loads(text), list)
    again = messages_from_json(text)
    assert again == history
    assert [type(m) for m in again] == [type(m) for m in history]
    for original in history:
        assert Message.model_validate_json(original.model_dump_json()) == original


def test_json_shape_uses_public_field_names() -> None:
    ai = Message.ai_with_usage("hi", LlmUsage(input_tokens=1), id="a1")
    data = json.loads(ai.model_dump_json())
    assert data["role"] == "ai"
    assert data["id"] == "a1"
    assert data["content"] == "hi"
    assert data["tool_calls"] == []
    assert data["usage"]["input_tokens"] == 1
    assert data["thinking"] is None
    assert not any(key.endswith("_") for key in data)


def test_message_fields_in_other_models_discriminate() -> None:
    class Run(BaseModel):
        history: list[Message]

    run = Run(history=full_history())
    loaded = Run.model_validate_json(run.model_dump_json())
    assert loaded == run
    assert isinstance(
        Run.model_validate({"history": [{"role": "ai", "content": "x"}]}).history[0], Ai
    )


@pytest.mark.parametrize(
    "data",
    [
        {"role": "robot", "content": "x"},
        {"content": "no role"},
        {"role": "human"},
        {"role": "human", "content": "x", "surprise": 1},
        {"role": "tool", "content": "x", "tool_call_id": "c", "status": "meh"},
        {"role": "tool", "content": "x"},
        {"role": "remove"},
        {"role": "human", "content": [{"type": "video", "url": "x"}]},
        {
            "role": "human",
            "content": [{"type": "image_base64", "media_type": "text/x", "data": "a"}],
        },
    ],
)
def test_invalid_messages_are_rejected(data: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        Message.model_validate(data)


def test_messages_are_immutable() -> None:
    msg = Message.human("x")
    with pytest.raises(ValidationError):
        msg.content = "y"  # type: ignore[misc]


def test_resolve_history_applies_remove_markers() -> None:
    a, b, c = Message.human("a"), Message.ai("b"), Message.human("c")
    assert resolve_history([a, b, Message.remove(b.id()), c]) == [a, c]
    with pytest.raises(ValueError, match="no earlier message"):
        resolve_history([a, Message.remove(c.id()), c])


def test_thinking_text_defaults_from_blocks() -> None:
    ai = Ai(content="x", thinking_blocks=[ThinkingBlock(text="a"), ThinkingBlock(text="b")])
    assert ai.thinking() == "ab"
    assert Ai(content="x", thinking_blocks=[ThinkingBlock(redacted_data="zz")]).thinking() is None


@pytest.mark.parametrize(
    ("text", "arguments", "raw"),
    [
        ('{"a": [1, 2]}', {"a": [1, 2]}, None),
        ("", {}, None),
        ("   ", {}, None),
        ('{"a": ', {}, '{"a": '),
        ("[1, 2]", {}, "[1, 2]"),
    ],
)
def test_tool_call_from_json_arguments(text: str, arguments: object, raw: str | None) -> None:
    call = ToolCall.from_json_arguments("id", "f", text)
    assert call.arguments == arguments
    assert call.raw_arguments == raw
    if raw is not None:
        assert call.arguments_json() == raw
    else:
        assert json.loads(call.arguments_json()) == arguments


def test_top_level_package_exports() -> None:
    assert codeact.Message is Message
    assert codeact.LlmUsage is LlmUsage
    assert {"Message", "LlmUsage"} <= set(codeact.__all__)


@given(
    contents=st.lists(st.text(), min_size=1, max_size=6),
    thinking=st.none() | st.text(min_size=1),
)
def test_round_trip_property(contents: list[str], thinking: str | None) -> None:
    history: list[Message] = []
    for i, text in enumerate(contents):
        if i % 2:
            history.append(
                Message.ai_with_thinking(text, thinking) if thinking else Message.ai(text)
            )
        else:
            history.append(Message.human(text))
    assert messages_from_json(messages_to_json(history)) == history
