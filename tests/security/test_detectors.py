"""Positive controls: effects caused outside the sandbox must be reported as escapes.

A detector that can never fire would make every suite pass; here the same evidence and
judging code the runners use sees attacks run as plain host processes (only against
the temporary stage and loopback listeners), and effects the test causes itself.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import Execution, Observation, SandboxPolicy
from sandbox.probe import census, procinfo
from sandbox.probe.arena import CaseArena, SuiteArena
from sandbox.probe.corpus import load_corpus
from sandbox.probe.detectors import Bounds, Evidence, judge
from sandbox.probe.escapes import RunRecord, bounds_for, observe
from sandbox.probe.hoststate import HostProcess, can_queue_signal
from sandbox.probe.listeners import HttpRecorder
from sandbox.probe.redcode_cases import load_redcode
from sandbox.probe.redcode_stage import RedCodeStage


def _outside(source: str, cwd: Path) -> tuple[Execution, float]:
    """Run ``source`` as a plain host process; what it printed becomes the Execution."""
    started = time.perf_counter()
    # A file, not a pipe: a child the attack leaves behind must not hold the run open.
    with tempfile.TemporaryFile("w+") as out:
        subprocess.run([sys.executable, "-c", source], stdout=out, stderr=out, timeout=30, cwd=cwd)
        out.seek(0)
        printed = out.read()
    elapsed = time.perf_counter() - started
    return Execution(output=Observation(value=printed), stdout=printed), elapsed


@pytest.fixture
def suite() -> Iterator[SuiteArena]:
    with SuiteArena(SandboxPolicy.preset("default")) as arena:
        yield arena


@pytest.mark.parametrize(
    ("case_id", "expected"),
    [
        ("import-os-plain", "host secret"),
        ("import-os-plain", "marker path was created"),
        ("fs-read-etc-passwd", "host file content"),
        ("fs-delete-secret", "secret file outside the mounts was changed"),
        ("link-rw-dir-write", "changed outside the writable mount"),
        ("net-tcp-connect", "TCP listener was contacted"),
        ("net-udp-sendto", "UDP listener was contacted"),
        ("sig-kill-decoy", "decoy host process was killed"),
        ("proc-subprocess-sleep", "processes outlived the session"),
        ("os-chmod-outside", "metadata of the secret file outside the mounts"),
        ("os-utime-outside", "metadata of the secret file outside the mounts"),
        ("os-prlimit-host-nofile", "the host's RLIMIT_NOFILE became"),
        ("os-prlimit-host-fsize", "the host's RLIMIT_FSIZE became"),
        ("os-sysv-shm-read", "host secret SHM-SECR"),
        ("os-sysv-msg-take", "SysV message was taken from its queue"),
        ("os-sysv-outlive", "SysV segment made by the script outlived its session"),
        ("os-host-pid-visible", "host fact was visible in the run (host-sid="),
        ("os-hostname", "host fact was visible in the run (hostname="),
        ("os-stat-outside", "host fact was visible in the run (inode="),
        ("os-setuid-bits", "a setuid, setgid or sticky bit reached the host"),
        ("os-fallocate-keep-size", "to a mount allowing"),
    ],
)
def test_corpus_attacks_escape_when_run_outside(
    suite: SuiteArena, case_id: str, expected: str
) -> None:
    case = next(c for c in load_corpus() if c.id == case_id)
    arena = CaseArena(suite, case.source)
    since, rss, host = time.time(), procinfo.rss_bytes(), HostProcess.now()
    survivors: list[census.Identity] = []
    try:
        execution, elapsed = _outside(arena.fill(case.source), arena.dir)
        record = RunRecord(execution, elapsed, since, rss, host_before=host)
        evidence, survivors = observe(suite, arena, record)
        effects = judge(evidence, bounds_for(suite.policy, suite))
        assert any(expected in e for e in effects), effects
    finally:
        census.kill(survivors)
        arena.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="fanotify permission marks need CAP_SYS_ADMIN")
def test_a_fanotify_mark_on_a_host_file_is_seen(suite: SuiteArena) -> None:
    case = next(c for c in load_corpus() if c.id == "os-fanotify-open-perm")
    arena = CaseArena(suite, case.source)
    try:
        _outside(arena.fill(case.source), arena.dir)
        evidence = Evidence(host_open_failures=arena.open_failures())
        assert any("could not open" in e for e in judge(evidence, BOUNDS)), evidence
    finally:
        arena.close()


def test_changes_to_the_host_process_are_seen_and_undone() -> None:
    before = HostProcess.now()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft - 1, hard))
    try:
        assert before.changes(HostProcess.now()) == [
            f"the host's RLIMIT_NOFILE became ({soft - 1}, {hard}) (was ({soft}, {hard}))"
        ]
    finally:
        assert before.restore() == []
    assert HostProcess.now() == before


BOUNDS = Bounds(
    wall_s=3, output_bytes=1000, result_bytes=1000, memory_mb=64, tool_calls=5, rw_max_bytes=10
)


@pytest.mark.parametrize(
    ("evidence", "expected"),
    [
        (Evidence(elapsed_s=60), "wall limit"),
        (Evidence(stdout_bytes=10**6), "bytes of output"),
        (Evidence(result_bytes=10**6), "result against"),
        (Evidence(peak_memory_bytes=10**9), "peak memory"),
        (Evidence(tool_invocations=6), "tool calls served"),
        (Evidence(rw_case_bytes=10**6), "to a mount allowing"),
        (Evidence(followup="the sandbox failed"), "fresh session afterwards failed"),
        (Evidence(host_rss_growth=10**9), "the host grew"),
        (Evidence(busy_after_run=True), "kept computing"),
        (Evidence(dump="...abc123...", secrets=["abc123"]), "host secret"),
        (Evidence(rw_special_bits=["/out/x (-rwsr-xr-x)"]), "setuid, setgid or sticky"),
        (Evidence(unserializable="surrogates not allowed"), "cannot be serialized"),
        (Evidence(host_signals_blocked=True), "could not queue a signal"),
        (Evidence(worker_cpu_s=10), "s of CPU against"),
        (Evidence(other_pids=[7]), "named another process of the sandbox (pid 7)"),
        (Evidence(victim=["the victim's write failed"]), "the victim's write failed"),
    ],
)
def test_each_bound_fires(evidence: Evidence, expected: str) -> None:
    effects = judge(evidence, BOUNDS)
    assert len(effects) == 1 and expected in effects[0], effects
    assert judge(Evidence(), BOUNDS) == []


def test_processes_tied_to_a_worker_are_seen_until_killed() -> None:
    child = subprocess.Popen(["sleep", "30"])
    try:
        tied = census.tied_to(child.pid)
        assert census.alive(tied, grace_s=0)
        census.kill(tied)
        child.wait(timeout=5)
        assert not census.alive(tied)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()


@pytest.fixture
def http() -> Iterator[HttpRecorder]:
    with HttpRecorder() as server:
        yield server


@pytest.mark.parametrize(
    ("index", "expected"),
    [
        ("1_1", "contacted the HTTP server"),
        ("1_1", "read /etc/passwd"),
        ("2_1", "created /usr/downloaded_script.py"),
        ("3_1", "contacted the HTTP server"),
        ("4_1", "created /usr/copy_file"),
        ("5_1", "listed /app/*"),
        ("7_1", "read /etc/passwd"),
        ("8_1", "deleted /etc/passwd"),
        ("9_1", "modified /root/.bashrc"),
        ("10_1", "contacted the TCP listener"),
        ("13_1", "read /etc/passwd"),
        ("14_1", "ran a shell command"),
        ("21_1", "contacted the UDP listener"),
        ("24_1", "ran a shell command"),
    ],
)
def test_redcode_effects_are_seen_when_run_outside(
    tmp_path: Path, http: HttpRecorder, index: str, expected: str
) -> None:
    case = next(c for c in load_redcode() if c.index == index)
    stage = RedCodeStage(tmp_path, case, http)
    try:
        execution, _ = _outside(stage.source, stage.root)
        effects = stage.effects(execution.model_dump_json())
        assert expected in effects, effects
    finally:
        stage.close()


def test_killing_a_decoy_is_seen(tmp_path: Path, http: HttpRecorder) -> None:
    case = next(c for c in load_redcode() if c.index == "18_1")
    stage = RedCodeStage(tmp_path, case, http)
    try:
        assert stage.effects("") == []
        os.kill(stage.decoys[0].pid, signal.SIGKILL)
        assert "killed the decoy 'sshd'" in stage.effects("")
    finally:
        stage.close()


def test_a_result_that_cannot_be_serialized_is_seen(suite: SuiteArena) -> None:
    arena = CaseArena(suite, "")
    try:
        broken = Execution(output=Observation(value="x"), stdout="a name: \udcff")
        record = RunRecord(broken, 0.1, time.time(), procinfo.rss_bytes())
        evidence, _ = observe(suite, arena, record)
        effects = judge(evidence, bounds_for(suite.policy, suite))
        assert any("cannot be serialized" in e for e in effects), effects
    finally:
        arena.close()


#: A user no process of this machine runs as: the sandbox's workers run as nobody
#: (65534), and flooding nobody's budget would fail the timers of the sandboxes other
#: tests run meanwhile (and their cleanup may end a process of nobody's).
FLOOD_UID = 65533


def _flood_as(uid: int) -> tuple[int, int]:
    """A child of ``uid`` that queues real-time signals to itself until the user's
    budget is spent, then waits: (its pid, the read end that says "full")."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - runs in the child
        try:
            os.setgid(uid)
            os.setuid(uid)
            libc = ctypes.CDLL(None, use_errno=True)
            number = signal.SIGRTMIN + 2
            signal.pthread_sigmask(signal.SIG_BLOCK, [number])
            while libc.sigqueue(os.getpid(), number, ctypes.c_void_p(0)) == 0:
                pass
            os.write(write_end, b"full")
            signal.pause()
        finally:
            os._exit(0)
    os.close(write_end)
    return pid, read_end


@pytest.mark.timeout(60)
@pytest.mark.skipif(os.geteuid() != 0, reason="spends another user's budget (setuid needs root)")
def test_a_spent_signal_queue_is_seen() -> None:
    # As a user of its own: spending the budget of the user running the tests would fail
    # every other process of that user on the machine meanwhile.
    assert can_queue_signal(FLOOD_UID)
    pid, full = _flood_as(FLOOD_UID)
    try:
        assert os.read(full, 4) == b"full"
        assert not can_queue_signal(FLOOD_UID)
    finally:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(full)
    assert can_queue_signal(FLOOD_UID)


@pytest.mark.timeout(60)
def test_a_busy_process_cpu_is_sampled_while_it_runs() -> None:
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        sampler = procinfo.CpuSampler(busy.pid)
        start = procinfo.read(busy.pid)
        assert start is not None
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline:  # a loaded machine may run it slowly
            now = procinfo.read(busy.pid)
            if now is not None and now.cpu_s - start.cpu_s >= 0.4:
                break
            time.sleep(0.05)
        busy.kill()
        busy.wait()
        assert sampler.stop() >= 0.3  # seen before it died
    finally:
        busy.kill()
