"""The script's ``sys``, its output streams and ``contextlib.redirect_stdout``.

``sys`` is a proxy with exactly these members: ``maxsize``, ``float_info``,
``int_info``, ``version_info``, ``version``, ``byteorder``, ``argv`` (empty),
``getrecursionlimit``, ``setrecursionlimit`` (capped at the policy's
``recursion_depth``) and ``stdout``/``stderr``, whose ``write`` goes to the run's
captured output. Never ``modules``, ``_getframe``, ``settrace``, ``meta_path`` or the
real streams and their file descriptors.

While a script runs, the interpreter's own ``sys.stdout``/``sys.stderr`` are these
streams too, so that library code that prints (``pprint.pprint``,
``calendar.prmonth``) prints into the captured output.

Worker side: standard library only.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

_state: dict[str, Any] = {
    "write": None,
    "limit": 200,
    "cap": 200,
    # The targets of ``redirect_stdout``/``redirect_stderr`` while one is active.
    "stdout": None,
    "stderr": None,
}


def _discard(text: str) -> None:
    raise ValueError("I/O operation on a stream outside a script run")


def bind(write: Callable[[str], None], recursion_depth: int) -> None:
    """Route the streams to ``write`` (the runtime's capture); set the recursion cap."""
    _state.update(write=write, limit=int(recursion_depth), cap=int(recursion_depth))


def reset_redirects() -> None:
    """Forget redirections left by an earlier run."""
    _state.update(stdout=None, stderr=None)


def emit(text: str, stream: str = "stdout") -> None:
    """Write ``text`` (an exact str) where the script's ``stream`` currently goes."""
    target = _state[stream]
    if target is not None:
        target.write(text)
    else:
        (_state["write"] or _discard)(text)


class ScriptStream:
    """``sys.stdout``/``sys.stderr`` for a script: text goes to the captured output."""

    __slots__ = ("_name",)
    _name: str

    encoding = "utf-8"
    errors = "strict"

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"'{self._name}' is read-only")

    def write(self, text: Any, /) -> int:
        """Write ``text`` (a str) to the run's output; return its length."""
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        text = str.__str__(text)  # an exact copy: a subclass cannot change what is counted
        emit(text, self._name)
        return len(text)

    def writelines(self, lines: Iterable[Any], /) -> None:
        """Write each string of ``lines``."""
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        """Nothing to flush: the output is captured as it is written."""

    def isatty(self) -> bool:
        """Never a terminal."""
        return False

    def writable(self) -> bool:
        """Always writable."""
        return True

    def __repr__(self) -> str:
        return f"<_io.TextIOWrapper name='<{self._name}>' mode='w' encoding='utf-8'>"


STDOUT = ScriptStream("stdout")
STDERR = ScriptStream("stderr")


def getrecursionlimit() -> int:
    """The script's recursion limit (the policy's ``recursion_depth`` at most)."""
    return int(_state["limit"])


def setrecursionlimit(limit: int, /) -> None:
    """Set the recursion limit; values above the policy's ``recursion_depth`` are capped."""
    if not isinstance(limit, int):
        raise TypeError(f"'{type(limit).__name__}' object cannot be interpreted as an integer")
    limit = int(int.__index__(limit))
    if limit < 1:
        raise ValueError("recursion limit must be greater or equal than 1")
    wanted = min(limit, int(_state["cap"]))
    margin = max(sys.getrecursionlimit() - int(_state["limit"]), 0)
    sys.setrecursionlimit(wanted + margin)
    _state["limit"] = wanted


def sys_members() -> dict[str, Any]:
    """The members of the script's ``sys``."""
    return {
        "maxsize": sys.maxsize,
        "float_info": sys.float_info,
        "int_info": sys.int_info,
        "version_info": sys.version_info,
        "version": sys.version,
        "byteorder": sys.byteorder,
        "platform": sys.platform,
        "argv": [],
        "getrecursionlimit": getrecursionlimit,
        "setrecursionlimit": setrecursionlimit,
        "stdout": STDOUT,
        "stderr": STDERR,
    }


def _redirect(stream: str, target: Any) -> Iterator[Any]:
    saved = _state[stream]
    _state[stream] = target
    try:
        yield target
    finally:
        _state[stream] = saved


@contextmanager
def redirect_stdout(new_target: Any) -> Iterator[Any]:
    """Send what the script prints to ``new_target.write`` meanwhile."""
    yield from _redirect("stdout", new_target)


@contextmanager
def redirect_stderr(new_target: Any) -> Iterator[Any]:
    """Send what the script writes to ``sys.stderr`` to ``new_target.write`` meanwhile."""
    yield from _redirect("stderr", new_target)


@contextmanager
def swapped_streams() -> Iterator[None]:
    """The interpreter's ``sys.stdout``/``stderr`` are the script's streams meanwhile."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = STDOUT, STDERR
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
