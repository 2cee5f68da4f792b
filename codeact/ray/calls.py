"""The caller's side of a node session's tools: each call a script makes on a node
comes back here, where the tool is validated against its real signature and called.

The node's own `ToolSet` (the session's proxies) does the rest, as it does for a local
session: the gate is asked there first (it calls back to the caller's gate), the call
is timed out there, its result size is checked there and its record written there.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any

import pydantic

from sandbox.host.tool_failures import describe, describe_validation, result_json
from sandbox.host.tool_validation import validated
from sandbox.host.tools import ToolSet


def reply_failed(kind: str, message: str) -> dict[str, Any]:
    return {"op": "result", "ok": False, "error_type": kind, "message": message[:4000]}


class CallerTools:
    """The tools of one session, kept in the caller's process."""

    def __init__(
        self, tools: Mapping[str, Callable[..., Any]] | None, threads: concurrent.futures.Executor
    ) -> None:
        self._threads = threads
        ToolSet(tools)  # the sandbox's own checks of names and callables
        self._tools = {name: validated(fn) for name, fn in (tools or {}).items()}
        self._is_async = {
            name: inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__)
            for name, fn in (tools or {}).items()
        }

    async def call(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> dict[str, Any]:
        """Run one call; the reply the node's proxy turns into the result or the error."""
        fn = self._tools.get(name)
        if fn is None:
            return reply_failed("NameError", f"no tool named {name!r}")
        try:
            if self._is_async[name]:
                value = await fn(*args, **kwargs)
            else:
                call = functools.partial(fn, *args, **kwargs)
                value = await asyncio.get_running_loop().run_in_executor(self._threads, call)
            result = result_json(name, value)
        except pydantic.ValidationError as exc:
            return reply_failed("TypeError", describe_validation(name, exc))
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            # SystemExit and the like from a tool are the tool's failure, not the caller's.
            return reply_failed(type(exc).__name__, describe(exc))
        return {"op": "result", "ok": True, "value": result}
