"""sandbox: run model-written Python under RestrictedPython in forked, confined workers.

Public API: :class:`Sandbox`, :class:`AsyncSandbox`, :class:`SandboxPolicy`,
:class:`Execution`, :class:`ScriptOutput` (and its variants), :class:`ErrorCode`,
:class:`SandboxHealth`, and the errors (:mod:`sandbox.errors`: every one is a
:class:`SandboxError`).

Names are loaded on first use, so that the worker processes, which import
``sandbox.worker.zygote``, do not pay for the host side (pydantic, threads).
"""

from __future__ import annotations

import logging
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from sandbox.errors import (
        AdmissionTimeout,
        PolicyError,
        RequirementNotMet,
        SandboxError,
        SnapshotError,
        ToolDefinitionError,
    )
    from sandbox.execution import ErrorCode, Execution, ScriptImage, ToolCallRecord
    from sandbox.host.aio import AsyncSandbox, AsyncSession
    from sandbox.host.health import SandboxHealth
    from sandbox.host.sandbox import Sandbox
    from sandbox.host.session import Session
    from sandbox.host.snapshots import LostVariable, RestoreReport, Snapshot
    from sandbox.output import Error, FinalResult, Observation, ScriptOutput, TransferToAgent
    from sandbox.policy import Layers, Limits, Mount, SandboxPolicy

_EXPORTS = {
    "AdmissionTimeout": "errors",
    "AsyncSandbox": "host.aio",
    "AsyncSession": "host.aio",
    "ErrorCode": "execution",
    "Execution": "execution",
    "ToolCallRecord": "execution",
    "ScriptImage": "execution",
    "Sandbox": "host.sandbox",
    "SandboxHealth": "host.health",
    "Session": "host.session",
    "Snapshot": "host.snapshots",
    "LostVariable": "host.snapshots",
    "RestoreReport": "host.snapshots",
    "SnapshotError": "errors",
    "Error": "output",
    "FinalResult": "output",
    "Observation": "output",
    "ScriptOutput": "output",
    "TransferToAgent": "output",
    "Layers": "policy",
    "Limits": "policy",
    "Mount": "policy",
    "PolicyError": "errors",
    "SandboxPolicy": "policy",
    "SandboxError": "errors",
    "RequirementNotMet": "errors",
    "ToolDefinitionError": "errors",
}

# Silent unless the application configures logging (``codeact run -v`` does).
logging.getLogger("sandbox").addHandler(logging.NullHandler())

__all__ = [
    "AdmissionTimeout",
    "AsyncSandbox",
    "AsyncSession",
    "Error",
    "ErrorCode",
    "Execution",
    "FinalResult",
    "Layers",
    "Limits",
    "LostVariable",
    "Mount",
    "Observation",
    "PolicyError",
    "RequirementNotMet",
    "RestoreReport",
    "Sandbox",
    "SandboxError",
    "SandboxHealth",
    "SandboxPolicy",
    "ScriptImage",
    "ScriptOutput",
    "Session",
    "Snapshot",
    "SnapshotError",
    "ToolCallRecord",
    "ToolDefinitionError",
    "TransferToAgent",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'sandbox' has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value
