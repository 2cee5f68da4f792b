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


class InputError(ValueError):
    """A file or standard input that cannot be read as UTF-8 text; the message says why."""


def read_text(name: str) -> str:
    """The UTF-8 text of the file ``name``, or of standard input for ``-``: the same
    rules for both (strict UTF-8, whatever the locale), `InputError` saying why not."""
    where = "standard input" if name == "-" else name
    try:
        if name == "-":
            if sys.stdin is None:
                raise InputError("cannot read standard input: it is closed")
            data = sys.stdin.buffer.read()
        else:
            data = Path(name).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {where}: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read {where}: {not_utf8(exc)}") from None


def not_utf8(exc: UnicodeDecodeError | UnicodeEncodeError) -> str:
    """``not valid UTF-8 (byte 0xe9 at position 3)`` for a decode or encode error."""
    raw = exc.object
    if isinstance(raw, str):  # undecodable bytes kept as lone surrogates (argv, paths)
        try:
            raw = raw[exc.start : exc.end].encode("utf-8", "surrogateescape")
        except UnicodeEncodeError:
            return f"not valid Unicode (a lone surrogate at position {exc.start})"
        return f"not valid UTF-8 (byte 0x{raw[0]:02x} at position {exc.start})"
    return f"not valid UTF-8 (byte 0x{raw[exc.start]:02x} at position {exc.start})"


def run_exec(args: argparse.Namespace) -> int:
    """Carry out ``codeact exec``; returns the exit status."""
    try:
        source = read_text(args.file)
    except InputError as exc:
        print(f"codeact exec: {exc}", file=sys.stderr)
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
