"""Running one sample under the codeact protocol: our agent loop, prompt and sandbox."""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass

from codeact.agent import Agent
from codeact.bench.limited import LimitedModel
from codeact.bench.records import INFRA_FAILURES, SampleRecord, Status
from codeact.bench.seeded import SeededSandbox
from codeact.bench.suite import BenchTask, Suite
from codeact.errors import AgentRunFailed
from codeact.messages import Ai
from codeact.output import AgentOutput
from codeact.summary import UsageSummary
from sandbox import Sandbox, SandboxPolicy


@dataclass(frozen=True)
class SamplePlan:
    """A sample to run: which task, epoch and mode, and its id and seed."""

    id: str
    task: BenchTask
    epoch: int
    action_mode: str
    seed: int


@dataclass(frozen=True)
class Outcome:
    """What one attempt of a sample gave, before it becomes a record."""

    status: Status
    answer: object
    turns: int
    usage: UsageSummary
    duration_s: float
    failure_code: str | None
    failure_message: str | None
    transcript: AgentOutput | None


def turns_of(output: AgentOutput) -> int:
    return sum(1 for message in output.messages if isinstance(message, Ai))


def grade_output(suite: Suite, task: BenchTask, output: AgentOutput, started: float) -> Outcome:
    """Turn a finished run into an outcome: passed or failed by the grader, or the failure."""
    duration = time.monotonic() - started
    if output.failure is None:
        try:
            passed = bool(suite.grader(task, output.value))
        except Exception as exc:
            return Outcome(
                "error", output.value, turns_of(output), output.usage, duration,
                "internal_error", f"the grader raised {type(exc).__name__}: {exc}", output,
            )  # fmt: skip
        status: Status = "passed" if passed else "failed"
        return Outcome(
            status, output.value, turns_of(output), output.usage, duration, None, None, output
        )
    code = output.failure.code.value
    status = "error" if code in INFRA_FAILURES else "failed"
    return Outcome(
        status, output.value, turns_of(output), output.usage, duration, code,
        output.failure.message, output,
    )  # fmt: skip


def crashed(exc: BaseException, started: float) -> Outcome:
    """An outcome for a sample whose run raised instead of ending in a typed failure."""
    text = "".join(traceback.format_exception_only(exc)).strip()
    return Outcome(
        "error", None, 0, UsageSummary(), time.monotonic() - started,
        "internal_error", text[:2000], None,
    )  # fmt: skip


async def run_codeact_sample(
    suite: Suite,
    plan: SamplePlan,
    model: LimitedModel,
    sandbox: Sandbox,
    policy: SandboxPolicy,
    max_steps: int,
) -> Outcome:
    """One attempt of `plan` through `Agent.run`, its scripts in the shared `sandbox`."""
    started = time.monotonic()
    try:
        agent = Agent(
            "bench",
            model,
            suite.instructions,
            dict(suite.tools(plan.task)),
            max_steps=max_steps,
            policy=policy,
        )
        try:
            output = await agent.run(plan.task.input, sandbox=SeededSandbox(sandbox, plan.seed))
        except AgentRunFailed as failed:
            output = failed.output
    except Exception as exc:
        return crashed(exc, started)
    return grade_output(suite, plan.task, output, started)


def to_record(
    plan: SamplePlan, outcome: Outcome, *, suite: str, model: str, protocol: str, **extra: object
) -> SampleRecord:
    """The line of ``samples.jsonl`` for a finished sample."""
    return SampleRecord.model_validate(
        {
            "id": plan.id,
            "suite": suite,
            "task": plan.task.id,
            "domain": plan.task.domain,
            "epoch": plan.epoch,
            "action_mode": plan.action_mode,
            "protocol": protocol,
            "model": model,
            "seed": plan.seed,
            "status": outcome.status,
            "answer": outcome.answer,
            "expected": plan.task.expected,
            "turns": outcome.turns,
            "usage": outcome.usage,
            "duration_s": round(outcome.duration_s, 4),
            "failure_code": outcome.failure_code,
            "failure_message": outcome.failure_message,
            "transcript": outcome.transcript,
            **extra,
        }
    )
