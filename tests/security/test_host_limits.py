"""Limits the host measures itself: a plain-Python worker that paces the channel, forges
frames or floods the kernel's per-user budgets gets no further than the limits say.

CPU is the kernel's count, read by the host on a timer that runs whatever the channel
does (during a tool call, while frames trickle in); ``cpu_s`` and ``peak_memory_bytes``
in an ``Execution`` are the host's figures, never the worker's claims.
"""

from __future__ import annotations

import time

import pytest

from sandbox import Sandbox, SandboxPolicy
from sandbox.probe import procinfo
from sandbox.probe.hoststate import can_queue_signal

POLICY = (
    SandboxPolicy.preset("default")
    .with_layers(language=False)
    .with_limits(cpu_soft_s=0.5, cpu_hard_s=1.0, wall_s=20)
)

#: The worker's own channel and a frame for it, as a hostile script finds them.
CHANNEL = """
import json, os, signal, stat, time
for number in (signal.SIGPROF, signal.SIGXCPU, signal.SIGALRM, signal.SIGVTALRM):
    signal.signal(number, signal.SIG_IGN)
sock = next(fd for fd in range(3, 64) if _is_socket(fd))
def frame(message):
    data = json.dumps(message).encode()
    return len(data).to_bytes(4, "big") + data
def burn(seconds):
    start = time.process_time()
    while time.process_time() - start < seconds:
        pass
"""
IS_SOCKET = """
def _is_socket(fd):
    try:
        return stat.S_ISSOCK(os.fstat(fd).st_mode)
    except OSError:
        return False
"""
PRELUDE = "import os, stat\n" + IS_SOCKET + CHANNEL
DONE = {"op": "done", "seq": 1, "output": {"type": "final_result", "value": "forged"}}


def slow_tool() -> str:
    """A tool that keeps the host busy."""
    time.sleep(5)
    return "slow"


@pytest.mark.timeout(120)
def test_cpu_burnt_while_the_host_serves_a_tool_call_is_counted() -> None:
    forged = {**DONE, "cpu_s": 0.0}
    call = {"op": "call", "id": 1, "name": "slow", "args": [], "keywords": {}}
    script = (
        PRELUDE
        + f"os.write(sock, frame({call!r}))\n"
        + f"burn(4)\nos.write(sock, frame({forged!r}))\ntime.sleep(30)\n"
    )
    with Sandbox(POLICY, spares=0) as sandbox:
        with sandbox.session(tools={"slow": slow_tool}) as session:
            ran = session.run(script)
    assert ran.error_code == "cpu_limit", ran.output
    assert 1.0 <= ran.cpu_s < 4.0


@pytest.mark.timeout(120)
def test_cpu_burnt_while_frames_trickle_in_is_counted() -> None:
    script = (
        PRELUDE
        + "header = (1 << 20).to_bytes(4, 'big') + b'{' * 100_000\n"
        + "for byte in header:\n    os.write(sock, bytes([byte]))\n    burn(0.001)\n"
    )
    with Sandbox(POLICY, spares=0) as sandbox, sandbox.session() as session:
        started = time.monotonic()
        ran = session.run(script)
    assert ran.error_code == "cpu_limit", ran.output
    assert time.monotonic() - started < 10
    assert 1.0 <= ran.cpu_s < 3.0


@pytest.mark.timeout(120)
def test_costs_are_the_hosts_figures_not_the_workers_claims() -> None:
    forged = {**DONE, "cpu_s": 0.0, "peak_memory_bytes": 1}
    script = PRELUDE + f"burn(0.6)\nos.write(sock, frame({forged!r}))\ntime.sleep(30)\n"
    with Sandbox(POLICY, spares=0) as sandbox, sandbox.session() as session:
        ran = session.run(script)
    assert ran.output.value == "forged"  # type: ignore[union-attr]
    assert ran.cpu_s >= 0.5
    assert ran.peak_memory_bytes > 10 << 20


FLOOD = """
import ctypes, os, signal
libc = ctypes.CDLL(None, use_errno=True)
class SigVal(ctypes.Union):
    _fields_ = [("sival_int", ctypes.c_int), ("sival_ptr", ctypes.c_void_p)]
number = signal.SIGRTMIN + 2
signal.pthread_sigmask(signal.SIG_BLOCK, [number])
queued = 0
while queued < 1_000_000 and libc.sigqueue(os.getpid(), number, SigVal(queued)) == 0:
    queued += 1
final_result([queued, os.strerror(ctypes.get_errno())])
"""


@pytest.mark.timeout(120)
def test_pending_signals_cannot_starve_the_hosts_queue() -> None:
    assert can_queue_signal()
    results: list[bool] = []
    with Sandbox(POLICY, spares=0) as sandbox, sandbox.session() as session:
        flooded = session.run(FLOOD)
        # The worker holds its queued signals while the session lives.
        results.append(can_queue_signal())
    queued, why = flooded.output.value  # type: ignore[union-attr]
    assert why == "Resource temporarily unavailable"
    assert queued <= 64
    assert results == [True]


#: A script that leaves CPU work behind for when its run is over: a signal handler,
#: fired by a timer while the worker waits for the next run.
BETWEEN_RUNS = """
import signal
def burn(*_):
    total = 0
    for i in range(2_000_000):
        total += i
signal.signal(signal.SIGALRM, burn)
signal.setitimer(signal.ITIMER_REAL, 0.02, 0.02)
"""


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "policy",
    [
        SandboxPolicy.preset("default").allow_modules("*"),
        SandboxPolicy.preset("default").allow_modules("*").with_layers(language=False),
    ],
    ids=["all layers, every module", "os layer alone"],
)
def test_nothing_runs_between_two_runs(policy: SandboxPolicy) -> None:
    # No run is watched between two runs: the worker must not run at all then, whatever
    # the script left armed (with the language layer on, too).
    policy = policy.with_limits(cpu_soft_s=0.5, cpu_hard_s=1.0, wall_s=20)
    with Sandbox(policy, spares=0) as sandbox, sandbox.session() as session:
        armed = session.run(BETWEEN_RUNS)
        assert armed.ok, armed.output
        worker = procinfo.read(session.pid or 0)
        assert worker is not None
        time.sleep(1.5)
        later = procinfo.read(worker.pid)
        assert later is not None
        assert later.cpu_s - worker.cpu_s < 0.2
        # What it left armed runs in the next run, and is charged to it. (With the
        # language layer on, the handler is refused the interrupted frame it is called
        # with, so it fails as it starts: never unreported, never between runs.)
        charged = session.run("x = 1")
    if policy.layers.language:
        assert charged.error_code is not None, charged.output
    else:
        assert charged.error_code == "cpu_limit", charged.output
