"""Admission by what sessions use: measured memory plus a small request per session,
not each worker's limit."""

from __future__ import annotations

import threading
import time

import pytest

from sandbox import Sandbox, SandboxPolicy
from sandbox.errors import AdmissionTimeout
from sandbox.host.memory_use import pss_bytes

POLICY = SandboxPolicy.preset("default")


@pytest.mark.timeout(600)
def test_the_default_sandbox_admits_a_thousand_idle_sessions() -> None:
    with Sandbox(POLICY) as sb:
        figures = sb.health().admission
        assert figures is not None and figures.max_workers >= 1000
        sessions = []
        try:
            for _ in range(1000):
                sessions.append(sb.session())
            health = sb.health()
            assert health.sessions_open == 1000 and health.live_workers == 1000
            assert health.admission is not None and health.admission.refused == 0
            assert sessions[-1].run("final_result(1)").ok
            assert health.open_files_limit is not None and health.open_files_limit > 2000
        finally:
            for session in sessions:
                session.close()


@pytest.mark.timeout(120)
def test_a_small_budget_refuses_clearly_by_measured_use() -> None:
    with Sandbox(POLICY, spares=0, memory_budget_mb=64, admission_timeout_s=1) as sb:
        sessions = []
        try:
            with pytest.raises(AdmissionTimeout) as refused:
                for _ in range(64):
                    sessions.append(sb.session())
                    time.sleep(0.05)  # let the meter see each one
            message = str(refused.value)
            assert "memory budget of 64 MB" in message and "measured" in message
            assert "8 MB requested for each of its" in message
            figures = sb.health().admission
            assert figures is not None and figures.refused == 1
            # Charged: what is measured plus each open session's request, and the new
            # one would not fit. Far more sessions than the 64 MB at 512 MB each.
            assert 1 <= len(sessions) < 8
            assert figures.measured_mb is not None and figures.measured_mb > 0
            assert "PSS" in (figures.measured_by or "") or "cgroup" in (figures.measured_by or "")
        finally:
            for session in sessions:
                session.close()


@pytest.mark.timeout(120)
def test_a_waiting_session_is_admitted_once_use_falls() -> None:
    # One session takes most of the budget for real (150 MB of 160, and two requests of
    # 8 MB on top: no room for a second); the next waits until it lets go.
    with Sandbox(POLICY, spares=0, memory_budget_mb=160, admission_timeout_s=60) as sb:
        big = sb.session()
        fill = "blob = bytearray(150 << 20)\nfor i in range(0, len(blob), 4096):\n    blob[i] = 1"
        assert big.run(fill).ok
        pid = big.pid
        assert pid is not None
        deadline = time.monotonic() + 30
        while (sb.health().admission.measured_mb or 0) < 150:  # type: ignore[union-attr]
            assert time.monotonic() < deadline, sb.health().admission
            time.sleep(0.05)
        admitted: list[object] = []

        def second() -> None:
            with sb.session() as session:
                admitted.append(session.run("final_result(2)").output)

        waiter = threading.Thread(target=second)
        waiter.start()
        deadline = time.monotonic() + 30
        while sb.health().admission.waiting == 0:  # type: ignore[union-attr]
            assert not admitted, "admitted beside 150 MB of real use in a budget of 160"
            assert time.monotonic() < deadline
            time.sleep(0.01)
        time.sleep(0.6)  # the meter looks again meanwhile: use has not fallen
        assert not admitted
        assert big.run("del blob").ok  # its memory goes back to the system
        waiter.join(60)
        assert admitted and (pss_bytes(pid) or 0) < 60 * 1024 * 1024
        big.close()
