"""Inspect AI: :func:`codeact_agent`, an Inspect agent that runs codeact's loop, and
:class:`InspectModel`, an Inspect model as a codeact model.

``inspect eval task.py --solver codeact/codeact_agent --model openai/gpt-4o-mini`` runs a
task's samples with our loop (the package registers the agent with Inspect under the
``codeact`` namespace, as Inspect names extension packages' agents). What maps onto
what:

- the model is the eval's (``get_model()``): every request goes through Inspect's
  ``Model.generate``, so the log records it, with its tokens, as for any solver;
- the tools are those passed to ``codeact_agent(tools=...)``, else the sample's
  (a task's ``setup=use_tools(...)``, which runs whichever solver is chosen): each
  becomes a host function the scripts call, with a signature from its parameters'
  JSON schema; the tool runs in the eval's process, its arguments and result as JSON;
- the sample's system messages become the agent's instructions, its last user
  message the task, and the messages before it the history;
- each model reply and what the model was told about each script are appended to the
  sample's messages; the final result is the output (text as it is, other JSON
  values as JSON text). A run that ends without one (``max_steps_exceeded``, a model
  error) leaves the output empty and says why in the transcript; a broken sandbox
  (``sandbox_failed``, ``internal_error``) raises, so Inspect records a sample error.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from inspect_ai.agent import Agent as InspectAgent
from inspect_ai.agent import AgentState, agent
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ModelOutput,
    get_model,
)
from inspect_ai.model import Model as InspectModelHandle
from inspect_ai.tool import Tool as InspectTool
from inspect_ai.tool import ToolDef, ToolSource

from codeact.agent import Agent
from codeact.events import Completed, Failed, ModelReplied, ScriptExecuted
from codeact.mcp.signature import python_identifier, signature_for
from codeact.messages import Ai, Human, Message, System
from codeact.models.base import CallOptions, Model
from codeact.tools import Tool
from codeact.usage import LlmUsage
from sandbox import SandboxPolicy

__all__ = ["InspectModel", "codeact_agent", "tools_for_scripts"]

#: Failures of the machinery rather than of the model: Inspect records them as errors.
_BROKEN = frozenset({"sandbox_failed", "internal_error"})


class InspectModel(Model):
    """An Inspect ``Model`` (``get_model(...)``) as a codeact model."""

    def __init__(self, model: InspectModelHandle) -> None:
        self.model = model

    @property
    def name(self) -> str:
        return f"inspect:{self.model}"

    async def _request(self, messages: list[Message], options: CallOptions) -> Ai:
        config = GenerateConfig(
            max_tokens=options.max_tokens,
            temperature=options.temperature,
            stop_seqs=options.stop,
        )
        output = await self.model.generate([_to_inspect(m) for m in messages], config=config)
        usage = output.usage
        return Ai(
            content=output.completion,
            usage=LlmUsage(
                input_tokens=usage.input_tokens + (usage.input_tokens_cache_read or 0),
                output_tokens=usage.output_tokens,
                total_tokens=usage.total_tokens,
                cache_read_tokens=usage.input_tokens_cache_read or 0,
                reasoning_tokens=usage.reasoning_tokens or 0,
            )
            if usage is not None
            else None,
        )


def _to_inspect(message: Message) -> ChatMessage:
    if isinstance(message, System):
        return ChatMessageSystem(content=message.text())
    if isinstance(message, Ai):
        return ChatMessageAssistant(content=message.text())
    return ChatMessageUser(content=message.text())


async def tools_for_scripts(tools: Sequence[InspectTool | ToolDef | ToolSource]) -> list[Tool]:
    """Inspect tools as codeact tools: functions with a signature from each tool's
    parameters, returning the tool's result as JSON (content as its text)."""
    defs: list[ToolDef] = []
    for item in tools:
        if isinstance(item, ToolSource):
            defs.extend(ToolDef(t) for t in await item.tools())
        else:
            defs.append(item if isinstance(item, ToolDef) else ToolDef(item))
    return [_script_tool(d) for d in defs]


def _script_tool(definition: ToolDef) -> Tool:
    schema = definition.parameters.model_dump(exclude_none=True)
    signature = signature_for(schema)
    name = python_identifier(definition.name)

    async def call(*args: Any, **kwargs: Any) -> Any:
        arguments = signature.bind(*args, **kwargs).arguments
        return _result_json(await definition.tool(**arguments))

    call.__name__ = call.__qualname__ = name
    call.__doc__ = definition.description
    call.__signature__ = signature  # type: ignore[attr-defined]
    call.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
    return Tool(call, name)


def _result_json(result: Any) -> Any:
    if isinstance(result, str | int | float | bool) or result is None:
        return result
    items = result if isinstance(result, list) else [result]
    return "\n".join(
        getattr(i, "text", None) or f"[{getattr(i, 'type', 'content')}]" for i in items
    )


@agent
def codeact_agent(
    tools: Sequence[InspectTool | ToolDef | ToolSource] | None = None,
    *,
    policy: str = "default",
    instructions: str = "",
    max_steps: int = 20,
) -> InspectAgent:
    """An agent that solves each sample by writing Python, run by codeact in a sandbox.

    ``tools``: callable from the scripts (default: the sample's tools); ``policy``: a
    preset name or a policy file; ``instructions``: added to the sample's system
    messages; ``max_steps``: model replies per sample.
    """
    sandbox_policy = SandboxPolicy.load(policy)

    async def execute(state: AgentState) -> AgentState:
        model = get_model()
        given = tools if tools is not None else _sample_tools()
        system = [m.text for m in state.messages if isinstance(m, ChatMessageSystem)]
        conversation = [m for m in state.messages if not isinstance(m, ChatMessageSystem)]
        if not conversation or not isinstance(conversation[-1], ChatMessageUser):
            raise ValueError("codeact_agent needs a user message to act on")
        runner = Agent(
            "codeact",
            InspectModel(model),
            "\n\n".join([*system, instructions]).strip(),
            await tools_for_scripts(given),
            max_steps=max_steps,
            policy=sandbox_policy,
        )
        history: list[Message] = [
            Ai(content=m.text) if isinstance(m, ChatMessageAssistant) else Human(content=m.text)
            for m in conversation[:-1]
        ]
        async for event in runner.stream(conversation[-1].text, history=history):
            _record(state, event, str(model))
        return state

    return execute


def _record(state: AgentState, event: Any, model: str) -> None:
    if isinstance(event, ModelReplied):
        state.messages.append(ChatMessageAssistant(content=event.content, model=model))
    elif isinstance(event, ScriptExecuted):
        state.messages.append(ChatMessageUser(content=event.feedback))
    elif isinstance(event, Completed):
        value = event.result
        answer = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        state.messages.append(ChatMessageAssistant(content=answer, model=model))
        state.output = ModelOutput.from_content(model=model, content=answer)
    elif isinstance(event, Failed):
        if event.code in _BROKEN:
            raise RuntimeError(f"codeact run failed ({event.code}): {event.message}")
        note = f"[codeact run ended without an answer ({event.code}): {event.message}]"
        state.messages.append(ChatMessageAssistant(content=note, model=model))
        state.output = ModelOutput.from_content(model=model, content="", error=note)


def _sample_tools() -> list[InspectTool]:
    # The running sample's state is Inspect's internal; without it there are no tools.
    try:
        from inspect_ai.solver._task_state import sample_state
    except ImportError:  # pragma: no cover - a future Inspect moved it
        return []
    sample = sample_state()
    return list(sample.tools) if sample is not None else []
