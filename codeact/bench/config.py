"""`BenchConfig`: everything a benchmark run was asked for, checked before it starts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from codeact.bench.records import ActionMode, BenchProtocol
from codeact.bench.suite import BenchTask, Suite, SuiteError
from codeact.models.base import Model

ACTION_MODES: tuple[ActionMode, ...] = ("code", "json", "text")


@dataclass
class BenchConfig:
    """Everything ``codeact bench run`` was asked for."""

    suite: Suite
    model: str
    log_dir: Path
    protocol: BenchProtocol = "codeact"
    action_modes: list[ActionMode] = field(default_factory=lambda: ["code"])
    epochs: int = 1
    tasks: str | None = None
    limit: int | None = None
    policy: str = "default"
    max_steps: int = 10
    concurrency: int = 8
    max_connections: int | None = None
    retry_on_error: int = 1
    #: Instead of `model`'s spec: a function giving each sample's model (for library use).
    model_factory: Callable[[BenchTask], Model] | None = None
    #: Where samples run: here, or on a Ray cluster (``codeact[ray]``).
    backend: Literal["local", "ray"] = "local"
    #: The cluster for ``backend="ray"``: ``auto``, ``ray://HOST:PORT``, ...; None starts
    #: a local Ray for the run and stops it after.
    ray_address: str | None = None

    def check(self) -> None:
        """`SuiteError` for settings that cannot work together."""
        if self.epochs < 1 or self.concurrency < 1 or self.max_steps < 1:
            raise SuiteError("--epochs, --concurrency and --max-steps must be at least 1")
        if self.max_connections is not None and self.max_connections < 1:
            raise SuiteError("--max-connections must be at least 1")
        if self.backend not in ("local", "ray"):
            raise SuiteError(f"--backend {self.backend!r}: give local or ray")
        if self.ray_address is not None and self.backend != "ray":
            raise SuiteError("--ray-address goes with --backend ray")
        if self.retry_on_error < 0:
            raise SuiteError("--retry-on-error must be 0 or more")
        if self.protocol == "paper" and self.model == "golden" and self.model_factory is None:
            raise SuiteError(
                "golden replies are CodeAct transcripts: use them with --protocol codeact"
            )
        if self.protocol == "codeact" and self.action_modes != ["code"]:
            raise SuiteError(
                "--action-mode json/text needs --protocol paper "
                "(the codeact protocol acts by code only)"
            )
