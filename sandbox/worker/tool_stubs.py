"""A host tool as the script sees it: a plain function that sends the call and returns its reply.

Worker side: standard library only.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

from sandbox.protocol import CallFrame, Op, ResultFrame, ToolFailure
from sandbox.worker.language.callables import renamed
from sandbox.worker.language.control import ToolError
from sandbox.worker.language.jsonsafe import NotJsonable, to_json
from sandbox.worker.language.script_asyncio import in_script_loop, reply_of, resolved

if TYPE_CHECKING:
    from sandbox.worker.tool_channel import ToolChannel

_TOOL_EXCEPTIONS = {
    name: value
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, Exception) and not name.startswith("_")
}


def tool_stub(
    name: str,
    admit: Callable[[], None],
    call_host: Callable[[CallFrame], ResultFrame],
    channel: ToolChannel | None,
) -> Callable[..., Any]:
    """The function bound to ``name`` in the script's globals; ``admit`` raises unless
    the run may make one more call (it has ended, or is at its tool-call limit)."""

    def tool(*args: Any, **kwargs: Any) -> Any:
        admit()
        try:
            request: CallFrame = {
                "op": Op.CALL,
                "id": 0,  # numbered by the tool channel as it sends the call
                "name": name,
                "args": to_json(list(args)),
                "keywords": to_json(kwargs),
            }
        except NotJsonable as exc:
            raise TypeError(f"{name}(): arguments must be JSON values: {exc}") from None
        # Inside the script's event loop a tool call is awaited (``await t()``).
        if in_script_loop():
            if channel is not None:
                return reply_of(channel.start(request), reply_value)
            return resolved(reply_value(call_host(request)))
        return reply_value(call_host(request))

    return renamed(tool, name)


def reply_value(reply: ResultFrame) -> Any:
    """A tool's value, or its failure raised as the script should see it."""
    if reply.get("ok"):
        return reply.get("value")
    failure = cast(ToolFailure, reply)
    error_type = str(failure.get("error_type"))
    message = str(failure.get("message", "tool failed"))
    builtin = _TOOL_EXCEPTIONS.get(error_type)
    if builtin is not None:
        raise builtin(message)
    raise ToolError(f"{error_type}: {message}")
