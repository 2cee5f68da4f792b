"""One model call of a run: the whole reply, or the reply streamed piece by piece.

``run()`` asks for whole replies (``Model.complete``); ``agent.stream()`` streams them
(``Model.stream``) and emits each piece of text or reasoning as a ``ModelDelta`` as it
arrives, before the loop emits the step's ``ModelReplied``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing
from typing import TYPE_CHECKING, Any, Literal, cast

from codeact.events import AgentEvent, ModelDelta
from codeact.messages import Ai, Message
from codeact.models.base import StreamEnd, StreamEvent, TextDelta, ThinkingDelta
from codeact.models.errors import ModelError, ModelErrorCode

if TYPE_CHECKING:
    from codeact.agent import Agent


async def ask_model(
    agent: Agent[Any],
    history: Sequence[Message],
    *,
    step: int,
    emit: Callable[[AgentEvent], None] | None,
) -> Ai:
    """``agent``'s model's reply to ``history``; with ``emit``, streamed as ModelDelta
    events of ``step``. Raises ModelError."""
    if emit is None:
        return await agent.model.complete(
            history, stop=agent.stop, max_tokens=agent.max_tokens, temperature=agent.temperature
        )
    reply: Ai | None = None
    events = cast(
        "AsyncGenerator[StreamEvent, None]",
        agent.model.stream(
            history, stop=agent.stop, max_tokens=agent.max_tokens, temperature=agent.temperature
        ),
    )
    async with aclosing(events):
        async for event in events:
            if isinstance(event, (TextDelta, ThinkingDelta)) and event.text:
                kind: Literal["text", "thinking"] = (
                    "text" if isinstance(event, TextDelta) else "thinking"
                )
                emit(ModelDelta(step=step, agent=agent.name, kind=kind, text=event.text))
            elif isinstance(event, StreamEnd):
                reply = event.message
    if reply is None:
        raise ModelError(
            ModelErrorCode.MALFORMED_RESPONSE,
            f"{agent.model.name}: the stream ended without its final message",
        )
    return reply
