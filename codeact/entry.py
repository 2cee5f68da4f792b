"""The ``codeact`` console script (and ``python -m codeact``): it takes charge of Ctrl-C
and SIGTERM first, then imports the command line, which takes about half a second, and
runs it (see :mod:`codeact.interrupts`)."""

from __future__ import annotations

from codeact import interrupts


def main() -> int:
    """Run the ``codeact`` command with this process's arguments; its exit status."""
    interrupts.take_signals()
    # Imported here, after the handlers: a signal during these imports ends the
    # command with its status instead of a KeyboardInterrupt traceback.
    from codeact.cli import main as command

    return interrupts.run_command(command)
