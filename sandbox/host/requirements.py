"""Mechanisms a policy requires (``require = [...]``) and the check against a worker's
confinement report: a sandbox refuses to start, and to start a worker, where one of
them is not active on this machine.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sandbox.errors import RequirementNotMet
from sandbox.worker.confine.namespaces import MECHANISMS

#: The confinement report's mechanisms a policy may require.
REQUIRABLE = (*MECHANISMS, "filesystem", "syscall_filter", "rlimits", "private_writes")


def unmet(require: Iterable[str], confinement: Mapping[str, str]) -> dict[str, str]:
    """Each required mechanism that is not active, with its state."""
    return {
        name: confinement.get(name, "not reported by the worker")
        for name in require
        if not confinement.get(name, "").startswith("active")
    }


def check(require: Iterable[str], confinement: Mapping[str, str]) -> None:
    """Raise :class:`RequirementNotMet` naming every required mechanism not active."""
    missing = unmet(require, confinement)
    if missing:
        found = "; ".join(f"{name}: {state}" for name, state in missing.items())
        raise RequirementNotMet(
            f"the policy requires {', '.join(missing)}, not available here ({found})"
        )
