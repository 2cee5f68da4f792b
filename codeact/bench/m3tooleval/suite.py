"""M3ToolEval as a `codeact.bench.Suite`: ``codeact bench run m3tooleval --model MODEL``."""

from __future__ import annotations

from typing import Any

from codeact.bench.m3tooleval.domains import tools_for
from codeact.bench.m3tooleval.golden import GoldenError, golden_replies
from codeact.bench.m3tooleval.grader import is_correct
from codeact.bench.m3tooleval.tasks import Task, load_tasks
from codeact.bench.suite import BenchTask, GoldenReply, Suite, ToolMap

INSTRUCTIONS = (
    "You solve M3ToolEval tasks by writing Python. The tools listed are plain Python "
    "functions you call from your code; print what you need to see. When you know the "
    "answer, call final_result(answer) with the answer in the form the task asks for."
)


def _bench_task(task: Task) -> BenchTask:
    return BenchTask(
        id=task.name,
        input=task.instruction,
        expected=task.expected_output,
        domain=task.domain,
        metadata={
            "expected_type": task.expected_type,
            "is_single_tool_task": task.is_single_tool_task,
            "tools": [tool.model_dump() for tool in task.tools],
        },
    )


def _tools(task: BenchTask) -> ToolMap:
    return tools_for(task.domain)


def _grade(task: BenchTask, answer: Any) -> bool:
    return is_correct(answer, task.expected, str(task.metadata["expected_type"]))


def _golden(task: BenchTask) -> list[GoldenReply] | None:
    try:
        return list(golden_replies(task.id))
    except GoldenError:
        return None


SUITE = Suite(
    name="m3tooleval",
    tasks=[_bench_task(task) for task in load_tasks()],
    tools=_tools,
    grader=_grade,
    instructions=INSTRUCTIONS,
    golden=_golden,
    description="M3ToolEval (CodeAct paper): 82 multi-turn, multi-tool tasks in 5 domains",
)
