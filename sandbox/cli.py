"""``codeact exec``: run one script in a fresh session and report the Execution.

Exit status: 0 whenever an Execution was produced (whatever the script did), 2 for bad
usage (message on stderr), 3 when the sandbox itself failed.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from sandbox.errors import PolicyError, SandboxError
from sandbox.execution import Execution
from sandbox.host.sandbox import Sandbox
from sandbox.policy import SandboxPolicy

EXIT_OK, EXIT_USAGE, EXIT_SANDBOX = 0, 2, 3


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``exec`` on the top-level parser."""
    parser = subparsers.add_parser(
        "exec",
        help="run one script in a fresh sandbox session",
        description="Run a Python script under a sandbox policy and print its Execution.",
    )
    parser.add_argument("file", help="the script to run, or - for standard input")
    parser.add_argument(
        "--policy",
        default="default",
        help="strict, default, data, or a .toml/.json policy file (default: default)",
    )
    parser.add_argument(
        "--allow-module",
        action="append",
        default=[],
        metavar="NAME",
        help="also allow importing NAME (any installed module, pkg.* or *; repeatable)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        metavar="SECONDS",
        help="wall-clock limit per run, overriding the policy",
    )
    parser.add_argument(
        "--memory-mb",
        type=int,
        metavar="N",
        help="memory limit of the worker, overriding the policy",
    )
    parser.add_argument(
        "--json", action="store_true", help="print exactly one JSON object: the Execution"
    )
    parser.set_defaults(handler=run_exec)


def _read_source(name: str) -> str:
    if name == "-":
        return sys.stdin.read()
    return Path(name).read_text(encoding="utf-8")


def run_exec(args: argparse.Namespace) -> int:
    """Carry out ``codeact exec``; returns the exit status."""
    try:
        source = _read_source(args.file)
    except (OSError, UnicodeDecodeError) as exc:
        print(f"codeact exec: cannot read {args.file}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        policy = SandboxPolicy.load(args.policy)
        if args.allow_module:
            policy = policy.allow_modules(*args.allow_module)
        overrides = {}
        if args.timeout is not None:
            overrides["wall_s"] = args.timeout
        if args.memory_mb is not None:
            overrides["memory_mb"] = args.memory_mb
        if overrides:
            policy = policy.with_limits(**overrides)
    except PolicyError as exc:
        print(f"codeact exec: {exc}", file=sys.stderr)
        return EXIT_USAGE
    try:
        with Sandbox(policy, spares=0) as sandbox, sandbox.session() as session:
            execution = session.run(source)
    except PolicyError as exc:  # found when the sandbox starts, e.g. a missing mount
        print(f"codeact exec: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SandboxError as exc:
        print(f"codeact exec: the sandbox failed: {exc}", file=sys.stderr)
        return EXIT_SANDBOX
    if args.json:
        print(execution.model_dump_json())
    else:
        print(render(execution))
    return EXIT_OK


def render(execution: Execution) -> str:
    """A readable summary of an Execution."""
    output = execution.output
    status = "ok" if execution.ok else f"failed ({execution.error_code})"
    lines = [f"status: {status}"]
    if output.type == "error":
        lines.append("error:")
        lines.extend("  " + line for line in output.message.splitlines())
    elif output.type == "transfer_to_agent":
        lines.append(f"transfer to agent: {output.agent_name}")
    else:
        value = json.dumps(output.value, ensure_ascii=False, indent=2)
        lines.append(f"{output.type.replace('_', ' ')}: {value}")
    if execution.stdout and not (output.type == "observation" and output.value == execution.stdout):
        lines.append("printed:")
        lines.extend("  " + line for line in execution.stdout.splitlines())
        if execution.stdout_truncated:
            lines.append("  [output truncated]")
    lines.extend(
        f"wrote: {f.path} ({f.size} bytes{', new' if f.created else ''})" for f in execution.files
    )
    calls = len(execution.tool_calls)
    lines.append(
        f"took {execution.duration_s * 1000:.1f} ms wall, {execution.cpu_s * 1000:.1f} ms CPU, "
        f"peak memory {execution.peak_memory_bytes / 1e6:.0f} MB, "
        f"{calls} tool call{'s' if calls != 1 else ''}"
    )
    return "\n".join(lines)
