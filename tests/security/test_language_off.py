"""With the language layer off, the OS layer alone must stop every attack on the host.

Attacks run as plain Python in the worker. Cases listed in ``KNOWN_HOLES`` are gaps the
OS layer has today (reported, with a repro, to the sandbox's owner): each is an xfail
that turns into a failure once the gap is closed, so that the list stays honest.
"""

from __future__ import annotations

import pytest

from sandbox import SandboxPolicy
from sandbox.probe import CaseResult, run_suite

OS_CATEGORIES = (
    "filesystem",
    "network",
    "processes",
    "environment",
    "procfs",
    "symlink",
    "channel",
)
#: Case id → why the OS layer does not stop it yet.
KNOWN_HOLES = {
    "fs-rw-quota": "the kernel caps each file (RLIMIT_FSIZE), not a mount's total: the "
    "host finds the overdraft after the run and stops the session, but the bytes landed",
}


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
        f"{r.id}: {r.detail}" for r in cases if r.outcome == "escaped" and r.id not in KNOWN_HOLES
    ]
    assert not escaped


@pytest.mark.timeout(300)
@pytest.mark.parametrize(
    "case_id",
    [
        pytest.param(k, marks=pytest.mark.xfail(reason=v, strict=True))
        for k, v in KNOWN_HOLES.items()
    ],
)
def test_known_hole_is_closed(case_id: str, results: dict[str, CaseResult]) -> None:
    assert results[case_id].outcome != "escaped", results[case_id].detail


@pytest.mark.timeout(300)
def test_plain_python_really_ran(results: dict[str, CaseResult]) -> None:
    # Not refused by a language layer: the attacks reached the operating system.
    assert not [r.id for r in results.values() if r.error_code == "policy_violation"]
