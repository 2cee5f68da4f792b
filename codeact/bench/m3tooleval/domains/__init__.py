"""The tools of each M3ToolEval domain; `tools_for` gives a fresh set for one task."""

from collections.abc import Callable
from typing import Any

from codeact.bench.m3tooleval.domains import (
    dna_sequencer,
    message_decoder,
    trade_calculator,
    travel,
    web_browsing,
)

_FACTORIES: dict[str, Callable[[], dict[str, Callable[..., Any]]]] = {
    "message_decoder": message_decoder.make_tools,
    "cryptobotanists_plant_dna_sequencer": dna_sequencer.make_tools,
    "trade_calculator": trade_calculator.make_tools,
    "travel_itinerary_planning": travel.make_tools,
    "web_browsing": web_browsing.make_tools,
}

DOMAINS: tuple[str, ...] = tuple(_FACTORIES)


def tools_for(domain: str) -> dict[str, Callable[..., Any]]:
    """Fresh tool callables for one task of `domain`, by the names the tasks use.

    Stateful tools (the web browser) are new on every call; the travel domain's `max`,
    `min` and `sum` shadow Python's builtins inside a script.
    """
    factory = _FACTORIES.get(domain)
    if factory is None:
        raise ValueError(f"unknown M3ToolEval domain {domain!r}; known: {', '.join(DOMAINS)}")
    return factory()


__all__ = ["DOMAINS", "tools_for"]
