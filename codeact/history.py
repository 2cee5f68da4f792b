"""History processors: what to send the model when a conversation grows long."""

from __future__ import annotations

from collections.abc import Callable

from codeact.feedback import FEEDBACK_ID_PREFIX
from codeact.messages import Human, Message

OMITTED = "[earlier observation omitted]"


def keep_recent_observations(keep: int = 3) -> Callable[[list[Message]], list[Message]]:
    """Replace the text of all but the last ``keep`` feedback messages with a marker.

    Feedback messages are the ones the loop writes after each step (their ids start
    with ``feedback-``); the user's own messages are never touched.
    """
    if keep < 0:
        raise ValueError("keep must be >= 0")

    def process(messages: list[Message]) -> list[Message]:
        feedback = [
            i
            for i, m in enumerate(messages)
            if isinstance(m, Human) and m.id().startswith(FEEDBACK_ID_PREFIX)
        ]
        trimmed = set(feedback[: max(len(feedback) - keep, 0)])
        return [
            Human(content=OMITTED, id=m.id()) if i in trimmed else m for i, m in enumerate(messages)
        ]

    return process
