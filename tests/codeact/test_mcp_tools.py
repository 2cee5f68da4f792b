"""MCP servers' tools as Python functions: signatures, calls, errors, failures."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from typing import Any

import pytest

from codeact.mcp import MCPConnectionError, MCPServerHTTP, MCPServerStdio, connect
from codeact.mcp.signature import annotation_for, python_identifier, signature_for
from codeact.prompting import describe_function
from sandbox import AsyncSandbox
from tests.codeact.mcp_helpers import TRAVEL, WEATHER, free_port, http_server

pytestmark = pytest.mark.timeout(120)


async def _tools(*servers: Any) -> tuple[contextlib.AsyncExitStack, dict[str, Any]]:
    stack = contextlib.AsyncExitStack()
    tools = await connect(stack, list(servers))
    return stack, {t.name: t for t in tools}


def test_schema_types_become_annotations() -> None:
    assert annotation_for({"type": "array", "items": {"type": "string"}}) == list[str]
    assert annotation_for({"type": "object"}) == dict[str, Any]
    assert annotation_for({"type": ["integer", "null"]}) == int | None
    assert str(annotation_for({"enum": ["a", "b"]})) == "typing.Literal['a', 'b']"
    sig = signature_for(
        {
            "type": "object",
            "properties": {"q": {"type": "string"}, "n": {"type": "integer", "default": 3},
                           "tags": {"type": "array", "items": {"type": "string"}}},
            "required": ["q"],
        }
    )
    assert str(sig) == "(q: str, n: int = 3, tags: list[str] | None = None) -> Any"
    assert python_identifier("get-weather") == "get_weather"
    assert python_identifier("3d.render") == "t_3d_render"
    assert python_identifier("class") == "class_"
    with pytest.raises(ValueError, match="not a Python identifier"):
        signature_for({"properties": {"not valid": {}}})


def test_tools_of_two_servers_as_functions_with_signatures() -> None:
    async def main() -> None:
        stack, tools = await _tools(MCPServerStdio(TRAVEL), MCPServerStdio(WEATHER))
        async with stack:
            # "book" exists on both servers: both are prefixed with their server's name.
            assert {"find_flights", "travel_book", "weather_book", "forecast", "cancel"} <= set(
                tools
            )
            text = describe_function("find_flights", tools["find_flights"].fn)
            assert text.startswith(
                "def find_flights(origin: str, destination: str, max_stops: int = 1)"
            )
            assert "Flights from origin to destination" in text
            flights = await tools["find_flights"].fn("E", "B", max_stops=0)
            assert flights == [
                {"carrier": "Aero", "price": 312.0, "stops": 0, "route": ["E", "B"]}
            ]
            booked = await tools["travel_book"].fn(
                {"flight": flights[0], "nights": 2}, ["ann", "bo"]
            )
            assert booked == {"confirmed": True, "travellers": 2, "nights": 2, "carrier": "Aero"}
            assert await tools["weather_book"].fn("Oslo") == "alert booked for Oslo"

    asyncio.run(main())


def test_bad_arguments_are_refused_before_the_call_and_errors_raise() -> None:
    async def main() -> None:
        stack, tools = await _tools(MCPServerStdio(TRAVEL))
        async with stack:
            with pytest.raises(TypeError, match="travellers"):
                await tools["book"].fn({"flight": {}}, "not a list")
            with pytest.raises(TypeError, match="missing a required argument"):
                await tools["find_flights"].fn("E")
            with pytest.raises(RuntimeError, match="cannot be cancelled online"):
                await tools["cancel"].fn("B-1")

    asyncio.run(main())


def test_scripts_call_mcp_tools_through_the_sandbox() -> None:
    async def main() -> None:
        stack, tools = await _tools(MCPServerStdio(TRAVEL))
        async with stack, AsyncSandbox() as sb:
            fns = {name: t.fn for name, t in tools.items()}
            async with sb.session(tools=fns) as s:
                ex = await s.run(
                    "fs = find_flights('E', 'B')\n"
                    "cheap = min(fs, key=lambda f: f['price'])\n"
                    "try:\n    cancel('x')\nexcept RuntimeError as e:\n    print('refused:', e)\n"
                    "final_result(book({'flight': cheap, 'nights': 1}, ['me']))"
                )
            assert ex.error_code is None, ex.output
            assert ex.output.value == {  # type: ignore[union-attr]
                "confirmed": True, "travellers": 1, "nights": 1, "carrier": "Budget"
            }
            assert "booking x cannot be cancelled online" in ex.stdout
            assert [c.name for c in ex.tool_calls] == ["find_flights", "cancel", "book"]

    asyncio.run(main())


def test_streamable_http_server() -> None:
    port = free_port()
    with http_server([*TRAVEL, "http", str(port)], port) as url:

        async def main() -> None:
            stack, tools = await _tools(MCPServerHTTP(url))
            async with stack:
                assert await tools["slow"].fn(0.1) == "slept 0.1"
                assert len(await tools["find_flights"].fn("A", "B")) == 2

        asyncio.run(main())


def test_connection_failures_name_the_server_and_do_not_hang() -> None:
    async def main() -> None:
        with pytest.raises(MCPConnectionError, match="no-such-command-xyz"):
            await _tools(MCPServerStdio(["no-such-command-xyz"]))
        crash = MCPServerStdio([sys.executable, "-c", "import sys; print('boom', file=sys.stderr)"])
        with pytest.raises(MCPConnectionError, match="boom"):
            await _tools(crash)
        silent = MCPServerStdio(
            [sys.executable, "-c", "import time; time.sleep(60)"], connect_timeout_s=1.0
        )
        with pytest.raises(MCPConnectionError, match="no answer within 1 s"):
            await _tools(silent)
        port = free_port()
        with pytest.raises(MCPConnectionError, match=str(port)):
            await _tools(MCPServerHTTP(f"http://127.0.0.1:{port}/mcp", connect_timeout_s=5))

    asyncio.run(main())


def test_a_server_that_dies_makes_its_tools_raise() -> None:
    async def main() -> None:
        stack, tools = await _tools(MCPServerStdio(TRAVEL, call_timeout_s=10))
        async with stack:
            os.kill(await tools["pid"].fn(), signal.SIGKILL)
            with pytest.raises(RuntimeError, match="failed"):
                await tools["find_flights"].fn("A", "B")

    asyncio.run(main())


def test_a_slow_tool_is_cut_off_at_its_call_timeout() -> None:
    async def main() -> None:
        stack, tools = await _tools(MCPServerStdio(TRAVEL, call_timeout_s=1.0))
        async with stack:
            assert tools["slow"].timeout_s == 1.0  # the sandbox's per-call timeout too
            loop = asyncio.get_running_loop()
            start = loop.time()
            with pytest.raises(RuntimeError, match="failed"):
                await tools["slow"].fn(30)
            assert loop.time() - start < 20
            assert await tools["slow"].fn(0) == "slept 0.0"  # the connection still works

    asyncio.run(main())
