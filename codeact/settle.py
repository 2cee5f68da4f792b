"""Awaiting work that must finish even when the awaiting task is cancelled.

Starting a sandbox or a session runs in a thread; cancelling the ``await`` does not
stop the thread, it only loses its result — a started zygote or worker nobody will
ever close. So starts and clean-ups are awaited to the end, and a cancellation that
arrived meanwhile is delivered afterwards.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")


async def settle(work: Awaitable[T]) -> tuple[T, bool]:
    """Await ``work`` to its end whatever cancellations arrive; return its result and
    whether the awaiting task was cancelled meanwhile."""
    task = asyncio.ensure_future(work)
    cancelled = False
    while not task.done():
        try:
            await asyncio.wait([task])
        except asyncio.CancelledError:
            cancelled = True
    return task.result(), cancelled


async def uncancellable(work: Awaitable[T]) -> T:
    """Await ``work`` to its end, then raise CancelledError if the awaiting task was
    cancelled meanwhile (so the caller can clean up what ``work`` made)."""
    result, cancelled = await settle(work)
    if cancelled:
        raise asyncio.CancelledError
    return result
