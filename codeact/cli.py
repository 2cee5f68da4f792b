"""The ``codeact`` command: dispatches to its subcommands."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from sandbox import cli as sandbox_cli


def build_parser() -> argparse.ArgumentParser:
    """The top-level parser with every subcommand registered."""
    parser = argparse.ArgumentParser(
        prog="codeact", description="Agents that act by writing Python, run in a sandbox."
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    sandbox_cli.add_parser(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``codeact`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "handler", None) is None:
        parser.print_help(sys.stderr)
        return 2
    return int(args.handler(args))


if __name__ == "__main__":
    sys.exit(main())
