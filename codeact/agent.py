"""Agent: a model, instructions, tools and a sandbox policy — and the ways to run it.

``await agent.run(task)`` and ``agent.run_sync(task)`` return an :class:`AgentOutput`
(or raise :class:`~codeact.errors.AgentRunFailed`); ``agent.stream(task)`` yields every
:class:`AgentEvent` and takes approvals through :meth:`AgentStream.submit`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Literal

from codeact.conversation import Conversation, ConversationState, SessionLease, run_blocking
from codeact.extract import BlockChoice
from codeact.feedback import FeedbackConfig
from codeact.messages import Message
from codeact.models.base import Model
from codeact.output import OutputT
from codeact.prompting import load_templates
from codeact.schema import OutputSchema
from codeact.stream import AgentStream
from codeact.task import Task, task_content
from codeact.tools import Tool, check_name, tool
from sandbox import AsyncSandbox, Sandbox, SandboxPolicy

if TYPE_CHECKING:
    from codeact.approval import Checkpoint
    from codeact.events import InteractionRequired, SubmitInteraction
    from codeact.mcp.client import MCPServer
    from codeact.output import AgentOutput

Approval = Literal["never", "scripts", "tools"]
Approver = Callable[["InteractionRequired"], "SubmitInteraction | Awaitable[SubmitInteraction]"]
HistoryProcessor = Callable[[list[Message]], list[Message]]


class Agent(Generic[OutputT]):
    """An agent that acts by writing Python. See the module docstring for running it.

    With ``output_schema`` a type (a pydantic model, a dataclass...), the agent is an
    ``Agent[Trip]`` and its runs return ``AgentOutput[Trip]``: ``out.output`` is a
    ``Trip``. With a JSON schema, or none, ``out.output`` is the JSON value.
    """

    def __init__(
        self,
        name: str,
        model: Model,
        instructions: str = "",
        tools: Sequence[Callable[..., Any] | Tool] | Mapping[str, Callable[..., Any]] = (),
        *,
        max_steps: int = 10,
        policy: SandboxPolicy | str | None = None,
        description: str | None = None,
        sub_agents: Sequence[Agent[Any]] = (),
        transfer_targets: Sequence[Agent[Any]] = (),
        approval: Approval = "never",
        approval_timeout_s: float | None = None,
        output_schema: type[OutputT] | Mapping[str, Any] | None = None,
        max_output_retries: int = 2,
        max_transfers: int = 6,
        code_blocks: BlockChoice = "join",
        feedback: FeedbackConfig | None = None,
        prompts: Mapping[str, str] | None = None,
        prompts_dir: str | Path | None = None,
        history_processor: HistoryProcessor | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        stop: Sequence[str] | None = None,
        mcp_servers: Sequence[MCPServer] = (),
    ) -> None:
        check_name("agent", name)
        if max_steps < 1:
            raise ValueError("max_steps must be at least 1")
        if approval not in ("never", "scripts", "tools"):
            raise ValueError(f"approval must be 'never', 'scripts' or 'tools', not {approval!r}")
        if approval_timeout_s is not None and not approval_timeout_s > 0:
            raise ValueError(f"approval_timeout_s must be positive, not {approval_timeout_s!r}")
        if code_blocks not in ("join", "first", "last"):
            raise ValueError(f"code_blocks must be 'join', 'first' or 'last', not {code_blocks!r}")
        self.name = name
        self.model = model
        self.instructions = instructions
        self.description = description or (instructions.strip().splitlines() or [name])[0]
        self.max_steps = max_steps
        self.policy = (
            SandboxPolicy.load(policy)
            if isinstance(policy, str)
            else (policy or SandboxPolicy.preset("default"))
        )
        self.approval: Approval = approval
        #: How long a pending approval may wait before the run ends (None: no limit).
        self.approval_timeout_s = approval_timeout_s
        OutputSchema.validate_definition(output_schema)
        self.output_schema = output_schema
        self.max_output_retries = max_output_retries
        self.max_transfers = max_transfers
        self.code_blocks: BlockChoice = code_blocks
        self.feedback = feedback or FeedbackConfig()
        self.templates = load_templates(prompts, prompts_dir)
        self.history_processor = history_processor
        self.temperature, self.max_tokens = temperature, max_tokens
        self.stop = list(stop) if stop else None
        self.tools = self._collect_tools(tools)
        #: MCP servers whose tools join ``tools`` for each run (connected at run start).
        self.mcp_servers = list(mcp_servers)
        self.sub_agents = list(sub_agents)
        self.transfer_targets = list(transfer_targets)
        for agent in self.sub_agents:
            if agent.name in self.tools:
                raise ValueError(f"sub-agent {agent.name!r} has the same name as a tool")
        names = [a.name for a in self.sub_agents]
        if len(set(names)) != len(names):
            raise ValueError("sub-agent names must be unique")

    @staticmethod
    def _collect_tools(
        tools: Sequence[Callable[..., Any] | Tool] | Mapping[str, Callable[..., Any]],
    ) -> dict[str, Tool]:
        items: Iterable[Tool]
        if isinstance(tools, Mapping):
            items = [
                t if isinstance(t, Tool) and t.name == n else Tool(t, n) for n, t in tools.items()
            ]
        else:
            items = [t if isinstance(t, Tool) else Tool(t) for t in tools]
        collected: dict[str, Tool] = {}
        for item in items:
            if not callable(item.fn):
                raise TypeError(f"tool {item.name!r} is not callable")
            check_name("tool", item.name)
            if item.name in collected:
                raise ValueError(f"two tools are named {item.name!r}")
            collected[item.name] = item
        return collected

    def tool(
        self,
        fn: Callable[..., Any] | None = None,
        /,
        *,
        name: str | None = None,
        requires_approval: bool = False,
        timeout_s: float | None = None,
        description: str | None = None,
    ) -> Any:
        """Register a tool on this agent: ``@agent.tool`` or ``@agent.tool(timeout_s=5)``.

        The decorated function is returned unchanged, so it stays callable as before.
        """

        def register(target: Callable[..., Any]) -> Callable[..., Any]:
            spec = tool(
                target,
                name=name,
                requires_approval=requires_approval,
                timeout_s=timeout_s,
                description=description,
            )
            check_name("tool", spec.name)
            if spec.name in self.tools or spec.name in {a.name for a in self.sub_agents}:
                raise ValueError(f"this agent already has a tool named {spec.name!r}")
            self.tools[spec.name] = spec
            return target

        return register if fn is None else register(fn)

    # -- the graph of agents ---------------------------------------------------------
    def handoffs(self) -> dict[str, Agent[Any]]:
        """Agents this one may transfer to: its sub-agents and transfer targets."""
        return {a.name: a for a in [*self.sub_agents, *self.transfer_targets]}

    # -- running -----------------------------------------------------------------------
    def stream(
        self,
        task: Task,
        *,
        history: Sequence[Message] = (),
        sandbox: Sandbox | AsyncSandbox | None = None,
        deps: Any = None,
    ) -> AgentStream[OutputT]:
        """Start a run and return its event stream (``async for event in ...``).

        ``task``: the request in words, or a list of content parts (text and images:
        ``TextPart``, ``ImageDataPart``, ``ImageUrlPart``). The model's replies stream:
        each piece arrives as a ``ModelDelta`` event before its step's ``ModelReplied``.
        ``history``: earlier messages of the conversation (a previous run's
        ``output.messages``); system prompts in it are left out, as the run starts
        with this agent's own. ``sandbox``: a sandbox with this agent's policy to run
        the scripts in, kept up by the caller across runs (each run still gets its own
        session; :meth:`conversation` keeps one); without it, the run starts a sandbox
        and stops it at the end. ``deps``: anything the caller's tools need (a
        database handle, a user id), handed to tools that take a
        :class:`~codeact.context.RunContext`; it never enters the sandbox.
        """
        return self._start(task, history, sandbox, deps, tokens=True)

    def _start(
        self,
        task: Task,
        history: Sequence[Message],
        sandbox: Sandbox | AsyncSandbox | None,
        deps: Any,
        *,
        tokens: bool,
        session: SessionLease | None = None,
    ) -> AgentStream[OutputT]:
        return AgentStream.start(
            self,
            task=task_content(task),
            history=list(history),
            sandbox=sandbox,
            deps=deps,
            tokens=tokens,
            session=session,
        )

    def resume(
        self,
        checkpoint: Checkpoint,
        submission: SubmitInteraction,
        *,
        sandbox: Sandbox | AsyncSandbox | None = None,
        deps: Any = None,
        key: bytes | str | None = None,
    ) -> AgentStream[OutputT]:
        """Continue a run exported with :meth:`AgentStream.checkpoint` (maybe elsewhere).

        Raises `CheckpointRefused` (a `ValueError`) when an approved action's content is
        not what its approval names, an action id repeats, a decision answers no action
        of the checkpoint, or — given the application's ``key`` — the checkpoint is not
        signed with it or was altered since.
        """
        return AgentStream.resume(self, checkpoint, submission, sandbox, deps, key=key)

    async def run(
        self,
        task: Task,
        *,
        history: Sequence[Message] = (),
        approver: Approver | None = None,
        sandbox: Sandbox | AsyncSandbox | None = None,
        deps: Any = None,
    ) -> AgentOutput[OutputT]:
        """Run to the end; ``approver`` answers approval requests; ``task``,
        ``history``, ``sandbox`` and ``deps`` as in :meth:`stream` (replies are asked
        for whole: no ``ModelDelta``)."""
        stream = self._start(task, history, sandbox, deps, tokens=False)
        return await stream.result(approver)

    def run_sync(
        self,
        task: Task,
        *,
        history: Sequence[Message] = (),
        approver: Approver | None = None,
        sandbox: Sandbox | AsyncSandbox | None = None,
        deps: Any = None,
    ) -> AgentOutput[OutputT]:
        """:meth:`run` for synchronous code.

        Called where an event loop is already running (a notebook, an async web
        framework), the run gets its own loop in a helper thread and this call blocks
        until it ends; ``await agent.run(...)`` is the better choice there.
        """
        return run_blocking(
            self.run(task, history=history, approver=approver, sandbox=sandbox, deps=deps)
        )

    def conversation(
        self,
        *,
        sandbox: Sandbox | AsyncSandbox | None = None,
        deps: Any = None,
        state: ConversationState | None = None,
    ) -> Conversation[OutputT]:
        """A conversation: turns that share one history and one sandbox session, so
        each turn sees the variables, functions and imports of the turns before it.

        Use it as a context manager (``with`` or ``async with``); ``state`` reopens one
        saved with :meth:`Conversation.save` (in this process or another).
        """
        return Conversation(self, sandbox=sandbox, deps=deps, state=state)

    def __repr__(self) -> str:
        return f"Agent({self.name!r}, model={self.model.name!r}, tools={list(self.tools)})"
