"""M3ToolEval (CodeAct paper) as a codeact benchmark: tasks, tools, grader, golden replies."""

from codeact.bench.m3tooleval.domains import DOMAINS, tools_for
from codeact.bench.m3tooleval.golden import golden_replies, golden_task_names
from codeact.bench.m3tooleval.grader import is_correct
from codeact.bench.m3tooleval.tasks import Task, TaskError, load_tasks, task_by_name

__all__ = [
    "DOMAINS",
    "Task",
    "TaskError",
    "golden_replies",
    "golden_task_names",
    "is_correct",
    "load_tasks",
    "task_by_name",
    "tools_for",
]
