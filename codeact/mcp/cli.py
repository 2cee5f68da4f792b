"""``codeact mcp serve``: the sandbox as an MCP server for any MCP client."""

from __future__ import annotations

import argparse
import asyncio
import sys

from sandbox import PolicyError, SandboxPolicy


def add_mcp_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``mcp serve``."""
    parser = subparsers.add_parser("mcp", help="the sandbox as an MCP server")
    commands = parser.add_subparsers(dest="mcp_command", required=True)
    serve = commands.add_parser(
        "serve",
        help="serve run_python over MCP",
        description="An MCP server with a run_python tool (and named sessions) that runs "
        "scripts in this sandbox.",
    )
    serve.add_argument("--policy", default="default", help="strict, default or a policy file")
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument("--host", default="127.0.0.1", help="address for --transport http")
    serve.add_argument("--port", type=int, default=8000, help="port for --transport http")
    serve.add_argument("--max-sessions", type=int, default=16, metavar="N")
    serve.add_argument(
        "--idle-timeout", type=float, default=600.0, metavar="SECONDS",
        help="end a named session after this long without a call",
    )
    serve.set_defaults(handler=run_serve)


def run_serve(args: argparse.Namespace) -> int:
    """Carry out ``codeact mcp serve``."""
    try:
        import mcp.server  # noqa: F401  (the SDK is imported only once serving starts)

        from codeact.mcp.serve import serve
    except ImportError as exc:
        print(f"codeact mcp serve: needs the MCP SDK (pip install 'codeact[mcp]'): {exc}",
              file=sys.stderr)
        return 2
    if args.max_sessions < 1 or args.idle_timeout <= 0:
        print("codeact mcp serve: --max-sessions and --idle-timeout must be positive",
              file=sys.stderr)
        return 2
    try:
        policy = SandboxPolicy.load(args.policy)
    except PolicyError as exc:
        print(f"codeact mcp serve: {exc}", file=sys.stderr)
        return 2
    asyncio.run(
        serve(
            policy,
            transport=args.transport,
            host=args.host,
            port=args.port,
            max_sessions=args.max_sessions,
            idle_s=args.idle_timeout,
        )
    )
    return 0
