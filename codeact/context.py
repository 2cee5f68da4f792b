"""``RunContext``: what a tool may ask to know about the run that called it.

A tool whose first parameter is annotated ``RunContext`` (or ``RunContext[MyDeps]``)
gets it on every call: the ``deps`` the caller passed to ``agent.run(task, deps=...)``
(a database handle, a user id — anything, it never enters the sandbox), the run's id
and the name of the agent whose script made the call. The parameter is not part of the
signature the script and the model see.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

DepsT = TypeVar("DepsT")


@dataclass(frozen=True)
class RunContext(Generic[DepsT]):
    """The run a tool call belongs to."""

    deps: DepsT
    run_id: str
    agent_name: str


def takes_context(fn: Callable[..., Any]) -> bool:
    """True when ``fn``'s first parameter is annotated with :class:`RunContext`."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    if not params:
        return False
    annotation = params[0].annotation
    if isinstance(annotation, str):
        try:
            annotation = typing.get_type_hints(fn).get(params[0].name, annotation)
        except Exception:  # an annotation that does not resolve is not RunContext
            return bool(annotation.split("[", 1)[0].rsplit(".", 1)[-1] == "RunContext")
    return bool(annotation is RunContext or typing.get_origin(annotation) is RunContext)


def bind_context(fn: Callable[..., Any], ctx: Callable[[], RunContext[Any]]) -> Callable[..., Any]:
    """``fn`` with its first argument supplied by ``ctx()`` at each call, and left out of
    the signature (and type hints) that validation and the prompt read."""
    signature = inspect.signature(fn)
    params = list(signature.parameters.values())[1:]
    if inspect.iscoroutinefunction(fn):

        async def call_async(*args: Any, **kwargs: Any) -> Any:
            return await fn(ctx(), *args, **kwargs)

        wrapper: Callable[..., Any] = call_async
    else:

        def call(*args: Any, **kwargs: Any) -> Any:
            return fn(ctx(), *args, **kwargs)

        wrapper = call
    functools.update_wrapper(wrapper, fn)
    del wrapper.__wrapped__  # type: ignore[attr-defined]  # the signature below is the one
    try:
        hints = typing.get_type_hints(fn)
    except Exception:  # unresolvable hints: keep the annotations as written
        hints = {}
    params = [p.replace(annotation=hints.get(p.name, p.annotation)) for p in params]
    returns = hints.get("return", signature.return_annotation)
    wrapper.__signature__ = signature.replace(  # type: ignore[attr-defined]
        parameters=params, return_annotation=returns
    )
    wrapper.__annotations__ = {p.name: p.annotation for p in params} | (
        {"return": returns} if returns is not inspect.Signature.empty else {}
    )
    return wrapper
