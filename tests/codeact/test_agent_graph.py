"""Sub-agents and transfers."""

from __future__ import annotations

import pytest

from codeact import Agent, AgentRunFailed, Message
from codeact.models import ScriptedModel
from codeact.usage import LlmUsage
from tests.codeact.loop_helpers import py


def search(query: str) -> list[str]:
    """Search the web."""
    return [f"result for {query}"]


def book(city: str) -> str:
    """Book a hotel."""
    return f"booked in {city}"


def usage(n: int) -> LlmUsage:
    return LlmUsage(input_tokens=n, output_tokens=1)


def test_sub_agent_is_a_function_and_its_costs_count() -> None:
    researcher = Agent(
        "researcher",
        ScriptedModel([Message.ai_with_usage(py("final_result(search('B hotels')[0])"), usage(7))]),
        instructions="Finds facts on the web.",
        tools=[search],
        policy="strict",
    )
    planner = Agent(
        "planner",
        ScriptedModel(
            [
                Message.ai_with_usage(
                    py("facts = researcher('hotels in B')\nfinal_result({'content': facts})"),
                    usage(11),
                )
            ]
        ),
        sub_agents=[researcher],
    )
    out = planner.run_sync("Find hotels")
    assert out.text() == "result for B hotels"
    assert out.usage.requests == 2 and out.usage.input_tokens == 18
    names = [(c.name, c.agent) for c in out.tool_calls]
    assert ("search", "researcher") in names and ("researcher", "planner") in names
    assert out.usage.scripts_run == 2
    prompt = planner.model.calls[0][0].text()  # type: ignore[attr-defined]
    assert "def researcher(task: str)" in prompt and "Finds facts on the web." in prompt


def test_sub_agent_failure_raises_in_the_calling_script() -> None:
    broken = Agent("broken", ScriptedModel([py("x = 1")]), max_steps=1)
    caller = Agent(
        "caller",
        ScriptedModel(
            [py("try:\n    broken('do it')\nexcept Exception as e:\n    final_result(str(e))")]
        ),
        sub_agents=[broken],
    )
    out = caller.run_sync("t")
    assert "agent 'broken' failed (max_steps_exceeded)" in out.value  # type: ignore[operator]


def test_transfer_continues_the_conversation_under_the_target() -> None:
    booker = Agent(
        "booker",
        ScriptedModel([py("final_result(book('B'))")]),
        instructions="Books hotels.",
        tools=[book],
    )
    front = Agent(
        "front",
        ScriptedModel([py("transfer_to_agent('booker')")]),
        instructions="Talks to customers.",
        transfer_targets=[booker],
    )
    out = front.run_sync("Book me a hotel in B")
    assert out.value == "booked in B" and out.agent == "booker"
    sent = booker.model.calls[0]  # type: ignore[attr-defined]
    assert sent[0].text().startswith("You are booker") and "Books hotels." in sent[0].text()
    assert any(m.text() == "Book me a hotel in B" for m in sent)
    assert "handed over to you (booker) by front" in sent[-1].text()
    assert "transfer_to_agent" in front.model.calls[0][0].text()  # type: ignore[attr-defined]


def test_transfer_section_only_when_there_are_targets() -> None:
    lone = Agent("lone", ScriptedModel([py("final_result(1)")]))
    lone.run_sync("t")
    assert "transfer_to_agent" not in lone.model.calls[0][0].text()  # type: ignore[attr-defined]


def test_unknown_transfer_target_lists_valid_names() -> None:
    booker = Agent("booker", ScriptedModel([]))
    front = Agent(
        "front",
        ScriptedModel([py("transfer_to_agent('nobody')"), py("final_result('gave up')")]),
        transfer_targets=[booker],
    )
    out = front.run_sync("t")
    assert out.value == "gave up"
    feedback = front.model.calls[1][-1].text()  # type: ignore[attr-defined]
    assert 'no agent named "nobody"' in feedback and "booker" in feedback


def test_ping_pong_transfers_are_bounded() -> None:
    a = Agent("a", ScriptedModel([py("transfer_to_agent('b')")] * 5), max_transfers=3)
    b = Agent("b", ScriptedModel([py("transfer_to_agent('a')")] * 5), transfer_targets=[a])
    a.transfer_targets.append(b)
    with pytest.raises(AgentRunFailed) as info:
        a.run_sync("bounce")
    assert info.value.code == "transfer_loop"
