"""ScriptOutput: what a script's run means, as a tagged union on ``type``.

The four variants share the base class :class:`ScriptOutput`, so
``isinstance(x, ScriptOutput)`` holds for each, and ``ScriptOutput.decode`` turns any
JSON value into one of them without ever raising: a value that does not fit becomes an
:class:`Error` whose message tells the model exactly what to return instead.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter, ValidationError

_QUOTE_CHARS = 300


class ScriptOutput(BaseModel):
    """Base of the four outputs; use :meth:`decode` to build one from raw JSON."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    type: str

    EXPECTED: ClassVar[str] = (
        'a dict tagged on "type": {"type": "final_result", "value": ...}, '
        '{"type": "observation", "value": ...}, {"type": "error", "message": "..."} or '
        '{"type": "transfer_to_agent", "agent_name": "..."} — or simply call '
        "final_result(value), observation(value), error(message) or transfer_to_agent(name)"
    )

    @classmethod
    def decode(cls, value: Any) -> AnyScriptOutput:
        """Decode ``value`` (JSON data or a JSON string of it); never raises."""
        try:
            return _ADAPTER.validate_python(value)
        except ValidationError as exc:
            problem = "; ".join(
                f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}" for e in exc.errors()
            )
        except Exception as exc:  # e.g. a hostile __eq__ on a non-JSON value
            problem = f"{type(exc).__name__}"
        return Error(
            message=f"The script returned {_quote(value)}, which is not a valid result "
            f"({_shorten(problem, 300)}). Return {cls.EXPECTED}."
        )

    @classmethod
    def decode_json(cls, text: str | bytes) -> AnyScriptOutput:
        """Decode a JSON document; invalid JSON becomes an :class:`Error` too."""
        try:
            value = json.loads(text)
        except (ValueError, TypeError) as exc:
            return Error(message=f"The result is not valid JSON ({exc}). Return {cls.EXPECTED}.")
        return cls.decode(value)

    @classmethod
    def json_schema(cls) -> dict[str, Any]:
        """The JSON schema of the tagged union."""
        return _ADAPTER.json_schema()


class Observation(ScriptOutput):
    """Intermediate result shown to the model; the agent loop continues."""

    type: Literal["observation"] = "observation"
    value: JsonValue = None


class Error(ScriptOutput):
    """The step failed; ``message`` says why, in words a model can act on."""

    type: Literal["error"] = "error"
    message: str


class FinalResult(ScriptOutput):
    """The task's answer; the agent loop ends."""

    type: Literal["final_result"] = "final_result"
    value: JsonValue = None


class TransferToAgent(ScriptOutput):
    """Hand the run over to the agent named ``agent_name``."""

    type: Literal["transfer_to_agent"] = "transfer_to_agent"
    agent_name: str = Field(min_length=1)


AnyScriptOutput = Annotated[
    Observation | Error | FinalResult | TransferToAgent, Field(discriminator="type")
]
_ADAPTER: TypeAdapter[AnyScriptOutput] = TypeAdapter(AnyScriptOutput)


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _quote(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except Exception:
        try:
            text = repr(value)
        except Exception:
            text = f"<{type(value).__name__}>"
    return _shorten(text, _QUOTE_CHARS)
