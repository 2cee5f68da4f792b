"""AgentOutput: what a finished run returns."""

from __future__ import annotations

import json
from typing import Any, Generic, cast

from pydantic import BaseModel, ConfigDict, Field, JsonValue, PrivateAttr
from typing_extensions import TypeVar

from codeact.events import FailureCode
from codeact.messages import Message
from codeact.schema import adapter
from codeact.summary import UsageSummary, plural
from sandbox import ToolCallRecord


class ToolCallLog(ToolCallRecord):
    """One tool call made by any script of the run (sub-agents included): the sandbox's
    record plus the step and the agent that made it."""

    step: int
    agent: str


class RunFailure(BaseModel):
    """Why a run ended without a result."""

    model_config = ConfigDict(frozen=True)

    code: FailureCode
    message: str


#: The type of a run's final result: the agent's ``output_schema`` when that is a type
#: (a pydantic model, a dataclass...), else the JSON value itself.
OutputT = TypeVar("OutputT", default=JsonValue)


class AgentOutput(BaseModel, Generic[OutputT]):
    """The final result, the whole history, every tool call and the summed usage.

    ``value`` is the final result as JSON; ``output`` is the same result as the agent's
    output type: ``AgentOutput[Trip]`` (what ``run()`` returns for
    ``Agent(..., output_schema=Trip)``) validates ``value`` into a ``Trip``.
    """

    model_config = ConfigDict(frozen=True)

    run_id: str
    agent: str = Field(description="The agent that finished the run (after transfers).")
    value: JsonValue = None
    messages: list[Message] = Field(default_factory=list)
    tool_calls: list[ToolCallLog] = Field(default_factory=list)
    usage: UsageSummary = Field(default_factory=UsageSummary)
    steps: int = 0
    failure: RunFailure | None = None
    #: ``output`` once computed, in a 1-tuple (its value may be None).
    _output: tuple[Any] | None = PrivateAttr(default=None)

    @property
    def output(self) -> OutputT:
        """The final result as the output type (validated from ``value`` once); raises
        ``ValueError`` when the run failed."""
        if self.failure is not None:
            raise ValueError(
                f"the run failed ({self.failure.code}) and has no output: {self.failure.message}"
            )
        if self._output is None:
            target = output_type(type(self))
            value = self.value if target is None else adapter(target).validate_python(self.value)
            self._output = (value,)
        return cast(OutputT, self._output[0])

    @property
    def ok(self) -> bool:
        """True when the run produced a final result."""
        return self.failure is None

    def text(self) -> str | None:
        """The value's ``content`` field, or the value itself when it is a string."""
        if isinstance(self.value, str):
            return self.value
        if isinstance(self.value, dict):
            content = self.value.get("content")
            return content if isinstance(content, str) else None
        return None

    def text_or(self, default: str) -> str:
        """:meth:`text`, or ``default`` when there is none."""
        text = self.text()
        return default if text is None else text

    def message_count(self) -> int:
        """Messages in the history."""
        return len(self.messages)

    def tool_call_count(self) -> int:
        """Tool calls made by the run's scripts."""
        return len(self.tool_calls)

    def total_tokens(self) -> int:
        """Input plus output tokens over every model call."""
        return self.usage.total_tokens

    def prompt_tokens(self) -> int:
        """Input tokens over every model call."""
        return self.usage.input_tokens

    def completion_tokens(self) -> int:
        """Output tokens over every model call."""
        return self.usage.output_tokens

    def usage_summary(self) -> str:
        """The usage in one line."""
        return self.usage.one_line()

    def __str__(self) -> str:
        head = f"AgentOutput({self.agent}, {plural(self.steps, 'step')})"
        if self.failure is not None:
            body = f"failed ({self.failure.code}): {self.failure.message}"
        else:
            text = self.text()
            body = text if text is not None else json.dumps(self.value, ensure_ascii=False)
        return f"{head}\n{body}\n{self.usage_summary()}"


def output_type(cls: type[AgentOutput[Any]]) -> Any:
    """The type ``cls`` was parametrized with (``AgentOutput[Trip]`` → ``Trip``), or None."""
    args = cls.__pydantic_generic_metadata__["args"]
    return args[0] if args and isinstance(args[0], type) else None


def output_class(schema: object) -> type[AgentOutput[Any]]:
    """``AgentOutput`` parametrized with ``schema`` when it is a type, else plain."""
    return AgentOutput[schema] if isinstance(schema, type) else AgentOutput  # type: ignore[valid-type]
