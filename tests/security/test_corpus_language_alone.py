"""The escapes corpus with the language layer alone: it refuses or contains every case.

The OS layer is the boundary; the language layer must hold on its own too
(``docs/security.md``). Run under ``default`` (every case) and under ``data`` (the cases
whose imports ``default`` refuses: the data libraries').
"""

from __future__ import annotations

import pytest

from sandbox import SandboxPolicy
from sandbox.probe import run_suite


@pytest.mark.timeout(900)
@pytest.mark.parametrize("preset", ["default", "data"])
def test_nothing_escapes_the_language_layer_alone(preset: str) -> None:
    policy = SandboxPolicy.preset(preset).with_layers(os=False)
    results = run_suite(policy, "escapes")
    if preset == "data":
        results = [r for r in results if r.category == "data"]
    escaped = [f"{r.id}: {r.detail}" for r in results if r.outcome == "escaped"]
    assert results and not escaped
