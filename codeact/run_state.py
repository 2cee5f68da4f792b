"""What every agent of one run shares: :class:`RunState`.

Events, usage, tool calls, the sandboxes the run started, approvals, the MCP
connections of every agent the run can reach, and the caller's ``deps``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from codeact import telemetry
from codeact.approval import Checkpoint, InteractionBroker
from codeact.errors import RunEnded
from codeact.events import AgentEvent
from codeact.mcp.client import MCPConnections
from codeact.output import ToolCallLog
from codeact.settle import settle, uncancellable
from codeact.summary import UsageSummary
from codeact.tools import Tool
from sandbox import AsyncSandbox, SandboxPolicy

if TYPE_CHECKING:
    from codeact.agent import Agent


class RunState:
    """What every agent of one run shares."""

    def __init__(
        self,
        run_id: str,
        emit: Callable[[AgentEvent], None],
        shared: AsyncSandbox | None = None,
        deps: Any = None,
    ) -> None:
        self.run_id = run_id
        #: What the caller passed as ``run(task, deps=...)``: given to tools that take a
        #: :class:`~codeact.context.RunContext`, never to the sandbox.
        self.deps = deps
        self.emit = emit
        #: Whether model replies are streamed, each piece emitted as a ModelDelta (for
        #: ``agent.stream()``; ``run()`` asks for whole replies).
        self.stream_tokens = False
        self.usage = UsageSummary()
        self.tool_calls: list[ToolCallLog] = []
        self.broker = InteractionBroker(emit)
        #: A run ended while a script waited on a tool approval (no approver, a failing
        #: one, a cancel): the tool call is refused, and the run ends once the script
        #: returns, instead of the script's sandbox turning it into a tool error.
        self.ended: RunEnded | None = None
        self._shared = shared
        self._sandboxes: dict[str, AsyncSandbox] = {}
        self._mcp_tools: dict[int, dict[str, Tool]] = {}
        self._connections = MCPConnections()

    def carry_over(self, checkpoint: Checkpoint) -> None:
        """Take up the usage and tool calls of the run ``checkpoint`` paused."""
        self.usage = checkpoint.usage
        self.tool_calls = list(checkpoint.tool_calls)

    async def connect(self, root: Agent[Any]) -> None:
        """Connect the MCP servers of ``root`` and of every agent it can reach.

        Done once, at the start of the run; :meth:`close` closes them.
        """
        for agent in _agent_graph(root):
            if agent.mcp_servers and id(agent) not in self._mcp_tools:
                taken = set(agent.tools) | {a.name for a in agent.sub_agents}
                tools = await self._connections.connect(agent.mcp_servers, taken)
                self._mcp_tools[id(agent)] = {t.name: t for t in tools}

    def tools_of(self, agent: Agent[Any]) -> dict[str, Tool]:
        """The agent's own tools and those of its MCP servers."""
        return {**agent.tools, **self._mcp_tools.get(id(agent), {})}

    async def sandbox(self, policy: SandboxPolicy) -> AsyncSandbox:
        """A started sandbox for ``policy``: the caller's when its policy is this one,
        else one the run starts (one per distinct policy per run)."""
        key = policy.digest()
        if self._shared is not None and self._shared.policy.digest() == key:
            return await uncancellable(self._shared.start())
        if key not in self._sandboxes:
            sandbox = AsyncSandbox(policy, spares=1)
            try:
                # The start runs in a thread that a cancellation cannot stop: wait for
                # it, so that what it started is stopped below, not left running.
                with telemetry.sandbox_span(policy):
                    await uncancellable(sandbox.start())
            except BaseException:
                with contextlib.suppress(Exception):
                    await settle(sandbox.close())
                raise
            self._sandboxes[key] = sandbox
        return self._sandboxes[key]

    async def close(self) -> None:
        """Stop every sandbox the run started (the caller's stays up) and close the MCP
        connections; the first failure is raised once all of them were stopped."""
        sandboxes, self._sandboxes = list(self._sandboxes.values()), {}
        failure: Exception | None = None
        try:
            await self._connections.aclose()
        except Exception as exc:  # a server that broke on the way out
            failure = exc
        for sandbox in sandboxes:
            try:
                await sandbox.close()
            except Exception as exc:
                failure = failure or exc
        if failure is not None:
            raise failure


def _agent_graph(root: Agent[Any]) -> list[Agent[Any]]:
    """``root`` and every agent it can reach as a sub-agent or a transfer target."""
    seen: dict[int, Agent[Any]] = {}
    todo = [root]
    while todo:
        agent = todo.pop()
        if id(agent) not in seen:
            seen[id(agent)] = agent
            todo += [*agent.sub_agents, *agent.transfer_targets]
    return list(seen.values())
