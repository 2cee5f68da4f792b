"""The policy's sections: per-run limits, the defence layers, mounts."""

from __future__ import annotations

from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

#: The smallest ``memory_mb`` accepted. Measured on CPython 3.11: the default preset's
#: zygote maps about 35 MB (its modules and the timezone database it preloads) and the
#: host wants 48 MB of headroom above it, so a worker starts from 84 MB (``codeact exec
#: --memory-mb 83`` fails, 84 works); the margin is for larger builds. The host still
#: checks the real figure when the sandbox starts (the data preset needs far more).
MIN_MEMORY_MB = 100


class Limits(BaseModel):
    """Per-run limits (per session where the name says so)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    wall_s: float = Field(10.0, gt=0, le=3600, description="Wall-clock seconds per run.")
    cpu_soft_s: float = Field(5.0, gt=0, description="CPU seconds per run before a graceful stop.")
    cpu_hard_s: float = Field(
        6.0, gt=0, description="CPU seconds per run before the worker is killed."
    )
    session_cpu_s: int = Field(600, gt=0, description="Kernel CPU limit for a session's worker.")
    memory_mb: int = Field(
        512, le=1 << 20, description=f"Address-space limit of a worker (at least {MIN_MEMORY_MB})."
    )
    output_bytes: int = Field(65536, ge=64, description="Printed output kept per run.")
    result_bytes: int = Field(1_000_000, ge=64, description="Largest result (as JSON) per run.")
    tool_calls: int = Field(1000, ge=0, description="Tool calls per run.")
    tool_timeout_s: float = Field(30.0, gt=0, description="Seconds a single tool call may take.")
    source_bytes: int = Field(100_000, ge=16, description="Largest script accepted.")
    recursion_depth: int = Field(200, ge=20, le=20000, description="Python call depth.")

    @field_validator("memory_mb")
    @classmethod
    def _enough_to_start(cls, value: int) -> int:
        if value < MIN_MEMORY_MB:
            raise ValueError(
                f"{value} MB is too little: a worker needs at least {MIN_MEMORY_MB} MB "
                f"to start (the interpreter, RestrictedPython and the allowed modules)"
            )
        return value

    @model_validator(mode="after")
    def _soft_below_hard(self) -> Self:
        if self.cpu_soft_s > self.cpu_hard_s:
            raise ValueError("cpu_soft_s must not exceed cpu_hard_s")
        return self


class Layers(BaseModel):
    """The defence layers; each is on by default. Switching one off is for research."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    language: bool = Field(
        True,
        description="RestrictedPython transform, guards and module proxies; off = the "
        "script runs as plain Python in the worker.",
    )
    os: bool = Field(
        True,
        description="Worker confinement: empty environment, closed descriptors, syscall "
        "filter, filesystem confinement; off = only rlimits and the wall clock.",
    )


class Mount(BaseModel):
    """A host directory visible to scripts at ``sandbox_path``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sandbox_path: str = Field(description="Absolute path inside the sandbox, e.g. /data.")
    host_path: str = Field(
        description="Host directory (relative paths: from the working "
        "directory when the sandbox starts)."
    )
    mode: Literal["ro", "rw"] = "ro"
    max_bytes: int = Field(
        10 * 1024 * 1024, ge=0, description="Bytes a session may write under this mount (rw)."
    )

    @field_validator("sandbox_path")
    @classmethod
    def _absolute(cls, value: str) -> str:
        if not value.startswith("/") or value == "/":
            raise ValueError("must be an absolute path other than /")
        parts = [p for p in value.split("/") if p]
        if any(p in (".", "..") for p in parts):
            raise ValueError("must not contain . or .. components")
        return "/" + "/".join(parts)
