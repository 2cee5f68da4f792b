"""How the ``codeact`` command ends on Ctrl-C (status 130) and SIGTERM (status 143),
whenever it comes, with one line and no traceback.

Three phases, each with its own handlers:

- **starting** (:func:`take_signals`, the first thing ``codeact/cli.py`` does, before
  its heavy imports): nothing is running yet, so a signal ends the process at once;
- **running** (:func:`running`): SIGINT raises ``KeyboardInterrupt`` (inside
  ``asyncio.run``, asyncio's own handler cancels the run first), and SIGTERM is handled
  as a SIGINT, so the same clean-up stops every sandbox; the status says which came;
- **ending** (:func:`ending`): the command's work is over, and a signal during the
  interpreter's shutdown ends it at once (143 or 130).

Standard library only: it is imported before everything else.
"""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143
_terminated = False


def _say(text: str) -> None:
    try:
        os.write(2, text.encode())
    except OSError:
        pass


def _exit_now(signum: int, frame: FrameType | None) -> None:
    _say("codeact: interrupted\n")
    os._exit(EXIT_TERMINATED if signum == signal.SIGTERM else EXIT_INTERRUPTED)


def take_signals() -> None:
    """Phase one: a signal ends the process at once (nothing was started yet)."""
    signal.signal(signal.SIGINT, _exit_now)
    signal.signal(signal.SIGTERM, _exit_now)
    sys.unraisablehook = _quiet_interrupts(sys.unraisablehook)


def _sigterm_as_sigint(signum: int, frame: FrameType | None) -> None:
    global _terminated
    _terminated = True
    signal.raise_signal(signal.SIGINT)


def running() -> None:
    """Phase two: the command runs; a signal unwinds it through its clean-up."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _sigterm_as_sigint)


def interrupted_status() -> int:
    """The status of a command a signal stopped: 143 after SIGTERM, else 130."""
    return EXIT_TERMINATED if _terminated else EXIT_INTERRUPTED


def ending() -> None:
    """Phase three: the command is done; a signal during the interpreter's shutdown
    ends the process at once, with 143 or 130."""
    signal.signal(signal.SIGINT, _exit_quietly)
    signal.signal(signal.SIGTERM, _exit_quietly)


def _exit_quietly(signum: int, frame: FrameType | None) -> None:
    os._exit(EXIT_TERMINATED if _terminated or signum == signal.SIGTERM else EXIT_INTERRUPTED)


def run_command(command: Callable[[list[str]], int]) -> int:
    """Run ``command`` on this process's arguments in the running phase, then enter the
    ending phase; its status, or 130/143 when a signal stopped it."""
    try:
        try:
            running()
            status = command(sys.argv[1:])
        finally:
            ending()
    except KeyboardInterrupt:  # it came before the command's own handling, or after it
        ending()
        _say("codeact: interrupted\n")
        status = interrupted_status()
    return status


def _quiet_interrupts(hook: Any) -> Any:
    """An unraisable-exception hook that leaves out the interrupt itself: a signal that
    lands in a finalizer would otherwise print a traceback."""

    def quiet(unraisable: Any) -> None:
        if not isinstance(unraisable.exc_value, KeyboardInterrupt):
            hook(unraisable)

    return quiet
