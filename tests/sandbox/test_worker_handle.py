"""A worker handle used from two threads at once never signals another process."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
from typing import Any

import pytest

from sandbox.host.workers import WorkerHandle


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="no pidfds on this system")
def test_a_kill_racing_a_close_never_signals_the_next_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A cancelled run kills its worker while the run's thread closes it, and meanwhile
    # the zygote's reader opens the pidfd of the next spare: the lowest free descriptor,
    # which is the one just closed. The kill must not reach that spare.
    worker_proc = subprocess.Popen(["sleep", "60"])
    spare_proc = subprocess.Popen(["sleep", "60"])
    host_end, other_end = socket.socketpair()
    worker = WorkerHandle(worker_proc.pid, host_end, 1 << 20)
    opened: list[int] = []
    threads: list[threading.Thread] = []
    real_send = signal.pidfd_send_signal

    def close_and_open_the_next() -> None:
        worker.close()
        opened.append(os.pidfd_open(spare_proc.pid))

    def send_after_the_race(fd: int, sig: int, *args: Any) -> None:
        thread = threading.Thread(target=close_and_open_the_next)
        threads.append(thread)
        thread.start()
        thread.join(0.5)  # with the handle's lock held, the close waits for this send
        real_send(fd, sig, *args)

    try:
        monkeypatch.setattr(signal, "pidfd_send_signal", send_after_the_race)
        worker.kill()
        monkeypatch.undo()
        for thread in threads:
            thread.join(10)
        assert worker_proc.wait(10) == -signal.SIGKILL
        spare_proc.terminate()
        # SIGKILL'd by the race, it would report SIGKILL, not the SIGTERM sent after.
        assert spare_proc.wait(10) == -signal.SIGTERM
    finally:
        for proc in (worker_proc, spare_proc):
            proc.kill()
            proc.wait()
        worker.close()
        other_end.close()
        for fd in opened:
            os.close(fd)
