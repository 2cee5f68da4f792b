"""An agent whose scripts call tools from real MCP servers."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from codeact import Agent, AgentRunFailed, Decision, InteractionRequired, SubmitInteraction
from codeact.events import FailureCode
from codeact.mcp import MCPServerStdio
from codeact.models import FunctionModel, ScriptedModel
from tests.codeact.mcp_helpers import TRAVEL, WEATHER

pytestmark = pytest.mark.timeout(120)
FENCE = "`" * 3


def py(source: str) -> str:
    return f"{FENCE}python\n{source}\n{FENCE}"


def test_one_script_uses_tools_of_two_servers() -> None:
    seen_prompt: list[str] = []

    def model(messages: list[Any], info: Any) -> str:
        if not seen_prompt:
            seen_prompt.append(messages[0].text())
            return py(
                "fs = find_flights('E', 'B')\n"
                "cheap = min(fs, key=lambda f: f['price'])\n"
                "days = forecast('B', days=2)['days']\n"
                "print(weather_book('B'))\n"
                "final_result({'carrier': cheap['carrier'], 'high': days[-1]['high'],\n"
                "              'booked': travel_book({'flight': cheap, 'nights': 2}, ['me'])})"
            )
        return py("final_result('unreachable')")

    agent = Agent(
        "planner",
        FunctionModel(model),
        mcp_servers=[MCPServerStdio(TRAVEL), MCPServerStdio(WEATHER)],
    )
    out = agent.run_sync("Plan a trip to B")
    assert out.value == {
        "carrier": "Budget",
        "high": 21,
        "booked": {"confirmed": True, "travellers": 1, "nights": 2, "carrier": "Budget"},
    }
    prompt = seen_prompt[0]
    assert "def find_flights(origin: str, destination: str, max_stops: int = 1)" in prompt
    assert "def forecast(city: str, days: int = 3)" in prompt
    assert "def travel_book(" in prompt and "def weather_book(city: str)" in prompt
    names = [call.name for call in out.tool_calls]
    assert names == ["find_flights", "forecast", "weather_book", "travel_book"]


def test_a_server_that_cannot_start_fails_the_run_clearly() -> None:
    broken = MCPServerStdio([sys.executable, "-c", "raise SystemExit('no config found')"],
                            name="crm")
    agent = Agent("a", ScriptedModel([py("final_result(1)")]), mcp_servers=[broken])
    with pytest.raises(AgentRunFailed) as failed:
        agent.run_sync("go")
    assert failed.value.code == FailureCode.MCP_CONNECTION_FAILED
    assert "'crm'" in str(failed.value) and "no config found" in str(failed.value)


def test_a_server_that_dies_mid_run_makes_its_tools_raise_and_the_run_goes_on() -> None:
    import os
    import re
    import signal

    replies = [
        py("print(f'PID={pid()}')"),
        py("try:\n    find_flights('A', 'B')\nexcept RuntimeError as e:\n"
           "    final_result('tool failed: ' + str(e)[:40])"),
    ]

    def kill_then_continue(messages: list[Any], info: Any) -> str:
        step = sum(1 for m in messages if m.role == "ai")
        if step == 1:  # the server told its pid: kill it before the next script
            found = re.search(r"PID=(\d+)", messages[-1].text())
            assert found, messages[-1].text()
            os.kill(int(found.group(1)), signal.SIGKILL)
        return replies[step]

    agent = Agent("a", FunctionModel(kill_then_continue),
                  mcp_servers=[MCPServerStdio(TRAVEL, call_timeout_s=10)])
    out = agent.run_sync("go")
    assert str(out.value).startswith("tool failed: MCP tool 'find-flights'")


def test_tool_approval_covers_mcp_tools() -> None:
    agent = Agent(
        "a",
        ScriptedModel([py("try:\n    find_flights('A', 'B')\nexcept Exception as e:\n"
                          "    final_result(str(e))")]),
        mcp_servers=[MCPServerStdio(TRAVEL)],
        approval="tools",
    )
    asked: list[str] = []

    def approver(request: InteractionRequired) -> SubmitInteraction:
        asked.extend(a.tool or "" for a in request.actions)
        return SubmitInteraction(
            batch_id=request.batch_id,
            decisions=[Decision(action_id=a.id, proceed=False, reason="not today")
                       for a in request.actions],
        )

    import asyncio

    out = asyncio.run(agent.run("go", approver=approver))
    assert asked == ["find_flights"]
    assert "not today" in str(out.value)
