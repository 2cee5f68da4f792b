"""The head of a probe's HTML report: the version, the date, and per configuration the
policy's digest and what the machine enforced under it."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from importlib import metadata

from sandbox.errors import PolicyError, SandboxError
from sandbox.host.sandbox import Sandbox
from sandbox.policy import SandboxPolicy
from sandbox.probe.report_html import ProbedConfiguration, ProbeReportInfo


def installed_version() -> str:
    """The installed distribution's version ("unknown" when run from a bare tree)."""
    try:
        return metadata.version("codeact")
    except metadata.PackageNotFoundError:
        return "unknown"


def machine_confinement(policy: SandboxPolicy) -> dict[str, str]:
    """Each mechanism's state in a worker started under ``policy`` on this machine."""
    try:
        with Sandbox(policy, spares=0) as sandbox:
            return dict(sandbox.confinement)
    except (SandboxError, PolicyError) as exc:
        return {"sandbox": f"degraded: it could not start: {exc}"}


def probe_info(title: str, policies: Mapping[str, SandboxPolicy]) -> ProbeReportInfo:
    """The report's head for ``policies``, one per configuration label."""
    return ProbeReportInfo(
        title=title,
        version=installed_version(),
        generated_at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        configurations=[
            ProbedConfiguration(
                label=label,
                policy=policy.name,
                digest=policy.digest(),
                confinement=machine_confinement(policy),
            )
            for label, policy in policies.items()
        ],
    )
