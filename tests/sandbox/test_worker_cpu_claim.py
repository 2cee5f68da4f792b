"""A hostile worker cannot put off the host's per-run CPU check by overstating, in one
run's ``done``, the CPU time it used: the host counts from the kernel's figure."""

from __future__ import annotations

import pytest

from sandbox import Sandbox, SandboxPolicy

_OVERSTATE = "import time\ntime.thread_time = lambda: 1e6\nprint('claimed')"
_SPIN = """
import signal
for number in (signal.SIGPROF, signal.SIGXCPU):
    signal.signal(number, signal.SIG_IGN)
while True:
    pass
"""


@pytest.mark.timeout(120)
def test_an_overstated_cpu_count_changes_nothing() -> None:
    policy = (
        SandboxPolicy.preset("default")
        .with_layers(language=False)
        .with_limits(cpu_soft_s=0.5, cpu_hard_s=1, wall_s=20)
    )
    with Sandbox(policy, spares=0) as sandbox, sandbox.session() as session:
        assert session.run(_OVERSTATE).stdout == "claimed\n"
        spun = session.run(_SPIN)
    assert spun.error_code == "cpu_limit", spun
    assert spun.duration_s < 10
    assert 1.0 <= spun.cpu_s < 5
