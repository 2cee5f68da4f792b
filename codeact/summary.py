"""UsageSummary: what a run cost, across model calls, scripts and sub-agents."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from codeact.usage import LlmUsage
from sandbox import Execution


class UsageSummary(BaseModel):
    """Totals of one agent run (sub-agents included)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    tool_calls: int = 0
    scripts_run: int = 0
    sandbox_cpu_s: float = 0.0
    sandbox_wall_s: float = 0.0

    @property
    def total_tokens(self) -> int:
        """Input plus output tokens."""
        return self.input_tokens + self.output_tokens

    def with_request(self, usage: LlmUsage | None) -> UsageSummary:
        """Add one model call."""
        usage = usage or LlmUsage()
        return self.model_copy(
            update={
                "requests": self.requests + 1,
                "input_tokens": self.input_tokens + usage.input_tokens,
                "output_tokens": self.output_tokens + usage.output_tokens,
                "cached_tokens": self.cached_tokens + usage.cache_read_tokens,
                "reasoning_tokens": self.reasoning_tokens + usage.reasoning_tokens,
            }
        )

    def with_execution(self, execution: Execution) -> UsageSummary:
        """Add one script run."""
        return self.model_copy(
            update={
                "scripts_run": self.scripts_run + 1,
                "tool_calls": self.tool_calls + len(execution.tool_calls),
                "sandbox_cpu_s": self.sandbox_cpu_s + execution.cpu_s,
                "sandbox_wall_s": self.sandbox_wall_s + execution.duration_s,
            }
        )

    def __add__(self, other: UsageSummary) -> UsageSummary:
        return UsageSummary(
            **{
                name: getattr(self, name) + getattr(other, name)
                for name in UsageSummary.model_fields
            }
        )

    def one_line(self) -> str:
        """``3 requests, 1,234 tokens (1,000 in, 234 out), 5 tool calls, 3 scripts, ...``."""
        return (
            f"{plural(self.requests, 'request')}, {plural(self.total_tokens, 'token')} "
            f"({self.input_tokens:,} in, {self.output_tokens:,} out"
            + (f", {self.cached_tokens:,} cached" if self.cached_tokens else "")
            + (f", {self.reasoning_tokens:,} reasoning" if self.reasoning_tokens else "")
            + f"), {plural(self.tool_calls, 'tool call')}, {plural(self.scripts_run, 'script')}, "
            f"sandbox {_duration(self.sandbox_cpu_s)} CPU / {_duration(self.sandbox_wall_s)} wall"
        )


def plural(count: int, noun: str) -> str:
    """``1 step``, ``2 steps``, ``1,234 tokens``."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def _duration(seconds: float) -> str:
    # Scripts often take milliseconds: "0.00 s" would say nothing.
    return f"{seconds:.2f} s" if seconds >= 1 else f"{seconds * 1000:.1f} ms"
