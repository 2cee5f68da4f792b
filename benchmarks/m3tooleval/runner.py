"""Running a task's golden replies through the codeact agent loop, and grading the answer."""

from dataclasses import dataclass
from typing import Any

from benchmarks.m3tooleval.domains import tools_for
from benchmarks.m3tooleval.golden import golden_replies
from benchmarks.m3tooleval.grader import is_correct
from benchmarks.m3tooleval.tasks import Task, task_by_name

INSTRUCTIONS = (
    "You solve M3ToolEval tasks by writing Python. The tools listed are plain Python "
    "functions you call from your code; print what you need to see. When you know the "
    "answer, call final_result(answer) with the answer in the form the task asks for."
)
MAX_STEPS = 10


@dataclass(frozen=True)
class GoldenRun:
    """The outcome of one task's golden replies through the agent."""

    task: Task
    value: Any
    passed: bool
    replies_left: int


def run_golden(task_name: str, max_steps: int = MAX_STEPS, sandbox: Any = None) -> GoldenRun:
    """Run the golden replies of `task_name` through a fresh agent and grade the result.

    `sandbox`: a started `Sandbox` with the default policy to share across tasks.
    """
    from codeact import Agent
    from codeact.models import ScriptedModel, ScriptedReply

    task = task_by_name(task_name)
    replies = [
        reply if isinstance(reply, str) else ScriptedReply.model_validate(reply)
        for reply in golden_replies(task_name)
    ]
    model = ScriptedModel(replies)
    agent = Agent(
        name="m3",
        model=model,
        instructions=INSTRUCTIONS,
        tools=tools_for(task.domain),
        max_steps=max_steps,
    )
    out = agent.run_sync(task.instruction, sandbox=sandbox)
    value = out.value
    return GoldenRun(
        task=task,
        value=value,
        passed=is_correct(value, task.expected_output, task.expected_type),
        replies_left=model.remaining,
    )
