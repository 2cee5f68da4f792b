"""Supervision: a zygote killed or stopped from outside is replaced, and the runs whose
workers died say why; an outside kill of a worker is never a limit."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import psutil
import pytest

from sandbox import ErrorCode, FinalResult, Sandbox, SandboxPolicy
from sandbox.host.deaths import explain_death
from sandbox.host.workers import process_state

LIMITS = SandboxPolicy.preset("default").limits.model_dump()


@pytest.fixture
def sb() -> Iterator[Sandbox]:
    with Sandbox(SandboxPolicy.preset("default"), spares=2) as sandbox:
        yield sandbox


def _gone(pid: int) -> bool:
    return process_state(pid) in (None, "Z", "X")


def _kill_zygote(sb: Sandbox) -> int:
    """SIGKILL the zygote; return once it and its workers are dead (not reaped: the
    sandbox is the zygote's parent and must see its exit status)."""
    zygote = sb.health().zygote_pid
    assert zygote is not None
    doomed = sb.processes()
    os.kill(zygote, signal.SIGKILL)
    deadline = time.monotonic() + 20
    while not all(_gone(pid) for pid in doomed):
        assert time.monotonic() < deadline, "the zygote's workers outlived it"
        time.sleep(0.01)
    return zygote


def test_a_killed_zygote_is_replaced_and_the_run_says_why(sb: Sandbox) -> None:
    with sb.session() as s:
        assert s.run("x = 1").ok
        zygote = _kill_zygote(sb)
        ex = s.run("final_result(x)")
        assert ex.error_code == ErrorCode.WORKER_CRASHED
        message = ex.output.message  # type: ignore[union-attr]
        assert "zygote" in message and "SIGKILL" in message and "outside" in message
        # The same session goes on in a worker of the new zygote.
        again = s.run("final_result('again')")
        assert again.output == FinalResult(value="again") and again.worker_restarted
    health = sb.health()
    assert health.zygote_restarts == 1 and health.zygote_pid != zygote
    assert "SIGKILL" in (health.last_restart_cause or "")


def test_sessions_after_a_zygote_kill_never_see_its_dead_spares(sb: Sandbox) -> None:
    with sb.session() as s:
        assert s.run("x = 1").ok  # both spares are forked and have said hello
    _kill_zygote(sb)
    for i in range(4):
        with sb.session() as s:
            ex = s.run(f"final_result({i})")
        assert ex.output == FinalResult(value=i), ex
    assert sb.health().zygote_restarts == 1


@pytest.mark.timeout(60)
def test_a_stopped_zygote_is_replaced_and_killed_once_unused() -> None:
    with Sandbox(SandboxPolicy.preset("default"), spares=0, start_timeout_s=20) as sb:
        old = sb.health().zygote_pid
        assert old is not None
        with sb.session() as busy:
            assert busy.run("x = 5").ok
            os.kill(old, signal.SIGSTOP)
            with sb.session() as fresh:
                assert fresh.run("final_result(1)").output == FinalResult(value=1)
            # The stopped zygote's worker still serves its session.
            assert busy.run("final_result(x)").output == FinalResult(value=5)
            assert not _gone(old)
        assert _gone(old)  # its last session ended: it was killed
        health = sb.health()
        assert health.zygote_restarts == 1
        assert "SIGSTOP" in (health.last_restart_cause or "")


def test_a_worker_killed_from_outside_is_worker_crashed_not_cpu_limit(sb: Sandbox) -> None:
    def kill_my_worker() -> None:
        assert session.pid is not None
        os.kill(session.pid, signal.SIGKILL)
        psutil.Process(session.pid).wait(timeout=10)

    with sb.session(tools={"kill_my_worker": kill_my_worker}) as session:
        assert session.run("x = 1").ok
        ex = session.run("kill_my_worker()")
        assert ex.error_code == ErrorCode.WORKER_CRASHED
        message = ex.output.message  # type: ignore[union-attr]
        assert "SIGKILL from outside the sandbox" in message
        assert session.run("final_result(2)").output == FinalResult(value=2)
    assert sb.health().zygote_restarts == 0


def test_the_kernel_cpu_kill_is_told_apart_by_cpu_time() -> None:
    kernel = {"signal": signal.SIGKILL, "code": None, "cpu_s": LIMITS["session_cpu_s"] + 1.0}
    outside = {"signal": signal.SIGKILL, "code": None, "cpu_s": 0.7}
    soft = {"signal": signal.SIGXCPU, "code": None, "cpu_s": float(LIMITS["session_cpu_s"])}
    common = {"killed_by_host": False, "detail": None, "zygote_cause": None, "limits": LIMITS}
    assert explain_death(kernel, **common).code == ErrorCode.CPU_LIMIT  # type: ignore[arg-type]
    assert explain_death(soft, **common).code == ErrorCode.CPU_LIMIT  # type: ignore[arg-type]
    death = explain_death(outside, **common)  # type: ignore[arg-type]
    assert death.code == ErrorCode.WORKER_CRASHED and "outside" in death.message
    segv = explain_death({"signal": signal.SIGSEGV, "cpu_s": 0.1}, **common)  # type: ignore[arg-type]
    assert segv.code == ErrorCode.WORKER_CRASHED and "SIGSEGV" in segv.message


@pytest.mark.timeout(60)
def test_a_spare_killed_from_outside_is_no_longer_listed_and_is_replaced(sb: Sandbox) -> None:
    with sb.session() as s:
        assert s.run("x = 1").ok
    deadline = time.monotonic() + 30
    while sb.health().spares < 2:
        assert time.monotonic() < deadline, "the spares were never forked"
        time.sleep(0.02)
    supply = sb._supply
    assert supply is not None and supply._supervisor is not None
    supervisor = supply._supervisor
    victim = min(supervisor.pool.pids())
    os.kill(victim, signal.SIGKILL)
    while not _gone(victim):
        assert time.monotonic() < deadline, "the killed spare did not die"
        time.sleep(0.02)
    # Dead, it is none of the sandbox's processes, nor a spare ready for a session.
    assert victim not in sb.processes()
    while sb.health().spares < 2:
        assert time.monotonic() < deadline, "the dead spare was not replaced"
        time.sleep(0.02)
    assert victim not in sb.processes()


def test_health_counts_sessions_workers_and_spares(sb: Sandbox) -> None:
    with sb.session() as a, sb.session() as b:
        assert a.run("1").ok and b.run("1").ok
        health = sb.health()
        assert health.running and health.live_workers == 2 and health.sessions_open == 2
        assert health.admission is not None and health.admission.admitted == 2
    health = sb.health()
    assert health.sessions_served == 2 and health.sessions_open == 0
    assert health.zygote_restarts == 0 and health.last_restart_cause is None
    assert health.model_dump_json()  # plain JSON for an app's metrics


@pytest.mark.timeout(120)
def test_the_kernel_cpu_limit_of_a_session_is_cpu_limit() -> None:
    # Each run is stopped at 1 s of CPU; the kernel's RLIMIT_CPU (session_cpu_s=2: SIGXCPU
    # at 2 s, SIGKILL at 3 s) ends the worker within a few runs. CPU time, not wall time,
    # decides, so a busy machine only makes this slower.
    policy = SandboxPolicy.preset("default").with_limits(
        cpu_soft_s=1, cpu_hard_s=10, session_cpu_s=2, wall_s=60
    )
    with Sandbox(policy, spares=0) as sb, sb.session() as s:
        first = s.pid
        codes = []
        for _ in range(6):
            ex = s.run("while True:\n    pass")
            codes.append(ex.error_code)
            if ex.worker_restarted or s.pid != first:
                break
        assert set(codes) == {ErrorCode.CPU_LIMIT}, codes
        assert "session_cpu_s=2 s" in ex.output.message  # type: ignore[union-attr]
        assert s.run("final_result(1)").worker_restarted


@pytest.mark.timeout(90)
def test_a_zygote_that_stops_answering_is_replaced_after_the_bounded_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A zygote that is alive but never forks (here: stopped, with the stop hidden from
    # the /proc check) is given start_timeout_s, then replaced: never a bare TimeoutError.
    import sandbox.host.supervisor
    import sandbox.host.workers

    with Sandbox(SandboxPolicy.preset("default"), spares=0, start_timeout_s=5) as sb:
        old = sb.health().zygote_pid
        assert old is not None
        os.kill(old, signal.SIGSTOP)
        real = sandbox.host.workers.process_state

        def hidden(pid: int) -> str | None:
            return "S" if pid == old else real(pid)

        monkeypatch.setattr(sandbox.host.workers, "process_state", hidden)
        monkeypatch.setattr(sandbox.host.supervisor, "process_state", hidden)
        with sb.session() as s:
            assert s.run("final_result(1)").output == FinalResult(value=1)
        health = sb.health()
        assert health.zygote_restarts == 1
        assert health.last_restart_cause == "the sandbox zygote did not fork within 5 s"
        monkeypatch.undo()
        assert _settle_gone(old)


def _settle_gone(pid: int) -> bool:
    deadline = time.monotonic() + 10
    while not _gone(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True
