"""Tracebacks as a script sees them: only its own lines, the message cut to a size.

Worker side: standard library only.
"""

from __future__ import annotations

from types import TracebackType

MAX_MESSAGE_CHARS = 4000


def shorten(text: str, limit: int = MAX_MESSAGE_CHARS) -> str:
    """Cut ``text`` in the middle so that both its start and its end survive."""
    if len(text) <= limit:
        return text
    half = (limit - 40) // 2
    return f"{text[:half]}\n... [{len(text) - 2 * half} characters cut] ...\n{text[-half:]}"


def script_traceback(exc: BaseException, sources: dict[str, list[str]]) -> str:
    """The traceback of ``exc`` through the files in ``sources`` (their lines) only."""
    lines = ["Traceback (most recent call last):"]
    tb: TracebackType | None = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        source = sources.get(code.co_filename)
        if source is not None:
            where = "<module>" if code.co_name == "<module>" else code.co_name
            lines.append(f'  File "{code.co_filename}", line {tb.tb_lineno}, in {where}')
            if 0 < tb.tb_lineno <= len(source):
                lines.append("    " + source[tb.tb_lineno - 1].strip())
        tb = tb.tb_next
    try:
        message = str(exc)
    except BaseException:  # a script's own __str__ may fail in any way
        message = "<exception message could not be rendered>"
    name = type(exc).__name__
    lines.append(shorten(f"{name}: {message}" if message else name))
    if len(lines) > 60:
        lines = [*lines[:20], f"  ... {len(lines) - 41} lines cut ...", *lines[-21:]]
    return "\n".join(lines)
