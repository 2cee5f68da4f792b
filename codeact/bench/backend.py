"""Where a run's samples execute: here, in one shared `Sandbox`, or on a Ray cluster.

The runner keeps everything else — the plan, the log directory, resume, retries,
progress and the summary — so both backends write the same records. A backend runs
one attempt of a sample and says which node ran it (``codeact.ray.bench`` is the Ray
one; it runs `attempt_sample` inside an actor on each node).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from codeact.bench.limited import LimitedModel
from codeact.bench.limiter import ConnectionLimiter
from codeact.bench.records import ModelRetry
from codeact.bench.sample import Outcome, SamplePlan, run_codeact_sample
from codeact.bench.sources import ModelSource
from sandbox import Sandbox, SandboxPolicy

if TYPE_CHECKING:
    from codeact.bench.config import BenchConfig


@dataclass(frozen=True)
class Attempted:
    """One attempt of a sample: its outcome, the model retries in it, where it ran."""

    outcome: Outcome
    retries: list[ModelRetry] = field(default_factory=list)
    node: str | None = None


class Backend(Protocol):
    """Runs attempts of samples; started before the first and closed after the last."""

    #: How the run's ``run.json`` names it: ``local`` or ``ray@ADDRESS``.
    label: str

    async def start(self) -> None: ...

    async def attempt(self, plan: SamplePlan, avoid: str | None = None) -> Attempted:
        """Run `plan` once (on a node other than `avoid` where one is free)."""
        ...

    async def close(self) -> None: ...


async def attempt_sample(
    config: BenchConfig,
    policy: SandboxPolicy,
    plan: SamplePlan,
    sandbox: Sandbox,
    source: ModelSource,
    limiter: ConnectionLimiter,
) -> Attempted:
    """One attempt of `plan` with `sandbox`'s workers and `source`'s model, here."""
    model = LimitedModel(source.for_task(plan.task, plan.seed), limiter, seed=plan.seed)
    if config.protocol == "paper":
        from codeact.bench.paper import run_paper_sample

        outcome = await run_paper_sample(config.suite, plan, model, sandbox)
    else:
        outcome = await run_codeact_sample(
            config.suite, plan, model, sandbox, policy, config.max_steps
        )
    return Attempted(outcome, list(model.retries))


class LocalBackend:
    """Every sample in this process, their scripts in one `Sandbox` (one zygote)."""

    label = "local"

    def __init__(
        self,
        config: BenchConfig,
        policy: SandboxPolicy,
        source: ModelSource,
        limiter: ConnectionLimiter,
    ) -> None:
        self.config, self.policy, self.source, self.limiter = config, policy, source, limiter
        self.sandbox = Sandbox(policy, spares=min(4, config.concurrency))

    async def start(self) -> None:
        await asyncio.to_thread(self.sandbox.start)

    async def attempt(self, plan: SamplePlan, avoid: str | None = None) -> Attempted:
        return await attempt_sample(
            self.config, self.policy, plan, self.sandbox, self.source, self.limiter
        )

    async def close(self) -> None:
        await asyncio.to_thread(self.sandbox.close)
