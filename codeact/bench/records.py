"""The records a benchmark run writes: one `SampleRecord` per line of ``samples.jsonl``,
`RunInfo` in ``run.json`` and `Summary` in ``summary.json``. Each has a JSON schema
(``SampleRecord.model_json_schema()``)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from codeact.output import AgentOutput
from codeact.summary import UsageSummary

Status = Literal["passed", "failed", "error"]
#: How a sample talks to the model: codeact's own loop, or the paper's turn format.
BenchProtocol = Literal["codeact", "paper"]
ActionMode = Literal["code", "json", "text"]

#: Failures of the infrastructure, not of the model: such a sample is run again.
INFRA_FAILURES = frozenset(
    {
        "rate_limited",
        "overloaded",
        "server_error",
        "timeout",
        "connection_error",
        "worker_crashed",
        "internal_error",
        "sandbox_failed",
    }
)


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ModelRetry(_Record):
    """A model call that failed and was tried again after `waited_s`."""

    code: str
    message: str
    retry_after: float | None = None
    waited_s: float


class Attempt(_Record):
    """An earlier attempt of a sample that ended in an infrastructure failure."""

    failure_code: str
    message: str
    duration_s: float
    node: str | None = Field(None, description="The Ray node it ran on (None: run locally).")


class SampleRecord(_Record):
    """One finished sample: one task, one epoch, one action mode."""

    id: str = Field(description="Deterministic: digest of suite, task, epoch, mode, ...")
    suite: str
    task: str
    domain: str
    epoch: int = Field(ge=1)
    action_mode: ActionMode
    protocol: BenchProtocol
    model: str
    seed: int = Field(description="Seeds the sandbox's random (and the model where it can).")
    status: Status
    answer: JsonValue = None
    expected: JsonValue = None
    turns: int = Field(description="Model replies in the run.")
    usage: UsageSummary
    duration_s: float
    node: str | None = Field(
        None, description="Id of the Ray node that ran it (--backend ray); None when local."
    )
    failure_code: str | None = None
    failure_message: str | None = None
    retries: list[ModelRetry] = Field(default_factory=list)
    attempts: list[Attempt] = Field(
        default_factory=list, description="Earlier attempts that failed for infrastructure."
    )
    transcript: AgentOutput | None = Field(
        None, description="The whole run: messages, tool calls and usage."
    )


class RunConfig(_Record):
    """What decides which samples a run has; a log directory holds one configuration."""

    suite: str
    model: str
    protocol: BenchProtocol
    policy: str
    policy_digest: str
    max_steps: int


_CONFIG_WORDS = {
    "suite": "suite", "model": "model", "protocol": "protocol", "policy": "policy",
    "policy_digest": "policy content (digest)", "max_steps": "max steps",
}  # fmt: skip


def config_differences(logged: RunConfig, wanted: RunConfig) -> str:
    """What sets ``wanted`` apart from ``logged``, in words: ``model 'a' (logged: 'b')``."""
    parts = []
    for field, words in _CONFIG_WORDS.items():
        was, now = getattr(logged, field), getattr(wanted, field)
        if was != now:
            if field == "policy_digest":
                was, now = str(was)[:12], str(now)[:12]
            parts.append(f"{words} {now!r} (logged: {was!r})")
    return ", ".join(parts)


class RunInfo(_Record):
    """``run.json``: the configuration, the versions and when each invocation started."""

    config: RunConfig
    action_modes: list[ActionMode]
    epochs: int
    tasks: str | None = None
    limit: int | None = None
    concurrency: int
    max_connections: int
    retry_on_error: int
    versions: dict[str, str]
    started_at: list[str] = Field(description="ISO 8601 UTC, one per invocation.")
    backends: list[str] = Field(
        default_factory=list,
        description="Where each invocation ran its samples: local, or ray at an address.",
    )


class GroupStats(_Record):
    """Success over the samples of one action mode × domain (or a mode overall)."""

    action_mode: ActionMode
    domain: str
    samples: int
    passed: int
    failed: int
    errors: int
    success_rate: float
    stderr: float = Field(description="Standard error of the per-task success means.")
    mean_turns: float
    tokens_per_sample: float
    epoch_rates: list[float] = Field(
        default_factory=list, description="Success rate of each epoch, for the spread."
    )


class TaskStats(_Record):
    """One task over its epochs in one action mode."""

    task: str
    domain: str
    action_mode: ActionMode
    epochs: int
    passed: int
    mean: float
    stderr: float
    pass_at_k: float


class Summary(_Record):
    """``summary.json``: totals, the mode × domain table and per-task epoch statistics."""

    suite: str
    model: str
    protocol: BenchProtocol
    samples: int
    passed: int
    failed: int
    errors: int
    usage: UsageSummary
    duration_s: float = Field(description="The samples' durations added up.")
    epochs: int
    groups: list[GroupStats]
    modes: list[GroupStats]
    tasks: list[TaskStats]
