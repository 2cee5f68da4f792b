"""Tools the way users write them: @tool, @tool(...), @agent.tool, RunContext."""

from __future__ import annotations

import inspect
from typing import Any

import pytest

from codeact import Agent, Tool, tool
from codeact.context import RunContext, bind_context, takes_context
from codeact.models import ScriptedModel
from codeact.prompting import describe_function


def test_tool_decorator_with_and_without_arguments() -> None:
    @tool
    def plain(x: int) -> int:
        """Double x."""
        return 2 * x

    @tool(requires_approval=True, timeout_s=5, name="renamed")
    def options(x: int) -> int:
        return x

    assert isinstance(plain, Tool) and plain.name == "plain" and plain(4) == 8
    assert options.name == "renamed" and options.requires_approval and options.timeout_s == 5
    assert tool(len).name == "len"
    with pytest.raises(TypeError, match="takes a callable"):
        tool(3)  # type: ignore[call-overload]


def test_agent_tool_registers_and_returns_the_function() -> None:
    agent = Agent("helper", ScriptedModel(["final_result(1)"]))

    @agent.tool
    def lookup(key: str) -> str:
        """Look a key up."""
        return key.upper()

    @agent.tool(timeout_s=2)
    def slow(key: str) -> str:
        return key

    assert lookup("a") == "A"  # still the plain function
    assert set(agent.tools) == {"lookup", "slow"} and agent.tools["slow"].timeout_s == 2
    with pytest.raises(ValueError, match="already has a tool named 'lookup'"):
        agent.tool(lookup)
    with pytest.raises(ValueError, match="reserved"):
        agent.tool(name="final_result")(lambda: None)


def test_run_context_parameter_is_hidden_from_the_script() -> None:
    seen: list[RunContext[Any]] = []

    def fetch(ctx: RunContext[dict[str, int]], user: str, limit: int = 3) -> int:
        """Fetch for a user."""
        seen.append(ctx)
        return ctx.deps[user] * limit

    async def afetch(ctx: RunContext[None], n: int) -> int:
        return n

    assert takes_context(fetch) and takes_context(afetch)
    assert not takes_context(len) and not takes_context(lambda ctx: ctx)
    ctx = RunContext({"ann": 2}, run_id="r1", agent_name="a")
    bound = bind_context(fetch, lambda: ctx)
    assert str(inspect.signature(bound)) == "(user: str, limit: int = 3) -> int"
    assert describe_function("fetch", bound).startswith("def fetch(user: str, limit: int = 3)")
    assert bound("ann", limit=5) == 10 and seen == [ctx]
    assert inspect.iscoroutinefunction(bind_context(afetch, lambda: ctx))
