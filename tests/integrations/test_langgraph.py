"""LangGraph CodeAct: create_codeact with the sandbox's eval_fn, end to end with
langchain's fake chat model."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("langgraph_codeact")

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import MemorySaver
from langgraph_codeact import create_codeact

from codeact.integrations.langgraph import NO_OUTPUT, eval_fn
from sandbox import AsyncSandbox, Sandbox, SandboxPolicy

pytestmark = pytest.mark.timeout(120)

FENCE = "`" * 3
CALLS: list[tuple[str, str]] = []


def find_flights(origin: str, destination: str) -> list[dict[str, Any]]:
    """Flights between two cities."""
    CALLS.append((origin, destination))  # runs in this process, not the worker
    return [{"carrier": "Budget", "price": 189.5}, {"carrier": "Aero", "price": 312.0}]


def _reply(code: str) -> AIMessage:
    return AIMessage(content=f"Let me look.\n{FENCE}python\n{code}\n{FENCE}")


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox() as sb:
        yield sb


def test_an_agent_runs_end_to_end(sandbox: Sandbox) -> None:
    CALLS.clear()
    model = FakeMessagesListChatModel(
        responses=[
            _reply("flights = find_flights('E', 'B')\ncheapest = min(f['price'] for f in flights)"),
            _reply("print('cheapest:', cheapest)\nhelper = lambda x: x"),
            AIMessage(content="The cheapest flight costs 189.5."),
        ]
    )
    agent = create_codeact(model, [find_flights], eval_fn(sandbox)).compile(
        checkpointer=MemorySaver()
    )
    config = {"configurable": {"thread_id": "1"}}
    state = agent.invoke({"messages": [{"role": "user", "content": "Cheapest?"}]}, config)
    assert CALLS == [("E", "B")]
    outputs = [m.content for m in state["messages"] if m.type == "human"][1:]
    assert outputs == [NO_OUTPUT, "cheapest: 189.5"]
    # The JSON variables live in the graph's state (the lambda stayed in the worker).
    assert state["context"]["cheapest"] == 189.5 and "helper" not in state["context"]
    assert state["messages"][-1].content == "The cheapest flight costs 189.5."


def test_errors_and_results_reach_the_model(sandbox: Sandbox) -> None:
    evaluate = eval_fn(sandbox)
    output, new = evaluate("print('before')\nx = 1 / 0", {})
    assert output.startswith("before\nError during execution: Traceback")
    assert "ZeroDivisionError" in output and new == {}
    output, new = evaluate(
        "total = sum(values)\nfinal_result({'total': total})", {"values": [1, 2]}
    )
    assert (output, new) == ('Result: {"total": 3}', {"total": 3})
    output, _ = evaluate("import os", {})
    assert "No module named 'os'" in output
    with pytest.raises(TypeError, match="'handle'"):
        evaluate("pass", {"handle": object()})


def test_variables_too_large_to_keep_are_said_lost() -> None:
    with Sandbox(SandboxPolicy.preset("default").with_limits(result_bytes=2000)) as small:
        output, new = eval_fn(small)("big = 'x' * 5000\nprint('made it')", {})
    assert new == {}
    assert output.startswith("made it\nNote: this script's variables were not kept")


def test_each_call_is_a_fresh_session(sandbox: Sandbox) -> None:
    evaluate = eval_fn(sandbox)
    _, new = evaluate("def f():\n    return 1\nn = f()", {})
    assert new == {"n": 1}
    output, _ = evaluate("print(f())", new)  # only the state carries over
    assert "NameError" in output


def test_the_async_graph_uses_an_async_sandbox() -> None:
    async def main() -> dict[str, Any]:
        model = FakeMessagesListChatModel(
            responses=[_reply("print(len(find_flights('E', 'B')))"), AIMessage(content="Two.")]
        )
        async with AsyncSandbox() as sb:
            agent = create_codeact(model, [find_flights], eval_fn(sb)).compile()
            return await agent.ainvoke({"messages": [{"role": "user", "content": "How many?"}]})

    state = asyncio.run(main())
    assert [m.content for m in state["messages"]][-2:] == ["2", "Two."]
