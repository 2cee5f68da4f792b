"""The ``codeact`` command: ``codeact run`` (an agent) and ``codeact exec`` (one script).

``codeact run`` exits 0 when the run produced a final result, 1 when the run failed,
2 for bad usage, 3 when the sandbox itself failed.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any

from codeact.agent import Agent
from codeact.events import (
    AgentEvent,
    Completed,
    Decision,
    Failed,
    FailureCode,
    InteractionRequired,
    ModelReplied,
    ScriptExecuted,
    SubmitInteraction,
    Transferred,
)
from codeact.models import ModelError, model_from_string
from sandbox import PolicyError, SandboxPolicy, policy_cli
from sandbox import cli as sandbox_cli

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SANDBOX = 0, 1, 2, 3
#: What shells report for a process ended by Ctrl-C (128 + SIGINT).
EXIT_INTERRUPTED = 130
_FENCED = re.compile(r"```.*?(```|$)", re.S)


class UsageError(Exception):
    """Bad command-line input; the message is shown on stderr."""


def load_tool(spec: str) -> list[Callable[..., Any]]:
    """``MODULE:ATTR`` → the host function(s) it names (a list or dict of them works too)."""
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise UsageError(f"--tools {spec!r}: expected MODULE:ATTR, e.g. mytools:find_flights")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise UsageError(f"--tools {spec!r}: cannot import {module_name!r}: {exc}") from None
    try:
        value = getattr(module, attr)
    except AttributeError:
        raise UsageError(f"--tools {spec!r}: {module_name!r} has no attribute {attr!r}") from None
    items = (
        list(value.values())
        if isinstance(value, dict)
        else (list(value) if isinstance(value, (list, tuple)) else [value])
    )
    for item in items:
        if not callable(item):
            raise UsageError(f"--tools {spec!r}: {item!r} is not callable")
    return items


def add_run_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``run``."""
    parser = subparsers.add_parser(
        "run",
        help="run an agent on a task",
        description="Run a CodeAct agent on TASK and show each step as it happens.",
    )
    parser.add_argument("task", help="the task, in words")
    parser.add_argument(
        "--model",
        required=True,
        help="openai:MODEL, anthropic:MODEL, openai-compatible:MODEL@URL or scripted:PATH",
    )
    parser.add_argument(
        "--policy", default="default", help="strict, default, data or a policy file"
    )
    parser.add_argument(
        "--allow-module",
        action="append",
        default=[],
        metavar="NAME",
        help="also allow importing NAME (any installed module, pkg.* or *; repeatable)",
    )
    parser.add_argument("--max-steps", type=int, default=10, metavar="N")
    parser.add_argument(
        "--tools",
        action="append",
        default=[],
        metavar="MODULE:ATTR",
        help="a host function to offer (repeatable; the current directory is importable)",
    )
    parser.add_argument("--name", default="agent", help="the agent's name (default: agent)")
    parser.add_argument("--instructions", default="", help="the agent's own instructions")
    parser.add_argument(
        "--approve", action="store_true", help="ask at the terminal before each script runs"
    )
    parser.add_argument("--json", action="store_true", help="print the AgentOutput as JSON")
    parser.set_defaults(handler=run_agent)


def run_agent(args: argparse.Namespace) -> int:
    """Carry out ``codeact run``."""
    try:
        tools = [fn for spec in args.tools for fn in load_tool(spec)]
        model = model_from_string(args.model)
        agent = Agent(
            args.name,
            model,
            args.instructions,
            tools,
            max_steps=args.max_steps,
            policy=SandboxPolicy.load(args.policy).allow_modules(*args.allow_module),
            approval="scripts" if args.approve else "never",
        )
    except (UsageError, PolicyError, ModelError, ValueError, TypeError, OSError) as exc:
        print(f"codeact run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    return asyncio.run(_run(agent, args.task, as_json=args.json, ask=args.approve))


async def _run(agent: Agent, task: str, *, as_json: bool, ask: bool) -> int:
    stream = agent.stream(task)
    show = (lambda text: None) if as_json else print
    try:
        async for event in stream:
            if isinstance(event, InteractionRequired):
                stream.submit(await asyncio.to_thread(_ask_terminal, event, ask))
            else:
                show(describe(event))
    finally:
        await stream.aclose()
    output = stream.output()
    if as_json:
        print(output.model_dump_json(indent=2))
    if output.failure is None:
        return EXIT_OK
    return EXIT_SANDBOX if output.failure.code == FailureCode.SANDBOX_FAILED else EXIT_FAILED


def _ask_terminal(event: InteractionRequired, interactive: bool) -> SubmitInteraction:
    decisions = []
    for action in event.actions:
        if not interactive or not sys.stdin.isatty():
            decisions.append(
                Decision(
                    action_id=action.id, proceed=False, reason="no terminal to ask for approval"
                )
            )
            continue
        what = (
            action.source
            if action.kind == "script"
            else f"{action.tool}({json.dumps(action.arguments)})"
        )
        print(f"\n--- approve this {action.kind.replace('_', ' ')}? ---\n{what}", file=sys.stderr)
        answer = input("run it? [y/N, or a reason to refuse] ").strip()
        proceed = answer.lower() in ("y", "yes")
        decisions.append(
            Decision(
                action_id=action.id,
                proceed=proceed,
                reason=None if proceed else (answer or "refused"),
            )
        )
    return SubmitInteraction(batch_id=event.batch_id, decisions=decisions)


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def describe(event: AgentEvent) -> str:
    """One event, readable in a terminal."""
    if isinstance(event, ModelReplied):
        parts = [f"── step {event.step} · {event.agent} ──"]
        if event.thinking:
            parts.append("thinking:\n" + _indent(event.thinking))
        prose = _FENCED.sub("", event.content).strip()
        if prose:
            parts.append(_indent(prose, "  "))
        return "\n".join(parts)
    if isinstance(event, ScriptExecuted):
        text = f"script:\n{_indent(event.source)}\n{_indent(event.feedback, '  │ ')}"
        return text + "".join(
            f"\n  wrote {f.path} ({f.size} bytes{', new' if f.created else ''})"
            for f in event.execution.files
        )
    if isinstance(event, Transferred):
        return f"→ transferred from {event.from_agent} to {event.to_agent}"
    if isinstance(event, Completed):
        value = (
            event.result
            if isinstance(event.result, str)
            else json.dumps(event.result, ensure_ascii=False, indent=2)
        )
        return f"══ final result ══\n{value}\n({event.usage.one_line()})"
    if isinstance(event, Failed):
        return f"══ failed ({event.code}) ══\n{event.message}\n({event.usage.one_line()})"
    return f"run {event.run_id} started: {event.agent}" if event.type == "started" else ""


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="codeact", description="Agents that act by writing Python, run in a sandbox."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_run_parser(subparsers)
    sandbox_cli.add_parser(subparsers)
    policy_cli.add_parser(subparsers)
    from codeact.bench import cli as bench_cli

    bench_cli.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``codeact`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return int(args.handler(args))
    except KeyboardInterrupt:
        # The sandboxes were closed on the way out: nothing is left running.
        print("codeact: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
