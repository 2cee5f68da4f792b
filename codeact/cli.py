"""The ``codeact`` command: ``codeact run`` (an agent) and ``codeact exec`` (one script).

``codeact run`` exits 0 when the run produced a final result, 1 when the run failed,
2 for bad usage, 3 when the sandbox itself failed; every command exits 130 on Ctrl-C,
143 on SIGTERM (:mod:`codeact.interrupts`) and 141, quietly, when the reader of its
output went away (``| head``).
"""

from __future__ import annotations

from codeact import interrupts

if __name__ == "__main__":  # ``python -m codeact.cli``: the signals before the imports below
    interrupts.take_signals()

import argparse
import asyncio
import importlib
import logging
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from codeact import __version__
from codeact.agent import Agent
from codeact.cli_approval import Decide, decide_all, decider, describe_decisions
from codeact.errors import describe_exception
from codeact.events import FailureCode, InteractionRequired
from codeact.mcp.cli import add_mcp_parser
from codeact.mcp.client import MCPServer, server_from_string
from codeact.models import ModelError, model_from_string
from codeact.transcript import Transcript
from sandbox import PolicyError, SandboxPolicy, policy_cli
from sandbox import cli as sandbox_cli
from sandbox.cli import not_utf8

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_SANDBOX = 0, 1, 2, 3
#: What shells report for a process ended by Ctrl-C (128 + SIGINT) and for one whose
#: output pipe was closed (128 + SIGPIPE).
EXIT_INTERRUPTED, EXIT_PIPE_CLOSED = 130, 141
_log = logging.getLogger("codeact.cli")


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
    except Exception as exc:  # the module's own code may raise anything while importing
        raise UsageError(
            f"--tools {spec!r}: cannot import {module_name!r}: {describe_exception(exc)}"
        ) from None
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
    parser.add_argument(
        "--approve-file",
        metavar="PATH",
        help="take the decisions from PATH (- for standard input), one line per script: "
        "y or yes runs it, anything else refuses it with that line as the reason",
    )
    parser.add_argument(
        "--mcp",
        action="append",
        default=[],
        metavar="COMMAND|URL",
        help="an MCP server whose tools scripts may call: a command line to start "
        "(\"python server.py\") or a streamable-HTTP URL (repeatable)",
    )
    parser.add_argument(
        "--save-images",
        metavar="DIR",
        type=Path,
        help="save the images scripts show (plt.show(), display()) in DIR, as stepN-K.png",
    )
    parser.add_argument("--json", action="store_true", help="print the AgentOutput as JSON")
    parser.set_defaults(handler=run_agent)


def _mcp_server(spec: str) -> MCPServer:
    if not spec.strip():
        raise UsageError("--mcp needs a command line or an http(s):// URL")
    try:
        return server_from_string(spec)
    except ValueError as exc:
        raise UsageError(f"--mcp {spec!r}: {exc}") from None


def _text_argument(value: str, what: str) -> str:
    """A command-line text that goes to the model: valid UTF-8, else bad usage."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise UsageError(f"{what} is {not_utf8(exc)}") from None
    return value


def run_agent(args: argparse.Namespace) -> int:
    """Carry out ``codeact run``."""
    try:
        if not _text_argument(args.task, "TASK").strip():
            raise UsageError("TASK is empty: say what the agent should do")
        _text_argument(args.instructions, "--instructions")
        _text_argument(args.name, "--name")
        decide = decider(args.approve_file, approve=args.approve)
        tools = [fn for spec in args.tools for fn in load_tool(spec)]
        model = model_from_string(args.model)
        agent = Agent(
            args.name,
            model,
            args.instructions,
            tools,
            max_steps=args.max_steps,
            policy=SandboxPolicy.load(args.policy).allow_modules(*args.allow_module),
            approval="never" if decide is None else "scripts",
            mcp_servers=[_mcp_server(spec) for spec in args.mcp],
        )
        agent.policy.worker_config()  # checks the mounts' directories before the run
        if args.save_images is not None:
            args.save_images.mkdir(parents=True, exist_ok=True)
    except PolicyError as exc:
        named = str(exc) if args.policy in str(exc) else f"--policy {args.policy}: {exc}"
        print(f"codeact run: {named}", file=sys.stderr)
        return EXIT_USAGE
    except (UsageError, ModelError, ValueError, TypeError, OSError) as exc:
        print(f"codeact run: {exc}", file=sys.stderr)
        return EXIT_USAGE
    transcript = Transcript(_write, args.save_images, quiet=args.json)
    return asyncio.run(_run(agent, args.task, transcript, as_json=args.json, decide=decide))


def _write(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()  # the model's reply shows as it arrives


async def _run(
    agent: Agent[Any], task: str, transcript: Transcript, *, as_json: bool, decide: Decide | None
) -> int:
    stream = agent.stream(task)
    try:
        async for event in stream:
            if isinstance(event, InteractionRequired) and decide is not None:
                answer = await asyncio.to_thread(decide_all, event, decide)
                for line in describe_decisions(event, answer):
                    transcript.line(line)
                stream.submit(answer)
            else:
                transcript.show(event)
    finally:
        await stream.aclose()
    output = stream.output()
    if as_json:
        print(output.model_dump_json(indent=2))
    if output.failure is None:
        return EXIT_OK
    return EXIT_SANDBOX if output.failure.code == FailureCode.SANDBOX_FAILED else EXIT_FAILED


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="codeact", description="Agents that act by writing Python, run in a sandbox."
    )
    parser.add_argument("--version", action="version", version=f"codeact {__version__}")
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="log to stderr: -v what the run does (INFO), -vv in detail (DEBUG)",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    add_run_parser(subparsers)
    sandbox_cli.add_parser(subparsers)
    policy_cli.add_parser(subparsers)
    add_mcp_parser(subparsers)
    from codeact.bench import cli as bench_cli

    bench_cli.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """The ``codeact`` command with ``argv``; its exit status (see ``docs/guide/cli.md``).

    Every way out is a status and at most a line on stderr: an unexpected error is
    ``internal error: Type: message`` with status 1 (``-vv`` logs its traceback).
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    _configure_logging(args.verbose)
    if getattr(args, "handler", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        status = int(args.handler(args))
        sys.stdout.flush()  # here, where a closed pipe is caught, not at interpreter exit
        return status
    except KeyboardInterrupt:
        # The sandboxes were closed on the way out: nothing is left running.
        print("codeact: interrupted", file=sys.stderr)
        return interrupts.interrupted_status()
    except BrokenPipeError:
        # The reader went away (``| head``): the run was cancelled on the way out. Point
        # stdout at /dev/null so the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_PIPE_CLOSED
    except Exception as exc:
        _log.debug("the command failed", exc_info=True)
        print(f"codeact {args.command}: internal error: {describe_exception(exc)}",
              file=sys.stderr)  # fmt: skip
        return EXIT_FAILED


def _configure_logging(verbose: int) -> None:
    if verbose:
        logging.basicConfig(
            level=logging.DEBUG if verbose > 1 else logging.INFO,
            stream=sys.stderr,
            format="%(asctime)s %(name)s %(levelname)s %(message)s",
        )
    else:  # warnings still reach the user (a log line dropped, a mechanism degraded)
        logging.basicConfig(
            level=logging.WARNING, stream=sys.stderr, format="%(name)s: %(message)s"
        )


if __name__ == "__main__":
    sys.exit(interrupts.run_command(main))
