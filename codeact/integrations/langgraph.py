"""LangGraph CodeAct: :func:`eval_fn`, the sandbox as ``create_codeact``'s ``eval_fn``.

``langgraph_codeact.create_codeact(model, tools, eval_fn)`` calls
``eval_fn(code, _locals)`` for each script the model writes; ``_locals`` holds the tools
(``tool.func`` of each) and the variables earlier scripts left, and the function returns
what the script printed and the variables it bound, which LangGraph keeps in the graph's
state. Here:

- each call runs in a fresh session of ``sandbox`` (nothing is shared between threads
  or conversations but what the state carries);
- the callables of ``_locals`` are host functions the script calls over the worker's
  channel: the tools run in the caller's process, their arguments and result as JSON;
- the other values are bound in the script's globals (JSON values; another kind raises
  ``TypeError`` naming it);
- the variables the script binds at its top level come back when their values are JSON
  data; functions, classes and other objects stay in the worker, and are gone with it.

The output is what the script printed; a failed script adds its error (a traceback of
the script's own lines, or the limit it hit), and a script that ends with
``final_result(value)`` or ``observation(value)`` adds that value as JSON. Variables
that cannot be read back (together over the policy's ``result_bytes``) are named as
lost in the output.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, overload

from codeact.integrations.variables import assignments, bound_names, read_back
from sandbox import AsyncSandbox, Execution, Sandbox

__all__ = ["EvalCoroutine", "EvalFunction", "eval_fn"]

EvalFunction = Callable[[str, dict[str, Any]], tuple[str, dict[str, Any]]]
EvalCoroutine = Callable[[str, dict[str, Any]], Awaitable[tuple[str, dict[str, Any]]]]

#: What the output says when the script printed nothing (as LangGraph CodeAct's own).
NO_OUTPUT = "<code ran, no output printed to stdout>"


@overload
def eval_fn(sandbox: Sandbox) -> EvalFunction: ...
@overload
def eval_fn(sandbox: AsyncSandbox) -> EvalCoroutine: ...
def eval_fn(sandbox: Sandbox | AsyncSandbox) -> EvalFunction | EvalCoroutine:
    """The ``eval_fn`` for ``create_codeact``: synchronous for a :class:`~sandbox.Sandbox`,
    a coroutine function for an :class:`~sandbox.AsyncSandbox` (for ``ainvoke``)."""
    if isinstance(sandbox, AsyncSandbox):
        return _async_eval(sandbox)
    return _sync_eval(sandbox)


def _sync_eval(sandbox: Sandbox) -> EvalFunction:
    def evaluate(code: str, _locals: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        tools, scripts = _split(_locals, sandbox.policy.limits.source_bytes)
        with sandbox.session(tools) as session:
            for script in scripts:
                _assigned(session.run(script))
            execution = session.run(code)
            kept = session.run(read_back(_names(code, tools)))
        return _result(execution, kept)

    return evaluate


def _async_eval(sandbox: AsyncSandbox) -> EvalCoroutine:
    async def evaluate(code: str, _locals: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        tools, scripts = _split(_locals, sandbox.policy.limits.source_bytes)
        async with sandbox.session(tools) as session:
            for script in scripts:
                _assigned(await session.run(script))
            execution = await session.run(code)
            kept = await session.run(read_back(_names(code, tools)))
        return _result(execution, kept)

    return evaluate


def _split(
    context: Mapping[str, Any], max_bytes: int
) -> tuple[dict[str, Callable[..., Any]], list[str]]:
    tools = {name: value for name, value in context.items() if callable(value)}
    variables = {name: value for name, value in context.items() if not callable(value)}
    return tools, assignments(variables, max_bytes)


def _names(code: str, tools: Mapping[str, Any]) -> list[str]:
    return [name for name in bound_names(code) if name not in tools]


def _assigned(execution: Execution) -> None:
    if execution.output.type == "error":
        raise RuntimeError(f"the variables could not be set: {execution.output.message}")


def _described(execution: Execution) -> str:
    parts = [execution.stdout] if execution.stdout else []
    output = execution.output
    if output.type == "error":
        parts.append(f"Error during execution: {output.message}")
    elif output.type in ("final_result", "observation") and output.value != execution.stdout:
        parts.append(f"Result: {json.dumps(output.value, ensure_ascii=False)}")
    return "\n".join(part.rstrip("\n") for part in parts) or NO_OUTPUT


def _result(execution: Execution, kept: Execution) -> tuple[str, dict[str, Any]]:
    output = _described(execution)
    if kept.output.type == "observation" and isinstance(kept.output.value, dict):
        return output, dict(kept.output.value)
    # The variables could not be read back (over the result size limit, say): say so,
    # rather than have the next script find them missing without a word.
    reason = kept.output.message if kept.output.type == "error" else kept.output.type
    note = f"Note: this script's variables were not kept for the next one: {reason}"
    return (note if output == NO_OUTPUT else f"{output}\n{note}"), {}
