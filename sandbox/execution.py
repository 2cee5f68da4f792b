"""Execution: the record of one ``run`` — output, printed text, error code, costs."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from sandbox.output import AnyScriptOutput


class ErrorCode(StrEnum):
    """Why a run failed. Stable: callers and logs rely on these values (the wire's own,
    ``sandbox.protocol.ERROR_CODES``: a test keeps the two the same set)."""

    SYNTAX_ERROR = "syntax_error"
    """The script is not valid Python."""
    POLICY_VIOLATION = "policy_violation"
    """The script uses something the policy refuses (underscore names, exec, too long...)."""
    RUNTIME_ERROR = "runtime_error"
    """The script raised an exception (including a failed tool call it did not catch)."""
    TIMEOUT = "timeout"
    """The run exceeded its wall-clock limit; the worker was killed."""
    CPU_LIMIT = "cpu_limit"
    """The run exceeded its CPU-time limit."""
    MEMORY_LIMIT = "memory_limit"
    """The script ran out of its memory allowance."""
    OUTPUT_LIMIT = "output_limit"
    """The script printed, or returned, more than the policy allows."""
    TOOL_CALL_LIMIT = "tool_call_limit"
    """The script made more tool calls than the policy allows per run."""
    CANCELLED = "cancelled"
    """The caller cancelled the run; the worker was killed."""
    WORKER_CRASHED = "worker_crashed"
    """The worker died for another reason (a crash in C code, a protocol violation)."""


class ToolCallRecord(BaseModel):
    """One tool call a script made."""

    model_config = ConfigDict(frozen=True)

    name: str
    arguments: dict[str, JsonValue]
    ok: bool
    duration_s: float
    result: JsonValue = None
    error: str | None = None


def escape_name(name: str | bytes) -> str:
    """A file name as text that any JSON, log line or terminal carries unchanged.

    A name is bytes to the kernel. Valid UTF-8 stays as it is, except that each byte of
    it that is not, each control character and the backslash itself are written
    ``\\xNN`` (lower-case hex): ``b"r\\xff.txt"`` → ``r\\xff.txt``, a newline →
    ``\\x0a``, ``a\\b`` → ``a\\x5cb``. Unambiguous, so the bytes can be recovered.
    """
    raw = name if isinstance(name, bytes) else name.encode("utf-8", "surrogateescape")
    text = raw.decode("utf-8", "surrogateescape")
    if text.isprintable() and "\\" not in text:
        return text
    out = []
    for char in text:
        if "\udc80" <= char <= "\udcff":
            out.append(f"\\x{ord(char) - 0xDC00:02x}")
        elif char == "\\" or (not char.isprintable() and ord(char) < 0x100):
            out.append(f"\\x{ord(char):02x}")
        elif not char.isprintable():
            out.append("".join(f"\\x{b:02x}" for b in char.encode("utf-8", "surrogatepass")))
        else:
            out.append(char)
    return "".join(out)


#: Characters of paths that ``Execution.files`` lists per writable mount and run. A
#: script names its files: sixty levels of 255-byte names escaped four characters a byte
#: make one path 60 kB, and a thousand such files an 80 MB result (and seconds of the
#: host escaping them). Files beyond it are written all the same and counted in the
#: run's output.
MAX_LISTED_CHARS = 256 * 1024


class WrittenFile(BaseModel):
    """A file a run created or changed under a writable mount."""

    model_config = ConfigDict(frozen=True)

    path: str = Field(
        description="Its path inside the sandbox, e.g. /out/plot.png; a name that is not "
        "printable UTF-8 is escaped (see escape_name)."
    )
    size: int = Field(description="Its size in bytes after the run.")
    created: bool = Field(description="True if the run created it, False if it changed it.")

    @field_validator("path")
    @classmethod
    def _serializable(cls, value: str) -> str:
        # Whoever built it, a path JSON cannot carry (a lone surrogate: an undecodable
        # byte of a name) is never stored as such; idempotent, so a record read back
        # stays the same.
        if not any("\ud800" <= char <= "\udfff" for char in value):
            return value
        return "".join(
            (f"\\x{ord(c) - 0xDC00:02x}" if c >= "\udc80" else f"\\u{ord(c):04x}")
            if "\ud800" <= c <= "\udfff"
            else c
            for c in value
        )


class ScriptImage(BaseModel):
    """An image the script showed (``display(obj)``, ``plt.show()``)."""

    model_config = ConfigDict(frozen=True)

    media_type: Literal["image/png", "image/jpeg"]
    data: str = Field(
        repr=False, pattern=r"^[A-Za-z0-9+/]*={0,2}$", description="The image, base64-encoded."
    )


class Execution(BaseModel):
    """What :meth:`Session.run` returns, whatever the script did."""

    model_config = ConfigDict(frozen=True)

    output: AnyScriptOutput
    stdout: str = ""
    stdout_truncated: bool = False
    error_code: ErrorCode | None = None
    duration_s: float = 0.0
    cpu_s: float = 0.0
    peak_memory_bytes: int = 0
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    confinement: dict[str, str] = Field(
        default_factory=dict,
        description="Each mechanism's state in the worker that ran the script: 'active', "
        "'off' (switched off by the policy) or 'degraded: <why>' (not possible here).",
    )
    files: list[WrittenFile] = Field(
        default_factory=list,
        description="Files the run created or changed under the writable mounts.",
    )
    images: list[ScriptImage] = Field(
        default_factory=list,
        description="The images the script showed, in order (the data policies' display() "
        "and plt.show()); their base64 counts against result_bytes.",
    )
    worker_restarted: bool = Field(
        False,
        description="The session's previous worker had died, so this run started in a "
        "fresh one: variables from earlier runs are gone.",
    )

    @property
    def ok(self) -> bool:
        """True when the run raised no error and hit no limit."""
        return self.error_code is None
