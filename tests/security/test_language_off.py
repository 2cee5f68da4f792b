"""With the language layer off, the OS layer alone must stop every attack on the host.

Attacks run as plain Python in the worker. A writable mount's total is held by private
writes (each session its own copy-on-write view, user namespaces); where this machine
refuses those, the quota case is skipped with the reason (or fails, where full
confinement is required).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import Mount, Sandbox, SandboxPolicy
from sandbox.probe import CaseResult, run_suite
from tests.confinement import degraded

OS_CATEGORIES = (
    "filesystem",
    "network",
    "processes",
    "environment",
    "procfs",
    "symlink",
    "os",
    "channel",
)
#: Held by write staging, which needs user namespaces: tested on its own below.
QUOTA_CASE = "fs-rw-quota"


@pytest.fixture(scope="module")
def results(full_os_layer: None) -> dict[str, CaseResult]:
    policy = SandboxPolicy.preset("default").with_layers(language=False)
    return {r.id: r for r in run_suite(policy, "escapes", categories=OS_CATEGORIES)}


@pytest.mark.timeout(300)
@pytest.mark.parametrize("category", OS_CATEGORIES)
def test_the_os_layer_alone_contains(category: str, results: dict[str, CaseResult]) -> None:
    cases = [r for r in results.values() if r.category == category]
    assert cases
    escaped = [
        f"{r.id}: {r.detail}" for r in cases if r.outcome == "escaped" and r.id != QUOTA_CASE
    ]
    assert not escaped


@pytest.mark.timeout(300)
def test_a_writable_mounts_total_holds_without_the_language_layer(
    results: dict[str, CaseResult], tmp_path: Path
) -> None:
    policy = (
        SandboxPolicy.preset("default")
        .with_layers(language=False)
        .with_mounts(Mount(sandbox_path="/out", host_path=str(tmp_path), mode="rw"))
    )
    with Sandbox(policy) as sandbox:
        staging = sandbox.confinement["private_writes"]
    if not staging.startswith("active"):
        degraded(f"private writes are degraded here: {staging}")
    assert results[QUOTA_CASE].outcome != "escaped", results[QUOTA_CASE].detail


@pytest.mark.timeout(300)
def test_plain_python_really_ran(results: dict[str, CaseResult]) -> None:
    # Not refused by a language layer: the attacks reached the operating system.
    assert not [r.id for r in results.values() if r.error_code == "policy_violation"]
