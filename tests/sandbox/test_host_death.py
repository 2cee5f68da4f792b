"""The sandbox dies with its host, however the host dies and whatever it forked.

Each test starts a host process of its own (a sandbox, a session busy in ``while True:
pass`` in a thread, a child forked mid-run), SIGKILLs it, and finds no sandbox process
left 5 s later: not the zygote, its PID namespace's holder, a spare nor the busy worker.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from sandbox import Sandbox

ROOT = Path(__file__).resolve().parents[2]

#: The host: a busy session in a thread, then a child forked in the way asked for, then
#: the pids of every sandbox process and of the child on one line, then it waits.
HOST = """
import ctypes, json, multiprocessing, os, sys, threading, time
import psutil
from sandbox import Sandbox

how = sys.argv[1]
sandbox = Sandbox().start()
session = sandbox.session().__enter__()
threading.Thread(target=session.run, args=("while True: pass",), daemon=True).start()
time.sleep(0.5)
zygote = sandbox.health().zygote_pid
if how == "multiprocessing":
    child = multiprocessing.get_context("fork").Process(target=time.sleep, args=(600,))
    child.start()
    child_pid = child.pid
else:  # C code forking without Python's at-fork hooks: the child keeps every descriptor
    child_pid = ctypes.CDLL(None).fork()
    if child_pid == 0:
        time.sleep(600)
        os._exit(0)
tree = {p.pid for p in psutil.Process(zygote).children(recursive=True)}
print(json.dumps({"sandbox": sorted(sandbox.processes() | tree | {zygote}),
                  "child": child_pid}), flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _kill_host_and_wait(how: str) -> tuple[list[int], list[int]]:
    """Start the host, kill it; the sandbox's pids and those still alive 5 s later."""
    host = subprocess.Popen(
        [sys.executable, "-c", HOST, how], stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip
    child = None
    try:
        assert host.stdout is not None
        report = json.loads(host.stdout.readline())
        child, pids = report["child"], report["sandbox"]
        busy = [p for p in pids if _alive(p) and psutil.Process(p).status() == "running"]
        assert busy, "the session's worker should be running its loop"
        host.kill()
        host.wait(10)
        deadline = time.monotonic() + 5
        while any(_alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
        return pids, [p for p in pids if _alive(p)]
    finally:
        for pid in [host.pid, *([child] if child else [])]:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        host.wait(10)


@pytest.mark.timeout(90)
@pytest.mark.parametrize("how", ["multiprocessing", "libc"])
def test_a_killed_host_that_forked_leaves_no_sandbox_process(how: str) -> None:
    pids, left = _kill_host_and_wait(how)
    assert len(pids) >= 3  # the zygote, its holder, the busy worker (and spares)
    assert left == [], f"alive 5 s after the host was killed: {left} of {pids}"


@pytest.mark.timeout(60)
def test_a_zygote_started_from_a_thread_that_ended_keeps_serving() -> None:
    # The parent-death signal follows the thread that started the zygote: a supervisor
    # thread that restarts a zygote and ends must not take the new zygote with it.
    box: list[Sandbox] = []
    starter = threading.Thread(target=lambda: box.append(Sandbox(spares=0).start()))
    starter.start()
    starter.join(30)
    with box[0] as sandbox:
        time.sleep(0.3)
        with sandbox.session() as session:
            assert session.run("final_result(6 * 7)").output.value == 42


def _seqpacket_fds() -> set[int]:
    """This process's SOCK_SEQPACKET descriptors: a zygote's control socket is one."""
    found = set()
    for name in os.listdir("/proc/self/fd"):
        try:
            probe = socket.socket(fileno=os.dup(int(name)))
        except OSError:
            continue
        with probe:
            if probe.type == socket.SOCK_SEQPACKET:
                found.add(int(name))
    return found


@pytest.mark.timeout(60)
def test_the_control_socket_is_close_on_exec_and_closed_in_forked_children() -> None:
    before = _seqpacket_fds()
    with Sandbox(spares=0) as sandbox:
        (ctrl,) = _seqpacket_fds() - before
        assert not os.get_inheritable(ctrl)
        reader, writer = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child reports whether it still holds the socket
            os.write(writer, b"held" if ctrl in _seqpacket_fds() else b"closed")
            os._exit(0)
        os.close(writer)
        os.waitpid(pid, 0)
        assert os.read(reader, 100) == b"closed"
        os.close(reader)
        with sandbox.session() as session:  # the host's own end still works
            assert session.run("final_result(1)").output.value == 1
