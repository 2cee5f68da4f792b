"""Shared fixtures for the security suite: what this machine's OS layer can enforce."""

from __future__ import annotations

import pytest

from sandbox import Sandbox, SandboxPolicy
from sandbox.probe.safety import REQUIRED_WITHOUT_LANGUAGE
from tests.confinement import degraded


@pytest.fixture(scope="session")
def full_os_layer() -> None:
    """Skip, naming the gap, when Landlock, seccomp or the capability drop is degraded here."""
    policy = SandboxPolicy.preset("default").with_layers(language=False)
    with Sandbox(policy, spares=0) as sandbox, sandbox.session():
        states = dict(sandbox.confinement)
    gaps = {
        name: states.get(name, "unknown")
        for name in REQUIRED_WITHOUT_LANGUAGE
        if not states.get(name, "").startswith("active")
    }
    if gaps:
        degraded(f"the OS layer is degraded here, so plain-Python attacks stay off: {gaps}")
