"""Admission control: sessions beyond the budget wait, then fail clearly; the sandbox's
cgroup is created only where the machine delegates one, and reported either way."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

from sandbox import AsyncSandbox, FinalResult, Sandbox, SandboxPolicy
from sandbox.errors import AdmissionTimeout, SandboxError
from sandbox.host.admission import budget, machine_memory_mb
from sandbox.host.cgroup import SandboxCgroup

POLICY = SandboxPolicy.preset("default")


def test_the_default_budget_fits_the_machine_memory() -> None:
    total = machine_memory_mb()
    assert total is not None
    workers, memory = budget(None, None, 8)
    assert memory == int(total * 0.8)
    # As many sessions as their requests fit in the budget (and the open-files limit).
    assert workers <= memory // 8 and workers >= 1000
    assert budget(3, None, 8) == (3, memory)
    assert budget(10, 1024, 8) == (10, 1024)
    assert budget(None, 1024, 8)[0] == 128
    with pytest.raises(ValueError, match="admits no session"):
        budget(None, 4, 8)


@pytest.mark.timeout(60)
def test_a_session_beyond_the_budget_waits_then_fails_clearly() -> None:
    with Sandbox(POLICY, spares=0, max_workers=1, admission_timeout_s=0.5) as sb:
        with sb.session() as first:
            assert first.run("x = 1").ok
            started = time.monotonic()
            with pytest.raises(AdmissionTimeout, match="all 1 workers this sandbox admits"):
                sb.session()
            assert time.monotonic() - started >= 0.5
            assert isinstance(AdmissionTimeout("x"), SandboxError)
        figures = sb.health().admission
        assert figures is not None and figures.refused == 1 and figures.admitted == 0
        # The slot is free again.
        with sb.session() as second:
            assert second.run("final_result(2)").output == FinalResult(value=2)


@pytest.mark.timeout(60)
def test_a_waiting_session_gets_the_slot_a_closed_one_frees() -> None:
    with Sandbox(POLICY, spares=0, max_workers=1, admission_timeout_s=30) as sb:
        first = sb.session()
        got: list[object] = []

        def second() -> None:
            with sb.session() as s:
                got.append(s.run("final_result('second')").output)

        thread = threading.Thread(target=second)
        thread.start()
        deadline = time.monotonic() + 20
        while sb.health().admission.waiting == 0:  # type: ignore[union-attr]
            assert time.monotonic() < deadline
            time.sleep(0.01)
        first.close()
        thread.join(30)
    assert got == [FinalResult(value="second")]


def _fake_cgroup_tree(root: Path, subtree: str) -> Path:
    mount = root / "cgroup"
    parent = mount / "app.slice"
    parent.mkdir(parents=True)
    (mount / "cgroup.controllers").write_text("cpu memory pids\n")
    (parent / "cgroup.subtree_control").write_text(subtree)
    (root / "self-cgroup").write_text("0::/app.slice\n")
    return mount


def test_a_cgroup_is_made_only_where_the_controllers_are_delegated(tmp_path: Path) -> None:
    mount = _fake_cgroup_tree(tmp_path / "ok", "memory pids\n")
    cgroup = SandboxCgroup.create(
        1 << 30, 50, mounts=(mount,), proc_cgroup=tmp_path / "ok" / "self-cgroup"
    )
    assert cgroup.state.startswith("active (") and "memory.max=1024 MB" in cgroup.state
    assert cgroup.path is not None and cgroup.path.parent == mount / "app.slice"
    assert (cgroup.path / "memory.max").read_text() == str(1 << 30)
    assert (cgroup.path / "pids.max").read_text() == "50"
    for name in ("memory.max", "pids.max"):  # a real cgroup's files go with its rmdir
        (cgroup.path / name).unlink(missing_ok=True)
    path = cgroup.path
    cgroup.close()
    assert not path.exists()

    mount = _fake_cgroup_tree(tmp_path / "no", "cpu\n")
    refused = SandboxCgroup.create(
        1 << 30, 50, mounts=(mount,), proc_cgroup=tmp_path / "no" / "self-cgroup"
    )
    assert refused.path is None
    assert refused.state == (
        f"degraded: {mount / 'app.slice'} does not delegate the memory, pids controller "
        "to its children"
    )
    assert list((mount / "app.slice").iterdir()) == [mount / "app.slice" / "cgroup.subtree_control"]
    none = SandboxCgroup.create(1, 1, mounts=(tmp_path / "absent",))
    assert none.state == "degraded: cgroup v2 is not mounted (only v1 or none)"


def test_the_sandbox_reports_its_cgroup() -> None:
    with Sandbox(POLICY, spares=0) as sb:
        state = sb.confinement["cgroup"]
        assert state.startswith(("active (", "degraded: "))
        assert sb.health().cgroup == state


@pytest.mark.timeout(60)
def test_cancelling_a_session_that_waits_for_a_slot_returns_at_once() -> None:
    async def main() -> None:
        async with AsyncSandbox(POLICY, spares=0, max_workers=1) as sb:
            async with sb.session() as first:
                await first.run("x = 1")
                waiting = sb.session()
                task = asyncio.ensure_future(waiting.start())
                deadline = time.monotonic() + 20
                while sb.health().admission.waiting == 0:  # type: ignore[union-attr]
                    assert time.monotonic() < deadline
                    await asyncio.sleep(0.01)
                cancelled_at = time.monotonic()
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
                # Well before the 60 s admission timeout.
                assert time.monotonic() - cancelled_at < 10
                figures = sb.health().admission
                assert figures is not None and figures.waiting == 0 and figures.admitted == 1
                assert waiting.pid is None

    asyncio.run(main())
