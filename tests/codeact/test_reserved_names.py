"""One list of reserved names, one check: every way of naming something a script calls
refuses each reserved name with the protocol's own message.

The entry points: the sandbox's tools (``Sandbox.session(tools=...)``), the worker's
binding of the session's tools, an agent's tools (constructor and decorator), an
agent's name (sub-agents are called by name), and MCP tool naming.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from RestrictedPython.transformer import FORBIDDEN_FUNC_NAMES

from codeact import Agent
from codeact.mcp.client import _reserved
from codeact.models import ScriptedModel
from sandbox import Sandbox, SandboxPolicy, ToolDefinitionError
from sandbox.host.tools import ToolSet
from sandbox.output import ScriptOutput
from sandbox.protocol import HELPERS, RESERVED_NAMES, name_refusal
from sandbox.worker.runtime import ScriptRuntime


def tool_fn() -> int:
    return 1


@pytest.fixture(scope="module")
def sb() -> Iterator[Sandbox]:
    with Sandbox(SandboxPolicy.preset("default"), spares=0) as sandbox:
        yield sandbox


def test_the_list_covers_the_helpers_and_what_restrictedpython_reserves() -> None:
    assert set(HELPERS) <= RESERVED_NAMES
    assert FORBIDDEN_FUNC_NAMES <= RESERVED_NAMES  # fails if an upgrade reserves more
    # The helpers are the output kinds a script can end with.
    tags = {model.model_fields["type"].default for model in ScriptOutput.__subclasses__()}
    assert tags == set(HELPERS)


def test_the_worker_binds_every_helper_it_reserves() -> None:
    runtime = ScriptRuntime({"recursion_depth": 200}, [], __import__, lambda r: r)  # type: ignore[arg-type, return-value]
    assert all(callable(runtime.globals[name]) for name in HELPERS)


@pytest.mark.parametrize("name", sorted(RESERVED_NAMES))
def test_each_entry_point_refuses_a_reserved_name_with_the_same_message(
    sb: Sandbox, name: str
) -> None:
    message = name_refusal("tool", name)
    assert message == f"tool name {name!r} is reserved"
    exact = f"^{re.escape(message)}$"
    with pytest.raises(ToolDefinitionError, match=exact):
        sb.session(tools={name: tool_fn})
    with pytest.raises(ToolDefinitionError, match=exact):
        ToolSet({name: tool_fn})
    runtime = ScriptRuntime({"recursion_depth": 200}, [], __import__, lambda r: r)  # type: ignore[arg-type, return-value]
    with pytest.raises(ValueError, match=exact):
        runtime.add_tools([name])
    assert name not in runtime.globals or name in HELPERS
    with pytest.raises(ValueError, match=exact):
        Agent("a", ScriptedModel([]), tools={name: tool_fn})
    agent = Agent("a", ScriptedModel([]))
    with pytest.raises(ValueError, match=exact):
        agent.tool(name=name)(tool_fn)
    with pytest.raises(ValueError, match=f"^{re.escape(f'agent name {name!r} is reserved')}$"):
        Agent(name, ScriptedModel([]))
    assert _reserved(name)  # an MCP tool of that name gets its server's name as a prefix


@pytest.mark.parametrize(
    ("name", "needle"),
    [
        ("_hidden", "may not start with '_'"),
        ("not valid", "not a Python identifier"),
        ("class", "not a Python identifier"),
        (3, "not a Python identifier"),
    ],
)
def test_every_entry_point_refuses_a_bad_identifier_alike(name: object, needle: str) -> None:
    message = name_refusal("tool", name)
    assert message is not None and needle in message
    with pytest.raises(ToolDefinitionError, match=f"^{re.escape(message)}$"):
        ToolSet({name: tool_fn})  # type: ignore[dict-item]
    if isinstance(name, str):
        runtime = ScriptRuntime({"recursion_depth": 200}, [], __import__, lambda r: r)  # type: ignore[arg-type, return-value]
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            runtime.add_tools([name])
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            Agent("a", ScriptedModel([]), tools={name: tool_fn})
        agent_message = f"^{re.escape(message.replace('tool name', 'agent name', 1))}$"
        with pytest.raises(ValueError, match=agent_message):
            Agent(name, ScriptedModel([]))
