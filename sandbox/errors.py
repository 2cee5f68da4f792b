"""Every exception the sandbox raises to its caller, under one base: :class:`SandboxError`.

``except SandboxError`` catches anything the sandbox refused or failed at. Errors about
what the caller gave (a policy, a tool) are also ``ValueError`` s, as they always were.
What a script raises inside its worker is never one of these: a run reports it in its
:class:`~sandbox.execution.Execution`. This module imports nothing, so that any module,
on either side of the process boundary, may raise these.
"""

from __future__ import annotations


class SandboxError(RuntimeError):
    """The sandbox machinery itself failed or refused (not the script)."""


class ZygoteFailure(SandboxError):
    """The zygote died or stopped answering; the sandbox replaces it."""


class AdmissionTimeout(SandboxError):
    """No session slot became free within the sandbox's admission timeout."""


class AdmissionCancelled(SandboxError):
    """The caller gave up waiting for a session slot."""


class RequirementNotMet(SandboxError):
    """A mechanism the policy requires is not active in this sandbox's workers."""


class PolicyError(SandboxError, ValueError):
    """A policy could not be loaded or built; the message names the field at fault."""


class ToolDefinitionError(SandboxError, ValueError):
    """A host callable cannot be offered as a tool; the message says why."""


class ProbeRefused(SandboxError):
    """The probe will not run under this policy on this machine; the message says why."""


class CorpusError(SandboxError, ValueError):
    """A corpus file is malformed; the message names the file."""


class SnapshotError(SandboxError, ValueError):
    """A session's state could not be taken or restored: the blob is not a snapshot, was
    altered, or the worker failed or ran out of time meanwhile (the message says which)."""
