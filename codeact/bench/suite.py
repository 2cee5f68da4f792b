"""The suite protocol: tasks, the tools of each task and a grader.

A suite is a `Suite`: a name, a list of `BenchTask` (id, input, expected answer,
domain, metadata), ``tools(task)`` giving the host functions a task's scripts may call
(fresh per sample, so stateful tools start clean), and ``grader(task, answer)``
deciding whether a final answer is right. ``golden(task)`` may give scripted replies
that solve the task, for ``--model golden``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, JsonValue

ToolMap = Mapping[str, Callable[..., Any]]
#: A scripted reply: its text, or ``{"content": ..., "thinking": ...}``.
GoldenReply = str | dict[str, str]


class SuiteError(ValueError):
    """A suite that cannot be loaded or used; the message says what and where."""


class BenchTask(BaseModel):
    """One task of a suite."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    input: str = Field(min_length=1, description="What the agent is asked.")
    expected: JsonValue = None
    domain: str = "all"
    metadata: dict[str, JsonValue] = Field(default_factory=dict)


def exact_match(task: BenchTask, answer: Any) -> bool:
    """The default grader: the answer equals the expected value (or its text does)."""
    return bool(answer == task.expected) or str(answer).strip() == str(task.expected).strip()


def _no_tools(task: BenchTask) -> ToolMap:
    return {}


@dataclass(frozen=True)
class Suite:
    """A benchmark suite (see the module docstring)."""

    name: str
    tasks: Sequence[BenchTask]
    tools: Callable[[BenchTask], ToolMap] = _no_tools
    grader: Callable[[BenchTask, Any], bool] = exact_match
    instructions: str = ""
    golden: Callable[[BenchTask], list[GoldenReply] | None] | None = None
    description: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.name:
            raise SuiteError("a suite needs a name")
        ids = [task.id for task in self.tasks]
        duplicates = sorted({i for i in ids if ids.count(i) > 1})
        if duplicates:
            raise SuiteError(f"suite {self.name!r}: duplicate task ids {duplicates[:5]}")
        if not self.tasks:
            raise SuiteError(f"suite {self.name!r} has no tasks")

    @property
    def domains(self) -> list[str]:
        """The task domains, in first-seen order."""
        return list(dict.fromkeys(task.domain for task in self.tasks))

    def task(self, task_id: str) -> BenchTask:
        """The task with id `task_id`."""
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise SuiteError(f"suite {self.name!r} has no task {task_id!r}")

    def golden_replies(self, task: BenchTask) -> list[GoldenReply]:
        """The golden replies of `task`; `SuiteError` when the suite has none for it."""
        replies = self.golden(task) if self.golden is not None else None
        if not replies:
            raise SuiteError(f"suite {self.name!r} has no golden replies for task {task.id!r}")
        return replies


def select_tasks(suite: Suite, pattern: str | None, limit: int | None) -> list[BenchTask]:
    """The tasks whose id matches the glob `pattern` (comma-separated globs), at most `limit`."""
    from fnmatch import fnmatchcase

    tasks = list(suite.tasks)
    if pattern:
        globs = [g.strip() for g in pattern.split(",") if g.strip()]
        tasks = [t for t in tasks if any(fnmatchcase(t.id, g) for g in globs)]
        if not tasks:
            raise SuiteError(f"--tasks {pattern!r} matches no task of suite {suite.name!r}")
    if limit is not None:
        if limit < 1:
            raise SuiteError("--limit must be at least 1")
        tasks = tasks[:limit]
    return tasks
