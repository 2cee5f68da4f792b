"""The worker's messages, as the host validates them.

Everything a worker sends is untrusted bytes: each frame is parsed with pydantic
(``validate_json``) into one of these shapes or rejected, and a rejected frame ends the
worker. Nothing from a worker is ever unpickled or called. The shapes are the
protocol's worker frames (``sandbox/protocol.py``), field for field: a test compares.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter

from sandbox.execution import ErrorCode, ScriptImage

#: The codes only the host decides (it stopped the worker, or lost it): a worker that
#: claims one is lying about what the host did.
HOST_ONLY_CODES = frozenset({ErrorCode.TIMEOUT, ErrorCode.CANCELLED, ErrorCode.WORKER_CRASHED})


#: A worker's own measurement: a number of seconds or bytes, never negative, NaN or
#: infinite (the session starts the next run's CPU count from ``process_cpu_s``: NaN
#: there would make every later comparison false, the host's CPU check never firing).
Seconds = Annotated[float, Field(ge=0, allow_inf_nan=False)]
Bytes = Annotated[int, Field(ge=0)]


def _worker_code(code: ErrorCode | None) -> ErrorCode | None:
    if code in HOST_ONLY_CODES:
        raise ValueError(f"error code {code.value!r} is decided by the host, not the worker")
    return code


class _Message(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class Hello(_Message):
    """A new worker is confined and ready; ``confinement`` maps mechanism → state."""

    op: Literal["hello"]
    pid: int
    confinement: dict[str, str]
    process_cpu_s: Seconds = 0.0
    layers: list[Annotated[int, Field(ge=0, le=1 << 20)]] = Field(default_factory=list)


class Call(_Message):
    """The script called a host tool: call ``id`` counts up from 1 in each run;
    ``concurrent`` calls (made in the script's event loop) may be in flight together."""

    op: Literal["call"]
    id: int
    concurrent: bool = False
    name: str
    # Parsed JSON: JSON values by construction (the tool's signature validates them).
    args: list[Any] = Field(default_factory=list)
    keywords: dict[str, Any] = Field(default_factory=dict)


class RunDone(_Message):
    """One run finished inside the worker. ``output`` is parsed JSON (JSON values by
    construction) and validated once, as a script output, where it is decoded."""

    op: Literal["done"]
    output: Any
    stdout: str = ""
    stdout_truncated: bool = False
    error_code: Annotated[ErrorCode | None, AfterValidator(_worker_code)] = None
    cpu_s: Seconds = 0.0
    peak_memory_bytes: Bytes = 0
    process_cpu_s: Seconds = 0.0
    seq: int | None = None
    images: list[ScriptImage] = Field(default_factory=list)


class Crash(_Message):
    """The worker hit an internal error and is exiting."""

    op: Literal["crash"]
    message: str = ""


class StateHeader(_Message):
    """The answer to ``snapshot``: ``size`` bytes of snapshot follow, unless ``error``."""

    op: Literal["state"]
    size: Bytes
    error: str | None = None
    process_cpu_s: Seconds = 0.0


class LostName(_Message):
    """A variable a snapshot could not keep, or a restore could not rebuild."""

    name: str
    reason: str


class Restored(_Message):
    """The answer to ``restore``."""

    op: Literal["restored"]
    variables: list[str]
    lost: list[LostName]
    error: str | None = None
    process_cpu_s: Seconds = 0.0


#: Every message a worker may send, one model per protocol frame.
WORKER_MESSAGES = (Hello, Call, RunDone, Crash, StateHeader, Restored)
WorkerMessage = Annotated[
    Hello | Call | RunDone | Crash | StateHeader | Restored, Field(discriminator="op")
]
_ADAPTER: TypeAdapter[WorkerMessage] = TypeAdapter(WorkerMessage)


def parse_worker_message(frame: bytes) -> WorkerMessage:
    """Validate one frame; raises ``ValueError`` (pydantic's) for anything else."""
    return _ADAPTER.validate_json(frame)
