"""The M3ToolEval tasks, loaded and validated from the shipped `data/tasks.json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

DATA_DIR = Path(__file__).resolve().parent / "data"
TASKS_FILE = DATA_DIR / "tasks.json"

ExpectedType = Literal["str", "float", "int", "list", "dict", "bool", "tuple"]

_PYTHON_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,),
    "float": (int, float),
    "int": (int,),
    "list": (list,),
    "dict": (dict,),
    "bool": (bool,),
    "tuple": (list,),
}


class TaskError(ValueError):
    """The task data cannot be used; the message names the file, task and field."""


class ToolInfo(BaseModel):
    """A tool as the original benchmark described it to the model."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str
    signature: str


class Task(BaseModel):
    """One M3ToolEval task; `expected_output` of a `tuple` task is stored as a list."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    domain: str
    instruction: str
    expected_output: Any
    expected_type: ExpectedType
    is_single_tool_task: bool
    tools: tuple[ToolInfo, ...]

    @model_validator(mode="after")
    def _consistent(self) -> Task:
        if not self.name.startswith(f"{self.domain}/"):
            raise ValueError(f"name {self.name!r} does not start with its domain {self.domain!r}")
        if not self.tools:
            raise ValueError("tools is empty")
        allowed = _PYTHON_TYPES[self.expected_type]
        value = self.expected_output
        wrong_bool = isinstance(value, bool) and bool not in allowed
        if wrong_bool or not isinstance(value, allowed):
            raise ValueError(
                f"expected_output {value!r} is not of expected_type {self.expected_type!r}"
            )
        return self

    @property
    def tool_names(self) -> list[str]:
        """The names of the task's tools, in the order the data lists them."""
        return [tool.name for tool in self.tools]


def _describe(exc: ValidationError) -> str:
    first = exc.errors(include_url=False)[0]
    field = ".".join(str(part) for part in first["loc"]) or "(task)"
    return f"field {field!r}: {first['msg']}"


def load_tasks(path: Path | str | None = None) -> list[Task]:
    """Load and validate the tasks (by default the shipped `data/tasks.json`)."""
    source = Path(path) if path is not None else TASKS_FILE
    try:
        raw = json.loads(source.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TaskError(f"{source}: cannot be read: {exc.strerror or exc}") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise TaskError(f"{source}: not valid JSON: {exc}") from exc
    if not isinstance(raw, list):
        raise TaskError(f"{source}: must hold a JSON list of tasks, got {type(raw).__name__}")
    tasks: list[Task] = []
    seen: set[str] = set()
    for index, item in enumerate(raw):
        label = item.get("name") if isinstance(item, dict) else None
        where = f"{source}: task {index}" + (f" ({label!r})" if isinstance(label, str) else "")
        if not isinstance(item, dict):
            raise TaskError(f"{where}: must be a JSON object, got {type(item).__name__}")
        try:
            task = Task.model_validate(item)
        except ValidationError as exc:
            raise TaskError(f"{where}: {_describe(exc)}") from exc
        if task.name in seen:
            raise TaskError(f"{where}: duplicate task name")
        seen.add(task.name)
        tasks.append(task)
    return tasks


def task_by_name(name: str, tasks: list[Task] | None = None) -> Task:
    """The task called `name`; `KeyError` naming close matches when there is none."""
    pool = tasks if tasks is not None else load_tasks()
    for task in pool:
        if task.name == name:
            return task
    tail = name.rsplit("/", 1)[-1]
    close = [task.name for task in pool if tail and tail in task.name][:5]
    hint = f"; similar: {', '.join(close)}" if close else ""
    raise KeyError(f"no task named {name!r}{hint}")
