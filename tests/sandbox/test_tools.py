"""Host tools: validation, exceptions, async tools, timeouts, records, bad definitions."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from sandbox import FinalResult, Sandbox, SandboxPolicy, ToolDefinitionError


@dataclass
class Flight:
    price: float
    carrier: str


def lookup_price(item: str) -> float:
    """Price of an item."""
    return {"wand": 10.0, "cloak": 25.5}[item]


def find_flights(origin: str, destination: str, max_stops: int = 1) -> list[Flight]:
    return [Flight(price=99.0 + max_stops, carrier=f"{origin}-{destination}")]


async def slow_lookup(item: str, delay: float = 0.01) -> dict[str, str]:
    await asyncio.sleep(delay)
    return {"item": item, "source": "async"}


def explode(message: str) -> None:
    raise ValueError(message)


class Custom(Exception):
    pass


def custom_failure() -> None:
    raise Custom("custom went wrong")


def returns_object() -> object:
    return object()


def sleeps(seconds: float) -> str:
    time.sleep(seconds)
    return "slept"


TOOLS = {
    "lookup_price": lookup_price,
    "find_flights": find_flights,
    "slow_lookup": slow_lookup,
    "explode": explode,
    "custom_failure": custom_failure,
    "returns_object": returns_object,
    "sleeps": sleeps,
}


@pytest.fixture(scope="module")
def sb() -> Iterator[Sandbox]:
    policy = SandboxPolicy.preset("default").with_limits(tool_timeout_s=0.5, wall_s=3)
    with Sandbox(policy, spares=1) as sandbox:
        yield sandbox


def test_issue_example(sb: Sandbox) -> None:
    with sb.session(tools={"lookup_price": lookup_price}) as s:
        ex = s.run("p = lookup_price('wand')\nfinal_result(round(p * 1.2, 2))")
        assert ex.output == FinalResult(value=12.0)
        ex = s.run("observation(p)")
        assert ex.output.value == 10.0  # type: ignore[union-attr]


def test_call_records_and_conversion(sb: Sandbox) -> None:
    with sb.session(tools=TOOLS) as s:
        ex = s.run("f = find_flights('E', destination='B', max_stops='2')\nfinal_result(f)")
    assert ex.output == FinalResult(value=[{"price": 101.0, "carrier": "E-B"}])
    [record] = ex.tool_calls
    assert record.name == "find_flights" and record.ok
    assert record.arguments == {"origin": "E", "destination": "B", "max_stops": "2"}
    assert record.result == [{"price": 101.0, "carrier": "E-B"}]
    assert record.duration_s >= 0


def test_validation_error_raises_type_error_in_script(sb: Sandbox) -> None:
    with sb.session(tools=TOOLS) as s:
        ex = s.run(
            "try:\n    find_flights('E', 'B', max_stops='many')\nexcept TypeError as e:\n"
            "    final_result(str(e))"
        )
        missing = s.run("lookup_price()")
    message = ex.output.value  # type: ignore[union-attr]
    assert message.startswith("find_flights(): invalid arguments: max_stops")
    assert "'many'" in message
    assert missing.error_code == "runtime_error"
    assert "lookup_price(): invalid arguments" in missing.output.message  # type: ignore[union-attr]
    assert not missing.tool_calls[0].ok


def test_tool_exception_raises_with_message(sb: Sandbox) -> None:
    with sb.session(tools=TOOLS) as s:
        ex = s.run(
            "try:\n    explode('bad thing')\nexcept ValueError as e:\n"
            "    final_result('caught ' + str(e))"
        )
        custom = s.run("custom_failure()")
        key = s.run("lookup_price('nothing')")
    assert ex.output == FinalResult(value="caught bad thing")
    assert ex.tool_calls[0].error == "ValueError: bad thing"
    assert "ToolError: Custom: custom went wrong" in custom.output.message  # type: ignore[union-attr]
    assert "KeyError" in key.output.message  # type: ignore[union-attr]


def test_async_tool_from_sync_sandbox(sb: Sandbox) -> None:
    with sb.session(tools=TOOLS) as s:
        ex = s.run("final_result(slow_lookup('x'))")
    assert ex.output == FinalResult(value={"item": "x", "source": "async"})


def test_non_json_result_is_an_error(sb: Sandbox) -> None:
    with sb.session(tools=TOOLS) as s:
        ex = s.run("returns_object()")
    assert ex.error_code == "runtime_error"
    assert "not JSON-serializable" in ex.output.message  # type: ignore[union-attr]


def test_non_json_arguments_are_refused_in_the_worker(sb: Sandbox) -> None:
    with sb.session(tools=TOOLS) as s:
        ex = s.run("lookup_price(lambda: 1)")
    assert ex.error_code == "runtime_error"
    assert "arguments must be JSON values" in ex.output.message  # type: ignore[union-attr]
    assert ex.tool_calls == []


@pytest.mark.timeout(20)
def test_tool_timeout_and_tool_time_not_counted_against_wall(sb: Sandbox) -> None:
    with sb.session(tools=TOOLS) as s:
        slow = s.run("sleeps(2)")
        assert slow.error_code == "runtime_error"
        assert "did not finish within 0.5 s" in slow.output.message  # type: ignore[union-attr]
    # Each call far within its own timeout (a loaded machine may stretch a 0.4 s sleep
    # past the module's 0.5 s), together 4 s of tool time: beyond the 3 s wall limit,
    # which they exceed only if tool time counted.
    with sb.session(tools=TOOLS, tool_timeouts={"sleeps": 10}) as s:
        ex = s.run("final_result([sleeps(0.4) for _ in range(10)])")
    assert ex.output == FinalResult(value=["slept"] * 10), ex
    tool_time = sum(record.duration_s for record in ex.tool_calls)
    assert tool_time >= 10 * 0.4
    # The script's own time leaves the tools' out (it is under the wall limit anyway).
    assert ex.duration_s < 3.0 <= tool_time


@pytest.mark.parametrize(
    ("tools", "needle"),
    [
        ({"final_result": lookup_price}, "reserved"),
        ({"_hidden": lookup_price}, "may not start with '_'"),
        ({"not valid": lookup_price}, "not a Python identifier"),
        ({"class": lookup_price}, "not a Python identifier"),
        ({"x": 3}, "not callable"),
    ],
)
def test_bad_tool_definitions(sb: Sandbox, tools: dict[str, object], needle: str) -> None:
    with pytest.raises(ToolDefinitionError, match=needle):
        sb.session(tools=tools)  # type: ignore[arg-type]


def test_tools_shadow_builtins(sb: Sandbox) -> None:
    with sb.session(tools={"max": lambda *args: "tool max"}) as s:
        ex = s.run("final_result(max(1, 2))")
    assert ex.output == FinalResult(value="tool max")


def test_gate_decides_each_call_and_its_wait_is_not_timed(sb: Sandbox) -> None:
    seen: list[tuple[str, dict[str, object]]] = []

    async def gate(name: str, arguments: dict[str, object]) -> str | None:
        seen.append((name, arguments))
        await asyncio.sleep(0.7)  # longer than the 0.5 s tool timeout
        return "too expensive" if arguments.get("item") == "cloak" else None

    with sb.session(tools=TOOLS, gate=gate) as s:
        ex = s.run(
            "a = lookup_price('wand')\ntry:\n    lookup_price('cloak')\n"
            "except PermissionError as e:\n    final_result([a, str(e)])"
        )
    assert ex.output == FinalResult(value=[10.0, "lookup_price() was not approved: too expensive"])
    assert seen == [("lookup_price", {"item": "wand"}), ("lookup_price", {"item": "cloak"})]
    assert [r.ok for r in ex.tool_calls] == [True, False]


def test_per_tool_timeout_override(sb: Sandbox) -> None:
    with sb.session(tools=TOOLS, tool_timeouts={"sleeps": None}) as s:
        ex = s.run("final_result(sleeps(0.8))")
    assert ex.output == FinalResult(value="slept")


def test_a_tool_without_timeout_runs_in_the_callers_thread(sb: Sandbox) -> None:
    import threading

    def where() -> int:
        return threading.get_ident()

    caller = threading.get_ident()
    with sb.session(tools={"where": where}, tool_timeouts={"where": None}) as s:
        inline = s.run("final_result(where())")
    with sb.session(tools={"where": where}) as s:
        timed = s.run("final_result(where())")
    assert inline.output == FinalResult(value=caller)
    # With a timeout the call runs on a tool thread, so that it can be given up on.
    assert timed.output != FinalResult(value=caller)
