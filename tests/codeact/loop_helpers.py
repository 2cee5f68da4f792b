"""Helpers for agent-loop tests: fenced replies and a synchronous runner."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
FENCE = "`" * 3


def py(code: str, prose: str = "Running this.") -> str:
    """A model reply: prose plus one fenced python block."""
    return f"{prose}\n{FENCE}python\n{code}\n{FENCE}"


def arun(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to completion in a fresh event loop."""
    return asyncio.run(coro)
