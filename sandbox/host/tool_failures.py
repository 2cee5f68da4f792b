"""A tool's failures contained and described (a type name and a message, whatever it
raised), and its return value as JSON or the reason it has none."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pydantic
import pydantic_core


class ToolFailed(Exception):
    """A tool's failure already described (its type name and message)."""

    def __init__(self, kind: str, text: str) -> None:
        super().__init__(text)
        self.kind = kind
        self.text = text


def describe(exc: BaseException) -> str:
    """An exception's message, whatever its ``__str__`` does (it may raise)."""
    try:
        if isinstance(exc, KeyError) and exc.args:
            # KeyError's str() quotes its key; the worker re-raises it, quoting once more.
            return str(exc.args[0])
        return str(exc)
    except Exception:
        pass
    try:
        return f"(its message could not be shown) {exc.args!r}"[:4000]
    except Exception:
        return "(its message could not be shown)"


async def contained(call: Coroutine[Any, Any, Any]) -> Any:
    """Await an async tool (or the gate); its SystemExit or KeyboardInterrupt would
    otherwise escape the event loop and stop it (and every async tool with it)."""
    try:
        return await call
    except (Exception, asyncio.CancelledError):
        raise
    except BaseException as exc:
        raise ToolFailed(type(exc).__name__, describe(exc)) from None


def run_contained(fn: Callable[..., Any], args: list[Any], kwargs: dict[str, Any]) -> Any:
    """Call a sync tool in its thread; its SystemExit or KeyboardInterrupt is its failure
    (raised through the event loop, it would stop the loop)."""
    try:
        return fn(*args, **kwargs)
    except Exception:
        raise
    except BaseException as exc:
        raise ToolFailed(type(exc).__name__, describe(exc)) from None


def describe_validation(name: str, exc: pydantic.ValidationError) -> str:
    """Why pydantic refused a call's arguments, one clause per argument."""
    parts = []
    for err in exc.errors(include_url=False):
        where = ".".join(str(p) for p in err["loc"] if p != "args") or "arguments"
        got = repr(err.get("input"))[:80]
        parts.append(f"{where}: {err['msg']} (got {got})")
    return f"{name}(): invalid arguments: " + "; ".join(parts)


def result_json(name: str, value: Any) -> Any:
    """A tool's return value as JSON values; a TypeError naming the tool if it has none."""
    try:
        return pydantic_core.to_jsonable_python(value)
    except pydantic_core.PydanticSerializationError:
        raise TypeError(
            f"{name}() returned a {type(value).__name__}, which is not JSON-serializable"
        ) from None


def not_approved(name: str, refusal: str) -> PermissionError:
    """The refusal of a call its gate did not approve."""
    return PermissionError(f"{name}() was not approved: {refusal}")


def timed_out(name: str, timeout_s: float | None) -> TimeoutError:
    """The failure of a call that ran past its timeout."""
    return TimeoutError(f"{name}() did not finish within {timeout_s:g} s")


def over_budget(name: str, exc: Exception) -> ToolFailed:
    """The failure of a call refused for want of a tool thread or slot (``exc`` says which)."""
    return ToolFailed("RuntimeError", f"{name}(): {exc}")
