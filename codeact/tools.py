"""Tool: a host function offered to an agent's scripts, and the names tools may take.

``tool(fn, ...)`` / ``@tool`` wrap a function with options; :func:`check_name` is the one
rule for the names of tools, sub-agents and agents (MCP tools follow it too).
"""

from __future__ import annotations

import keyword
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, overload

from sandbox.host.tools import RESERVED_NAMES

#: Names no tool, sub-agent or agent may take: the result helpers and ``print``.
RESERVED_TOOL_NAMES = RESERVED_NAMES | {"print"}


@dataclass(frozen=True)
class Tool:
    """A host function offered to the agent's scripts, with per-tool options.

    Calling a ``Tool`` calls its function, so a decorated function stays usable.
    """

    fn: Callable[..., Any]
    name: str = ""
    requires_approval: bool = False
    timeout_s: float | None = None
    description: str | None = None

    def __post_init__(self) -> None:
        if not self.name:
            object.__setattr__(self, "name", getattr(self.fn, "__name__", ""))

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)


@overload
def tool(
    fn: None = None,
    /,
    *,
    name: str | None = None,
    requires_approval: bool = False,
    timeout_s: float | None = None,
    description: str | None = None,
) -> Callable[[Callable[..., Any]], Tool]: ...


@overload
def tool(
    fn: Callable[..., Any],
    /,
    *,
    name: str | None = None,
    requires_approval: bool = False,
    timeout_s: float | None = None,
    description: str | None = None,
) -> Tool: ...


def tool(
    fn: Callable[..., Any] | None = None,
    /,
    *,
    name: str | None = None,
    requires_approval: bool = False,
    timeout_s: float | None = None,
    description: str | None = None,
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Wrap ``fn`` with options: another name, approval before each call, a timeout.

    Works as ``tool(fn, ...)``, as a decorator ``@tool`` and as ``@tool(timeout_s=5)``.
    A function whose first parameter is annotated ``RunContext`` receives the run's
    context there (see :mod:`codeact.context`).
    """

    def wrap(target: Callable[..., Any]) -> Tool:
        if not callable(target):
            raise TypeError(f"tool() takes a callable, not {type(target).__name__}")
        return Tool(target, name or "", requires_approval, timeout_s, description)

    return wrap if fn is None else wrap(fn)


def check_name(kind: str, name: str) -> None:
    """ValueError unless ``name`` may name a ``kind`` (tool, agent): an identifier, public,
    not reserved."""
    if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
        raise ValueError(f"{kind} name {name!r} must be a Python identifier without a leading _")
    if name in RESERVED_TOOL_NAMES:
        raise ValueError(f"{kind} name {name!r} is reserved")
