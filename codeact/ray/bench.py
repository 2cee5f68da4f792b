"""``codeact bench run --backend ray``: each sample runs in a node's sandbox actor.

The actor holds the node's `Sandbox` and model client and runs the very code the
local backend runs (`attempt_sample`); the driver keeps the log directory, resume,
retries, progress and the summary, so the records are those of a local run plus the
node. Model calls on every node go through one connection limiter, an actor on the
driver's node, so ``--max-connections`` holds for the whole cluster. A sample whose
actor dies ends as ``worker_crashed`` (an infrastructure failure: the runner runs it
again, on another node where one has room), and the actor is replaced.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

import ray
from pydantic import BaseModel, ConfigDict, JsonValue
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from codeact.bench.backend import Attempted, attempt_sample
from codeact.bench.config import BenchConfig
from codeact.bench.limiter import AdaptiveLimiter
from codeact.bench.records import ModelRetry, Status
from codeact.bench.sample import Outcome, SamplePlan, crashed
from codeact.bench.sources import ModelSource
from codeact.output import AgentOutput
from codeact.ray.cluster import Connection, Placement, alive_nodes, here
from codeact.ray.fleet import Fleet, Member, NoCapacity
from codeact.ray.node import NodeSandbox
from codeact.summary import UsageSummary
from sandbox import SandboxPolicy

log = logging.getLogger("codeact.ray")


class AttemptResult(BaseModel):
    """An attempt as it comes back from a node (JSON text)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    status: Status
    answer: JsonValue = None
    turns: int
    usage: UsageSummary
    duration_s: float
    failure_code: str | None = None
    failure_message: str | None = None
    transcript: AgentOutput | None = None
    retries: list[ModelRetry]
    node: str

    @classmethod
    def of(cls, attempted: Attempted, node: str) -> AttemptResult:
        o = attempted.outcome
        return cls(
            status=o.status, answer=o.answer, turns=o.turns, usage=o.usage,
            duration_s=o.duration_s, failure_code=o.failure_code,
            failure_message=o.failure_message, transcript=o.transcript,
            retries=attempted.retries, node=node,
        )  # fmt: skip

    def attempted(self) -> Attempted:
        outcome = Outcome(
            self.status, self.answer, self.turns, self.usage, self.duration_s,
            self.failure_code, self.failure_message, self.transcript,
        )  # fmt: skip
        return Attempted(outcome, list(self.retries), self.node)


class SharedLimiter:
    """The run's `AdaptiveLimiter`, as an actor; counts what each node holds, so that
    the connections of a node that died are given back."""

    def __init__(self, ceiling: int) -> None:
        self.limiter = AdaptiveLimiter(ceiling)
        self.held: dict[str, int] = {}
        self.gone: set[str] = set()

    async def acquire(self, holder: str) -> None:
        await self.limiter.acquire()
        if holder in self.gone:  # it died while waiting: nobody will give this one back
            await self.limiter.release(ok=False)
            return
        self.held[holder] = self.held.get(holder, 0) + 1

    async def release(self, holder: str, ok: bool) -> None:
        if self.held.get(holder, 0) > 0:
            self.held[holder] -= 1
            await self.limiter.release(ok=ok)

    async def rate_limited(self, retry_after: float | None) -> None:
        await self.limiter.rate_limited(retry_after)

    async def forget(self, holder: str) -> None:
        self.gone.add(holder)
        for _ in range(self.held.pop(holder, 0)):
            await self.limiter.release(ok=False)


class RemoteLimiter:
    """A node's view of `SharedLimiter` (a `ConnectionLimiter`). Should the shared one
    be lost (its node died), the node goes on under a limit of its own, its share of
    the ceiling, rather than failing every model call from then on."""

    def __init__(self, handle: Any, holder: str, share: int) -> None:
        self.handle, self.holder, self.share = handle, holder, share
        self.own: AdaptiveLimiter | None = None
        #: Which limiter each model call in flight (one per task) was let through by.
        self._through: dict[asyncio.Task[Any] | None, AdaptiveLimiter | None] = {}

    def _lost(self, exc: Exception) -> AdaptiveLimiter:
        if self.own is None:
            log.warning("the run's connection limiter is gone (%s): %d here", exc, self.share)
            self.own = AdaptiveLimiter(self.share)
        return self.own

    async def acquire(self) -> None:
        limiter = self.own
        if limiter is None:
            try:
                await self.handle.acquire.remote(self.holder)
            except ray.exceptions.RayActorError as exc:
                limiter = self._lost(exc)
        if limiter is not None:
            await limiter.acquire()
        self._through[asyncio.current_task()] = limiter

    async def release(self, *, ok: bool) -> None:
        limiter = self._through.pop(asyncio.current_task(), None)
        if limiter is not None:
            await limiter.release(ok=ok)
            return
        try:
            await self.handle.release.remote(self.holder, ok)
        except ray.exceptions.RayActorError as exc:
            self._lost(exc)

    async def rate_limited(self, retry_after: float | None) -> None:
        if self.own is not None:
            await self.own.rate_limited(retry_after)
            return
        try:
            await self.handle.rate_limited.remote(retry_after)
        except ray.exceptions.RayActorError as exc:
            await self._lost(exc).rate_limited(retry_after)


class BenchNode(NodeSandbox):
    """A node's sandbox actor that also runs whole samples."""

    def __init__(
        self, policy_json: str, config: BenchConfig, limiter: Any, share: int, slots: int
    ) -> None:
        super().__init__(policy_json, slots)
        self.config = config
        self.source = ModelSource(config.model, config.suite, config.model_factory)
        holder = str(ray.get_runtime_context().get_actor_id())
        self.limiter = RemoteLimiter(limiter, holder, share)

    async def run_sample(self, plan: SamplePlan) -> str:
        """One attempt of `plan`, as `AttemptResult` JSON."""
        started = time.monotonic()
        try:
            attempted = await attempt_sample(
                self.config, self.policy, plan, self.sandbox, self.source, self.limiter
            )
        except Exception as exc:
            attempted = Attempted(crashed(exc, started))
        return AttemptResult.of(attempted, self.node).model_dump_json()

    async def shutdown(self) -> None:
        await self.source.aclose()
        await super().shutdown()


def _failure(code: str, message: str, started: float) -> Outcome:
    return Outcome(
        "error", None, 0, UsageSummary(), time.monotonic() - started, code, message, None
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:500] if text else type(exc).__name__


class RayBackend:
    """Samples on a Ray cluster's sandbox actors (see the module docstring)."""

    def __init__(
        self,
        config: BenchConfig,
        policy: SandboxPolicy,
        *,
        address: str | None = None,
        cpus_per_sample: float | None = None,
    ) -> None:
        self.config, self.policy = config, policy
        self.connection = Connection(address)
        self.label = self.connection.label
        self.placement = Placement.for_policy(policy, cpus_per_sample)
        self.limiter: Any = None
        self.fleet: Fleet | None = None

    async def start(self) -> None:
        await asyncio.to_thread(self.connection.open)
        try:
            ceiling = self.config.max_connections or self.config.concurrency
            self.limiter = (
                ray.remote(SharedLimiter)
                .options(
                    num_cpus=0,
                    max_concurrency=max(64, 4 * self.config.concurrency),
                    # On the driver's node, which lives as long as the run does (a soft
                    # affinity lets Ray put it on any node, seen on a head without CPUs).
                    scheduling_strategy=NodeAffinitySchedulingStrategy(here(), soft=False),
                )
                .remote(ceiling)
            )
            share = max(1, ceiling // max(1, len(alive_nodes())))
            args = (self.policy.model_dump_json(), self.config, self.limiter, share)
            self.fleet = Fleet(
                BenchNode, args, self.placement, self.config.concurrency, on_lost=self._forget
            )
            await self.fleet.start()
        except BaseException:
            await self.close()
            raise

    def _forget(self, member: Member) -> None:
        self.limiter.forget.remote(member.info.get("actor", ""))

    async def attempt(self, plan: SamplePlan, avoid: str | None = None) -> Attempted:
        assert self.fleet is not None, "start the backend first"
        started = time.monotonic()
        try:
            member = await self.fleet.acquire(avoid)
        except NoCapacity as exc:
            return Attempted(_failure("sandbox_failed", str(exc), started))
        try:
            text = await member.actor.run_sample.remote(plan)
        except ray.exceptions.RayActorError as exc:
            self.fleet.lost(member)
            message = f"the sandbox actor on node {member.node} died: {_first_line(exc)}"
            return Attempted(_failure("worker_crashed", message, started), node=member.node)
        except ray.exceptions.RayError as exc:
            failure = _failure("internal_error", _first_line(exc), started)
            return Attempted(failure, node=member.node)
        finally:
            await self.fleet.release(member)
        return AttemptResult.model_validate_json(text).attempted()

    async def close(self) -> None:
        try:
            if self.fleet is not None:
                await self.fleet.close()
            if self.limiter is not None:
                ray.kill(self.limiter)
        finally:
            self.fleet = self.limiter = None
            await asyncio.to_thread(self.connection.close)
