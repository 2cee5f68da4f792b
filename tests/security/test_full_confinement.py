"""On a machine that has every mechanism, every mechanism is active.

CI runs with ``CODEACT_REQUIRE_FULL_CONFINEMENT=1`` (``.ci/run``): there a mechanism the
confinement report calls degraded fails this test, and every security test that would
otherwise skip for it fails too (``tests/confinement.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import Mount, Sandbox, SandboxPolicy
from tests.confinement import degraded

#: Not a confinement mechanism of this machine's kernel: the sandbox's cgroup needs the
#: host's service manager to delegate one (reported all the same).
NOT_KERNEL = ("cgroup",)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("language", [True, False], ids=["all layers", "os layer alone"])
def test_every_mechanism_is_active_here(tmp_path: Path, language: bool) -> None:
    (tmp_path / "ro").mkdir()
    (tmp_path / "rw").mkdir()
    policy = SandboxPolicy.preset("default").with_mounts(
        Mount(sandbox_path="/data", host_path=str(tmp_path / "ro")),
        Mount(sandbox_path="/out", host_path=str(tmp_path / "rw"), mode="rw"),
    )
    policy = policy.with_layers(language=language)
    with Sandbox(policy, spares=0) as sandbox, sandbox.session() as session:
        assert session.run("x = 1").ok
        states = dict(sandbox.confinement)
    assert "private_writes" in states
    weak = {
        name: state
        for name, state in states.items()
        if name not in NOT_KERNEL and not state.startswith("active") and state != "off"
    }
    if weak:
        degraded(f"mechanisms are degraded here: {weak}")
