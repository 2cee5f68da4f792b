"""The exceptions of a run, and the one way a failure is put into words.

``AgentRunFailed`` is what ``Agent.run`` raises; ``RunEnded`` ends a run from inside the
loop with a failure code; ``MCPConnectionError`` is an MCP server that could not be used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codeact.events import FailureCode
    from codeact.output import AgentOutput


class AgentRunFailed(RuntimeError):
    """A run ended without a final result; ``output`` holds what it did."""

    def __init__(self, output: AgentOutput[Any]) -> None:
        assert output.failure is not None
        super().__init__(f"{output.failure.code}: {output.failure.message}")
        self.code = output.failure.code
        self.output = output


class RunEnded(Exception):
    """Raised inside the loop to end the run with a failure code."""

    def __init__(self, code: FailureCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class MCPConnectionError(RuntimeError):
    """An MCP server could not be started, reached or listed; the message says which and why."""


def describe_exception(exc: BaseException) -> str:
    """``Type: message`` of ``exc``, even when its ``__str__`` raises."""
    try:
        text = str(exc)
    except Exception:
        text = "(its message could not be rendered)"
    name = type(exc).__qualname__
    return f"{name}: {text}" if text else name
