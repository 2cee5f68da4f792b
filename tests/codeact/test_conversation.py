"""Conversations: turns sharing one history (one system prompt) and one sandbox session."""

from __future__ import annotations

import asyncio

import pytest

from codeact import Agent, AgentRunFailed, ModelDelta, tool
from codeact.context import RunContext
from codeact.messages import Human, System
from codeact.models import ScriptedModel
from sandbox import AsyncSandbox, Sandbox
from tests.codeact.loop_helpers import arun, py

pytestmark = pytest.mark.timeout(90)

TURNS = [
    py(
        "import math\ndef area(r):\n    return round(math.pi * r * r, 2)\n"
        "rate = 3\nfinal_result(area(1))"
    ),
    py("final_result([area(rate), rate * 2])"),
]


def test_a_second_turn_reads_what_the_first_defined() -> None:
    model = ScriptedModel(TURNS)
    agent = Agent("calc", model)
    with Sandbox() as sb, agent.conversation(sandbox=sb) as conv:
        first = conv.run_sync("Area of a unit circle?")
        second = conv.run_sync("And with radius rate, and twice the rate?")
    assert first.value == 3.14
    assert second.value == [28.27, 6]  # area, math and rate came from the first turn
    # One system prompt, then both turns in order.
    roles = [m.role for m in second.messages]
    assert roles.count("system") == 1 and roles[0] == "system"
    assert roles == ["system", "human", "ai", "human", "ai"]
    assert [m.text() for m in second.messages if isinstance(m, Human)] == [
        "Area of a unit circle?",
        "And with radius rate, and twice the rate?",
    ]
    # The model saw the first turn in the second request, under the one system prompt.
    assert [m.role for m in model.calls[1]] == ["system", "human", "ai", "human"]
    # Usage per turn and in total.
    assert first.usage.requests == 1 and second.usage.requests == 1
    assert conv.usage.requests == 2 and conv.usage.scripts_run == 2 and conv.turns == 2


def test_async_turns_share_the_session_and_stream() -> None:
    model = ScriptedModel([py("n = 20\nfinal_result(n)"), py("final_result(n + 1)")])
    agent = Agent("counter", model)

    async def main() -> tuple[int, int, int]:
        async with AsyncSandbox() as sb, agent.conversation(sandbox=sb) as conv:
            first = await conv.run("start")
            deltas = 0
            async for event in conv.stream("next"):
                deltas += isinstance(event, ModelDelta)
            assert conv.outputs[-1].value == 21
            return int(first.value), int(conv.outputs[-1].value), deltas  # type: ignore[arg-type]

    first, second, deltas = arun(main())
    assert (first, second) == (20, 21) and deltas > 0


def test_tools_of_each_turn_get_that_turns_deps() -> None:
    @tool
    def who(ctx: RunContext[str]) -> str:
        """The user of the current turn."""
        return ctx.deps

    model = ScriptedModel([py("final_result(who())"), py("final_result(who())")])
    agent = Agent("host", model, tools=[who])
    with agent.conversation(deps="ada") as conv:  # the conversation starts its own sandbox
        assert conv.run_sync("who?").value == "ada"
        conv.deps = "grace"
        assert conv.run_sync("and now?").value == "grace"


def test_a_failed_turn_keeps_its_messages_and_the_next_goes_on() -> None:
    model = ScriptedModel([py("x = 5"), py("final_result(x * 2)")])
    agent = Agent("short", model, max_steps=1)
    with agent.conversation() as conv:
        with pytest.raises(AgentRunFailed):
            conv.run_sync("first")
        assert conv.run_sync("second").value == 10
    assert conv.turns == 2


def test_history_from_a_previous_run_gets_one_system_prompt() -> None:
    model = ScriptedModel([py("final_result('a')"), py("final_result('b')")])
    agent = Agent("hist", model)
    first = agent.run_sync("one")
    second = agent.run_sync("two", history=first.messages)
    roles = [m.role for m in second.messages]
    assert roles == ["system", "human", "ai", "human", "ai"]
    assert sum(isinstance(m, System) for m in model.calls[1]) == 1


def test_one_turn_at_a_time_and_one_event_loop() -> None:
    model = ScriptedModel([py("final_result(1)"), py("final_result(2)")])
    agent = Agent("one", model)

    async def main() -> None:
        async with agent.conversation() as conv:
            stream = conv.stream("first")
            with pytest.raises(RuntimeError, match="one turn at a time"):
                conv.stream("second")
            await stream.result()

    arun(main())
    conv = agent.conversation()
    try:
        arun(conv.run("a"))
        with pytest.raises(RuntimeError, match="one event loop"):
            arun(conv.run("b"))
    finally:
        arun(conv.aclose())
    asyncio.set_event_loop(None)
