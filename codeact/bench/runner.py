"""`run_bench`: every sample of a run, `concurrency` at a time, logged as they finish.

Samples already in the log directory are skipped (resume); the rest run on a backend
(`codeact.bench.backend`: one shared `Sandbox` here, or sandbox actors on a Ray
cluster) under one connection limiter. A sample that ends in an infrastructure
failure runs again, up to `retry_on_error` more times; a model's failure is kept.
"""

from __future__ import annotations

import asyncio
import datetime
import platform

from codeact.bench.backend import Backend, LocalBackend
from codeact.bench.config import BenchConfig
from codeact.bench.ids import sample_id, seed_for
from codeact.bench.limiter import AdaptiveLimiter
from codeact.bench.logdir import LogDir, LogDirError
from codeact.bench.records import (
    Attempt,
    RunConfig,
    RunInfo,
    SampleRecord,
    Summary,
    config_differences,
)
from codeact.bench.sample import Outcome, SamplePlan, to_record
from codeact.bench.sources import ModelSource
from codeact.bench.suite import SuiteError, select_tasks
from codeact.bench.summarize import summarize
from sandbox import SandboxPolicy

#: ``BenchConfig`` is the argument of `run_bench`, so it is importable from here too.
__all__ = ["BenchConfig", "Observer", "plan_samples", "run_bench"]


class Observer:
    """Told about the run's progress; the displays subclass it."""

    def started(self, total: int, done: list[SampleRecord]) -> None:
        """The run begins: `total` samples, `done` of them already in the log."""

    def finished(self, record: SampleRecord) -> None:
        """A sample finished and was logged."""

    def retrying(self, plan: SamplePlan, outcome: Outcome) -> None:
        """A sample hit an infrastructure failure and will run again."""

    def close(self, summary: Summary | None) -> None:
        """The run ended (None first, as soon as no sample is running; then the summary)."""


def plan_samples(config: BenchConfig, policy_digest: str) -> list[SamplePlan]:
    """Every sample of the run, in a stable order (epoch, mode, task)."""
    tasks = select_tasks(config.suite, config.tasks, config.limit)
    plans = []
    for epoch in range(1, config.epochs + 1):
        for mode in config.action_modes:
            for task in tasks:
                ident = sample_id(
                    suite=config.suite.name, task=task.id, epoch=epoch, action_mode=mode,
                    protocol=config.protocol, model=config.model, policy_digest=policy_digest,
                )  # fmt: skip
                plans.append(SamplePlan(ident, task, epoch, mode, seed_for(ident)))
    return plans


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    found = {"python": platform.python_version()}
    for name in ("codeact", "pydantic", "httpx", "RestrictedPython"):
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "source tree"
    return found


def _run_info(
    config: BenchConfig, policy: SandboxPolicy, previous: RunInfo | None, backend: str
) -> RunInfo:
    run_config = RunConfig(
        suite=config.suite.name, model=config.model, protocol=config.protocol,
        policy=policy.name, policy_digest=policy.digest(), max_steps=config.max_steps,
    )  # fmt: skip
    if previous is not None and previous.config != run_config:
        raise LogDirError(
            f"{config.log_dir} holds a run of another configuration: this one has "
            f"{config_differences(previous.config, run_config)}; a log directory holds one "
            "configuration — use another --log-dir"
        )
    now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    return RunInfo(
        config=run_config, action_modes=list(config.action_modes), epochs=config.epochs,
        tasks=config.tasks, limit=config.limit, concurrency=config.concurrency,
        max_connections=config.max_connections or config.concurrency,
        retry_on_error=config.retry_on_error, versions=_versions(),
        started_at=[*(previous.started_at if previous else []), now],
        backends=[*(previous.backends if previous else []), backend],
    )  # fmt: skip


async def run_bench(config: BenchConfig, observer: Observer | None = None) -> Summary:
    """Run (or resume) the benchmark; return the summary of every logged sample."""
    config.check()
    observer = observer or Observer()
    policy = SandboxPolicy.load(config.policy)
    plans = plan_samples(config, policy.digest())
    if config.model.startswith("scripted:") and config.model_factory is None and len(plans) > 1:
        raise SuiteError(
            f"{config.model} replays one conversation, but this run has {len(plans)} samples: "
            "give the suite golden replies (Suite.golden) and use --model golden"
        )
    source = ModelSource(config.model, config.suite, config.model_factory)
    try:
        source.check(list({p.task.id: p.task for p in plans}.values()))
        logs = LogDir(config.log_dir)
        backend = _backend(config, policy, source)
        todo = _resume(logs, config, policy, plans, observer, backend.label)
        try:
            await backend.start()
            await _SampleLoop(config, backend, logs, observer).run_all(todo)
        finally:
            observer.close(None)
            await backend.close()
    finally:
        await source.aclose()
    summary = summarize(config.suite.name, config.model, config.protocol, logs.read_samples())
    logs.write_summary(summary)
    observer.close(summary)
    return summary


def _backend(config: BenchConfig, policy: SandboxPolicy, source: ModelSource) -> Backend:
    if config.backend == "ray":
        from codeact.ray.bench import RayBackend

        return RayBackend(config, policy, address=config.ray_address)
    limiter = AdaptiveLimiter(config.max_connections or config.concurrency)
    return LocalBackend(config, policy, source, limiter)


def _resume(
    logs: LogDir, config: BenchConfig, policy: SandboxPolicy, plans: list[SamplePlan],
    observer: Observer, backend: str,
) -> list[SamplePlan]:  # fmt: skip
    """Set up the log directory; the samples left to run (the observer is told)."""
    logs.create()
    info = _run_info(config, policy, logs.read_run(), backend)
    kept = logs.read_samples(repair=True)
    # Errored samples never got a grade: they run again, their old line replaced.
    retry_ids = {r.id for r in kept if r.status == "error"}
    if retry_ids:
        kept = [r for r in kept if r.id not in retry_ids]
        logs.rewrite(kept)
    logs.write_run(info)
    done_ids = {r.id for r in kept}
    planned = {p.id for p in plans}
    observer.started(len(plans), [r for r in kept if r.id in planned])
    return [p for p in plans if p.id not in done_ids]


class _SampleLoop:
    def __init__(
        self, config: BenchConfig, backend: Backend, logs: LogDir, observer: Observer
    ) -> None:
        self.config, self.backend, self.logs, self.observer = config, backend, logs, observer

    async def run_all(self, todo: list[SamplePlan]) -> None:
        queue: asyncio.Queue[SamplePlan] = asyncio.Queue()
        for plan in todo:
            queue.put_nowait(plan)
        workers = [
            asyncio.create_task(self._worker(queue))
            for _ in range(min(self.config.concurrency, len(todo)))
        ]
        try:
            await asyncio.gather(*workers)
        finally:
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)

    async def _worker(self, queue: asyncio.Queue[SamplePlan]) -> None:
        while not queue.empty():
            plan = queue.get_nowait()
            record = await self._sample(plan)
            self.logs.append(record)
            self.observer.finished(record)

    async def _sample(self, plan: SamplePlan) -> SampleRecord:
        attempts: list[Attempt] = []
        retries = []
        node = None
        while True:
            # A retry goes to another node where one has room: the last may be failing.
            attempted = await self.backend.attempt(plan, avoid=node)
            outcome, node = attempted.outcome, attempted.node
            retries.extend(attempted.retries)
            if outcome.status != "error" or len(attempts) >= self.config.retry_on_error:
                break
            self.observer.retrying(plan, outcome)
            attempts.append(
                Attempt(
                    failure_code=outcome.failure_code or "internal_error",
                    message=(outcome.failure_message or "")[:500],
                    duration_s=round(outcome.duration_s, 4),
                    node=node,
                )
            )
            await asyncio.sleep(min(30.0, 0.5 * 2 ** len(attempts)))
        return to_record(
            plan, outcome, suite=self.config.suite.name, model=self.config.model,
            protocol=self.config.protocol, retries=retries, attempts=attempts, node=node,
        )  # fmt: skip
