"""ScriptedModel and FunctionModel: the doubles users test their agents with."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from codeact.messages import Ai, Message, ToolCall
from codeact.models import (
    CallInfo,
    FunctionModel,
    Model,
    ModelError,
    ScriptedModel,
    ScriptedReply,
    ScriptExhaustedError,
    ScriptFileError,
    StreamEnd,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    block_network_models,
    final_message,
)
from codeact.usage import LlmUsage


async def drain(model: Model, messages: list[Message], **kw: Any) -> list[Any]:
    return [e async for e in model.stream(messages, **kw)]


def test_scripted_replies_in_order_and_records_prompts() -> None:
    model = ScriptedModel(
        [
            "first",
            Message.ai_with_usage("second", LlmUsage(input_tokens=5, output_tokens=1)),
            ScriptedReply(content="third", thinking="hmm"),
        ]
    )
    assert isinstance(model, Model) and model.name == "scripted" and model.remaining == 3

    async def go() -> list[Ai]:
        replies = []
        for i in range(3):
            replies.append(await model.complete([Message.human(f"q{i}")], max_tokens=10 + i))
        return replies

    first, second, third = asyncio.run(go())
    assert [first.text(), second.text(), third.text()] == ["first", "second", "third"]
    assert first.finish_reason == "stop" and first.usage() is None
    assert second.usage() == LlmUsage(input_tokens=5, output_tokens=1)
    assert third.thinking() == "hmm"
    assert [m[0].text() for m in model.calls] == ["q0", "q1", "q2"]
    assert [i.max_tokens for i in model.call_infos] == [10, 11, 12]
    assert model.last_messages[0].text() == "q2"
    assert model.remaining == 0


def test_running_out_is_a_clear_model_error() -> None:
    model = ScriptedModel(["only", "two"])
    asyncio.run(model.complete([]))
    asyncio.run(model.complete([]))
    with pytest.raises(ScriptExhaustedError, match="2 replies were scripted") as info:
        asyncio.run(model.complete([Message.human("third")]))
    assert isinstance(info.value, ModelError) and info.value.scripted == 2
    assert not info.value.retryable
    with pytest.raises(ScriptExhaustedError, match="0 replies were scripted"):
        asyncio.run(ScriptedModel([]).complete([]))
    with pytest.raises(ScriptExhaustedError, match="1 reply was scripted"):
        single = ScriptedModel(["x"])
        asyncio.run(single.complete([]))
        asyncio.run(final_message(single.stream([])))


def test_stream_yields_chunks_and_ends_with_the_reply() -> None:
    reply = Message.ai_with_thinking("The answer is forty-two.", "Compute carefully.")
    model = ScriptedModel([reply])
    events = asyncio.run(drain(model, [Message.human("q")]))
    thinking = [e.text for e in events if isinstance(e, ThinkingDelta)]
    text = [e.text for e in events if isinstance(e, TextDelta)]
    assert "".join(thinking) == "Compute carefully." and len(thinking) > 1
    assert "".join(text) == "The answer is forty-two." and len(text) > 1
    assert isinstance(events[-1], StreamEnd) and events[-1].message.text() == reply.text()
    assert len(model.calls) == 1


def test_stream_of_tool_calls() -> None:
    call = ToolCall(id="c", name="f", arguments={"x": 1})
    model = ScriptedModel([Message.ai_with_tool_calls("", [call])])
    events = asyncio.run(drain(model, []))
    assert events[0] == ToolCallDelta(index=0, id="c", name="f", arguments='{"x": 1}')
    assert isinstance(events[-1], StreamEnd) and events[-1].message.finish_reason == "tool_call"


def test_replies_are_cut_at_stop_sequences_like_a_server_would() -> None:
    model = ScriptedModel(["Thought.\n<execute>print(1)</execute>\nObservation: 1", "a STOP b"])
    ai = asyncio.run(model.complete([], stop=["</execute>", "Observation:"]))
    assert ai.text() == "Thought.\n<execute>print(1)"
    assert ai.finish_reason == "stop"
    events = asyncio.run(drain(model, [], stop="STOP"))
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) == "a "
    verbatim = ScriptedModel(["a STOP b"], apply_stop=False)
    assert asyncio.run(verbatim.complete([], stop="STOP")).text() == "a STOP b"


def test_bad_script_items() -> None:
    with pytest.raises(TypeError, match="response 1 must be"):
        ScriptedModel(["ok", 42])  # type: ignore[list-item]


def test_from_file(tmp_path: Path) -> None:
    path = tmp_path / "script.json"
    path.write_text(
        json.dumps(
            [
                "plain",
                {
                    "content": "rich",
                    "thinking": "because",
                    "usage": {"input_tokens": 7, "output_tokens": 3},
                },
                {"content": "", "tool_calls": [{"id": "c1", "name": "f", "arguments": {"a": 1}}]},
            ]
        )
    )
    model = ScriptedModel.from_file(path)
    assert model.name == f"scripted:{path}"
    replies = [asyncio.run(model.complete([])) for _ in range(3)]
    assert replies[0].text() == "plain"
    assert replies[1].thinking() == "because"
    assert replies[1].usage() == LlmUsage(input_tokens=7, output_tokens=3)
    assert replies[2].tool_calls()[0].arguments == {"a": 1}


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        ('{"content": "x"}', "must contain a JSON list"),
        ('["ok", 3]', "item 1: expected a string or an object"),
        ('["ok", {"thinking": "t"}]', "item 1: field 'content': Field required"),
        (
            '[{"content": "x", "usage": {"input_tokens": "lots"}}]',
            "item 0: field 'usage.input_tokens'",
        ),
        (
            '["a", "b", {"content": "x", "tinking": "typo"}]',
            "item 2: field 'tinking': Extra inputs",
        ),
    ],
)
def test_bad_files_name_the_item_and_field(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    with pytest.raises(ScriptFileError, match=message) as info:
        ScriptedModel.from_file(path)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ScriptFileError, match="cannot be read"):
        ScriptedModel.from_file(tmp_path / "nope.json")


def test_function_model_sync_and_async() -> None:
    infos: list[CallInfo] = []

    def reply(messages: list[Message], info: CallInfo) -> str:
        infos.append(info)
        return f"{len(messages)} messages, call {info.call_index}"

    async def areply(messages: list[Message], info: CallInfo) -> Ai:
        await asyncio.sleep(0)
        return Message.ai_with_usage(messages[-1].text().upper(), LlmUsage(output_tokens=1))

    model = FunctionModel(reply)
    tools = [{"name": "calc", "description": "math"}]
    assert asyncio.run(model.complete([Message.human("a")])).text() == "1 messages, call 0"
    second = asyncio.run(
        model.complete(
            [Message.human("a"), Message.ai("b")],
            stop="X",
            max_tokens=5,
            temperature=0.1,
            tools=tools,
        )
    )
    assert second.text() == "2 messages, call 1"
    assert infos[1].stop == ["X"] and infos[1].max_tokens == 5 and infos[1].temperature == 0.1
    assert infos[1].tools is not None and infos[1].tools[0].name == "calc"
    assert model.calls[1][1].text() == "b"

    amodel = FunctionModel(areply, name="shout")
    events = asyncio.run(drain(amodel, [Message.human("hey")]))
    final = events[-1]
    assert isinstance(final, StreamEnd) and final.message.text() == "HEY"
    assert final.message.usage() == LlmUsage(output_tokens=1)
    assert amodel.name == "shout"


def test_function_model_errors() -> None:
    def fails(messages: list[Message], info: CallInfo) -> str:
        raise ModelError("rate_limited", "simulated")

    with pytest.raises(ModelError, match="simulated"):
        asyncio.run(FunctionModel(fails).complete([]))

    with pytest.raises(TypeError, match="must return str or Ai, not int"):
        asyncio.run(FunctionModel(lambda m, i: 3).complete([]))  # type: ignore[arg-type,return-value]


def test_doubles_work_while_network_models_are_blocked() -> None:
    with block_network_models():
        assert asyncio.run(ScriptedModel(["fine"]).complete([])).text() == "fine"
        assert asyncio.run(FunctionModel(lambda m, i: "ok").complete([])).text() == "ok"


def test_last_messages_before_any_call() -> None:
    with pytest.raises(AssertionError, match="has not been called"):
        _ = ScriptedModel([]).last_messages


def test_dangling_remove_markers_are_rejected_like_real_clients_do() -> None:
    model = ScriptedModel(["unused"])
    with pytest.raises(ValueError, match="no earlier message"):
        asyncio.run(model.complete([Message.remove("ghost")]))
    assert model.calls == [] and model.remaining == 1
    kept = Message.human("a")
    asyncio.run(model.complete([kept, Message.remove(kept.id())]))
    assert len(model.calls[0]) == 2  # recorded as sent, markers included
