"""Token accounting for model calls.

`LlmUsage` normalises the usage blocks of every provider into one shape:

* ``input_tokens`` counts *all* prompt tokens, cached ones included (OpenAI's
  ``prompt_tokens`` semantics; Anthropic's separate cache counters are added in).
* ``cache_read_tokens`` / ``cache_write_tokens`` are the cached subsets of the input.
* ``reasoning_tokens`` is the hidden-reasoning subset of ``output_tokens``.
* ``details`` keeps every other numeric counter the provider reported, flattened
  to dotted keys (``"completion_tokens_details.audio_tokens"``).

Usages add with ``+`` and ``sum()``; counters are Python ints, so totals never wrap.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, NonNegativeInt, model_validator

__all__ = ["LlmUsage"]


class LlmUsage(BaseModel):
    """Token counts of one or more model calls."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_tokens: NonNegativeInt = 0
    output_tokens: NonNegativeInt = 0
    total_tokens: NonNegativeInt = 0
    cache_read_tokens: NonNegativeInt = 0
    cache_write_tokens: NonNegativeInt = 0
    reasoning_tokens: NonNegativeInt = 0
    details: dict[str, int] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _fill_total(self) -> LlmUsage:
        # Several servers omit the total; derive it so sums stay meaningful.
        if self.total_tokens == 0 and (self.input_tokens or self.output_tokens):
            object.__setattr__(self, "total_tokens", self.input_tokens + self.output_tokens)
        return self

    @property
    def prompt_tokens(self) -> int:
        """Alias of `input_tokens` (OpenAI naming)."""
        return self.input_tokens

    @property
    def completion_tokens(self) -> int:
        """Alias of `output_tokens` (OpenAI naming)."""
        return self.output_tokens

    def is_empty(self) -> bool:
        """True when no counter is set."""
        return self == LlmUsage()

    def __add__(self, other: object) -> LlmUsage:
        if not isinstance(other, LlmUsage):
            return NotImplemented
        details = dict(self.details)
        for key, value in other.details.items():
            details[key] = details.get(key, 0) + value
        return LlmUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens=self.reasoning_tokens + other.reasoning_tokens,
            details=details,
        )

    def __radd__(self, other: object) -> LlmUsage:
        # Lets the builtin sum() start from 0.
        if other == 0:
            return self
        return self.__add__(other)


def flatten_counters(raw: Mapping[str, Any], prefix: str = "") -> dict[str, int]:
    """Flatten nested provider usage into ``{"a.b": int}``, keeping only integer counters.

    Booleans and negative numbers are dropped: they are flags or sentinels, not counts.
    """
    out: dict[str, int] = {}
    for key, value in raw.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten_counters(value, prefix=f"{name}."))
        elif isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            out[name] = value
        elif isinstance(value, float) and value.is_integer() and value >= 0:
            out[name] = int(value)
    return out
