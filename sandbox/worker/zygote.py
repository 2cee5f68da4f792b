"""The fork server: imports everything a worker needs once, then only forks.

Started by the host with an empty environment (a forked child's ``/proc/self/environ``
shows the zygote's original one) and one SOCK_SEQPACKET control socket. Messages are
JSON datagrams:

- host → zygote: ``{"op": "fork", "id": n}`` with the worker's channel descriptor
  attached (SCM_RIGHTS), ``{"op": "shutdown"}``;
- zygote → host: ``ready`` (after the first datagram, the worker configuration),
  ``forked`` (id, pid), ``exited`` (pid, exit code or signal, CPU seconds used),
  ``failed``.

The zygote never runs untrusted code. When the host goes away — EOF on the control
socket, or the host process gone while a child it forked still holds the socket
(``parent_watch.py``) — it kills every worker it forked and exits.

Worker side: standard library only.
"""

from __future__ import annotations

import gc
import json
import os
import select
import signal
import socket
import sys
import traceback
from typing import cast

from sandbox.protocol import (
    ForkRequest,
    Op,
    WorkerConfig,
    ZygoteNotice,
    ZygoteRequest,
    datagram,
)
from sandbox.worker.confine import landlock, namespaces, seccomp
from sandbox.worker.language.compiler import compile_script
from sandbox.worker.language.files import Mounts, module_members
from sandbox.worker.language.module_proxy import build_all
from sandbox.worker.parent_watch import ParentWatch
from sandbox.worker.serve import prepare_runtime, serve

_WARM_UP = """
import math
class Point:
    def __init__(self, x):
        self.x = x
total = 0
for i in range(3):
    total += Point(i).x
f"{total:>4}"
"""


def _send(ctrl: socket.socket, message: ZygoteNotice) -> None:
    ctrl.send(datagram(message))


def _status(raw: int) -> tuple[int | None, int | None]:
    """The signal that ended a child, or its exit code."""
    if os.WIFSIGNALED(raw):
        return os.WTERMSIG(raw), None
    return None, os.WEXITSTATUS(raw) if os.WIFEXITED(raw) else None


def _vm_size() -> int:
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        return 0


def main(ctrl_fd: int, host_pid: int | None = None) -> None:
    """Serve fork requests on ``ctrl_fd`` until the host (``host_pid``, by default the
    parent) shuts us down or goes away."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the host decides when we stop
    watch = ParentWatch(os.getppid() if host_pid is None else host_pid)
    ctrl = socket.socket(fileno=ctrl_fd)
    if not watch.wait_readable(ctrl.fileno()):
        return
    config = cast(WorkerConfig, json.loads(ctrl.recv(1 << 20)))
    try:
        mounts = Mounts(config.get("mounts", []))
        proxies = build_all(config, module_members(mounts))
        runtime = prepare_runtime(config, proxies, mounts)
        compile_script(_WARM_UP, "<warm-up>")
        landlock.python_paths()  # computed once here, inherited by every worker
        landlock.library_paths()
        seccomp.prepare()
        vm_size = _vm_size()  # /proc is gone once the zygote is in its minimal root
        os_layer = config.get("layers", {}).get("os", True)
        # Each worker covers a writable mount with its private view: the directory
        # itself is bound read-only beneath (at both paths), so nothing writes it.
        private = bool(config.get("private_writes"))
        root_mounts = [
            {**m, "mode": "ro"} if private else m for m in config.get("mounts", [])
        ]
        helpers = namespaces.enter_zygote(root_mounts) if os_layer else []
        # Keep the collector away from everything imported so far: workers then share
        # those pages with the zygote instead of copying them on first GC pass.
        gc.collect()
        gc.freeze()
    except Exception:
        _send(ctrl, {"op": Op.FAILED, "error": traceback.format_exc(limit=5)})
        return
    wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children: set[int] = set()
    _send(ctrl, {"op": Op.READY, "pid": os.getpid(), "vm_size": vm_size, "helpers": helpers})
    try:
        while True:
            readable, _, _ = select.select([ctrl.fileno(), wake_r, *watch.fds], [], [],
                                           watch.poll_s)  # fmt: skip
            if watch.gone():
                return
            if wake_r in readable:
                _drain(wake_r)
                _reap(ctrl, children)
            if ctrl.fileno() not in readable:
                continue
            data, fds, _, _ = socket.recv_fds(ctrl, 65536, 1)
            if not data:
                return
            request = cast(ZygoteRequest, json.loads(data))
            if request.get("op") == Op.SHUTDOWN:
                return
            if request.get("op") == Op.FORK and fds:
                pid = os.fork()
                if pid == 0:
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    watch.forget()
                    ctrl.detach()
                    serve(fds[0], config, runtime)
                os.close(fds[0])
                children.add(pid)
                _send(ctrl, {"op": Op.FORKED, "id": cast(ForkRequest, request)["id"], "pid": pid})
            else:
                for fd in fds:
                    os.close(fd)
    finally:
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in list(children):
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def _drain(fd: int) -> None:
    try:
        while os.read(fd, 4096):
            pass
    except BlockingIOError:
        pass


def _reap(ctrl: socket.socket, children: set[int]) -> None:
    while True:
        try:
            pid, raw, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        children.discard(pid)
        # The CPU time tells the kernel's RLIMIT_CPU kill apart from anyone else's SIGKILL.
        cpu_s = usage.ru_utime + usage.ru_stime
        try:
            signum, code = _status(raw)
            notice: ZygoteNotice = {
                "op": Op.EXITED, "pid": pid, "cpu_s": cpu_s, "signal": signum, "code": code
            }
            _send(ctrl, notice)
        except OSError:
            return


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else None)
