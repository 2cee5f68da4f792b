"""Token streaming: ``agent.stream()`` passes the model's pieces on as ModelDelta events."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator

import pytest

from codeact import Agent, AgentEvent, ModelDelta, ModelReplied, ScriptExecuted
from codeact.messages import Ai, Message
from codeact.models import CallOptions, Model, ScriptedModel, ScriptedReply
from codeact.models.base import StreamEnd, StreamEvent, TextDelta
from tests.codeact.loop_helpers import arun, py

pytestmark = pytest.mark.timeout(60)


async def _events(agent: Agent, task: str = "t") -> list[AgentEvent]:
    return [event async for event in agent.stream(task)]


def test_deltas_come_before_their_reply_and_spell_it_in_order() -> None:
    first = ScriptedReply(content=py("x = 6 * 7", "Computing."), thinking="Multiply.")
    model = ScriptedModel([first, py("final_result(x)")], chunk_chars=4)
    events = arun(_events(Agent("calc", model)))
    for step in (1, 2):
        deltas = [e for e in events if isinstance(e, ModelDelta) and e.step == step]
        replied = next(e for e in events if isinstance(e, ModelReplied) and e.step == step)
        assert deltas and all(d.agent == "calc" for d in deltas)
        # Every piece of the step arrives before its ModelReplied, and none after it.
        assert max(events.index(d) for d in deltas) < events.index(replied)
        text = "".join(d.text for d in deltas if d.kind == "text")
        assert text == replied.content
        assert all(len(d.text) <= 4 for d in deltas)
    thinking = [e.text for e in events if isinstance(e, ModelDelta) and e.kind == "thinking"]
    assert "".join(thinking) == "Multiply."
    step1 = next(e for e in events if isinstance(e, ModelReplied))
    assert step1.code == "x = 6 * 7"
    for event in events:  # each is one JSON object: one SSE data line
        assert isinstance(json.loads(event.model_dump_json()), dict)


class _Gated(Model):
    """Streams "Hel", then waits until the consumer has seen it before the rest."""

    name = "gated"

    def __init__(self, seen: asyncio.Event) -> None:
        self.seen = seen

    async def _stream_request(
        self, messages: list[Message], options: CallOptions
    ) -> AsyncGenerator[StreamEvent, None]:
        yield TextDelta(text="Hel")
        await asyncio.wait_for(self.seen.wait(), 20)
        reply = py("final_result('lo')", "lo!")
        yield TextDelta(text=reply)
        yield StreamEnd(message=Ai(content="Hel" + reply))


def test_a_piece_reaches_the_consumer_while_the_model_still_streams() -> None:
    async def main() -> list[str]:
        seen = asyncio.Event()
        texts = []
        async for event in Agent("live", _Gated(seen)).stream("t"):
            if isinstance(event, ModelDelta):
                texts.append(event.text)
                seen.set()  # the model's next piece waits for this
        return texts

    texts = arun(main())
    assert texts[0] == "Hel" and "".join(texts).startswith("Hello!")


class _Counting(ScriptedModel):
    streamed = 0

    async def _stream_request(
        self, messages: list[Message], options: CallOptions
    ) -> AsyncGenerator[StreamEvent, None]:
        self.streamed += 1
        async for event in super()._stream_request(messages, options):
            yield event


def test_run_asks_for_whole_replies_and_stream_for_pieces() -> None:
    model = _Counting([py("final_result(1)"), py("final_result(2)")], chunk_chars=1)
    agent = Agent("whole", model)
    assert agent.run_sync("t").value == 1
    assert model.streamed == 0
    events = arun(_events(agent))
    assert model.streamed == 1 and len([e for e in events if isinstance(e, ModelDelta)]) > 5


def test_a_reply_without_code_has_no_code_in_its_event() -> None:
    model = ScriptedModel(["Just prose.", py("final_result(2)")])
    events = arun(_events(Agent("chatty", model)))
    replies = [e for e in events if isinstance(e, ModelReplied)]
    assert replies[0].code is None and replies[1].code == "final_result(2)"
    assert [type(e).__name__ for e in events if not isinstance(e, ModelDelta)] == [
        "Started",
        "ModelReplied",
        "ModelReplied",
        "ScriptExecuted",
        "Completed",
    ]
    assert isinstance(events[-2], ScriptExecuted)


def test_the_test_doubles_refuse_a_bad_chunk_size() -> None:
    with pytest.raises(ValueError, match="chunk_chars"):
        ScriptedModel([], chunk_chars=0)
