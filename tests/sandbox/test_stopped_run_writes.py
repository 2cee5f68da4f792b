"""A run the host stopped, or whose worker died, keeps its verdict when looking at the
mounts afterwards fails; the failure is named in the message."""

from __future__ import annotations

import errno

import pytest

from sandbox import Sandbox, SandboxPolicy
from sandbox.host.session import Session

POLICY = SandboxPolicy.preset("default")


@pytest.fixture
def unreadable_mounts(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(self: Session) -> list[object]:
        raise OSError(errno.EIO, "Input/output error")

    monkeypatch.setattr(Session, "_files_written", fail)


@pytest.mark.timeout(60)
@pytest.mark.usefixtures("unreadable_mounts")
def test_a_run_stopped_at_its_wall_limit_stays_a_timeout() -> None:
    policy = POLICY.model_copy(update={"limits": POLICY.limits.model_copy(update={"wall_s": 1})})
    with Sandbox(policy, spares=0) as sb, sb.session() as session:
        execution = session.run("while True:\n    pass")
    assert execution.error_code == "timeout", execution.output
    assert "could not be checked: Input/output error" in execution.output.message  # type: ignore[union-attr]


@pytest.mark.timeout(60)
@pytest.mark.usefixtures("unreadable_mounts")
def test_a_run_whose_worker_died_stays_a_crash() -> None:
    with Sandbox(POLICY.with_layers(language=False), spares=0) as sb, sb.session() as session:
        execution = session.run("import os\nos._exit(3)")
    assert execution.error_code == "worker_crashed", execution.output
    assert "could not be checked: Input/output error" in execution.output.message  # type: ignore[union-attr]
