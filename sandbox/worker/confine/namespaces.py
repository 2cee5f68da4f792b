"""The worker's own namespaces (Linux; no root needed where the kernel allows
unprivileged user namespaces).

Two steps. Once per sandbox, the zygote (:func:`enter_zygote`) enters new user, PID,
network, UTS and mount namespaces and pivots into a minimal root
(``minimal_root.py``); its workers inherit all of that: no host pid exists for them,
no network interface but a downed loopback, the hostname is ``sandbox``, and outside
the Python installation, the shared libraries, /dev/null and the policy's mounts no
host file exists. Then each worker (:func:`enter_worker`), right after its fork,
enters a user namespace of its own (uid and gid 65534 inside) and an IPC namespace of
its own: SysV objects and POSIX message queues are its alone and die with it; with
staged writes (``staging.py``) a mount namespace of its own as well.

What is shared and why (fork + exit of a 40 MB Python, 2-core VM, median of 200):
fork alone 1.27 ms; a user namespace adds 0.12 ms, IPC 0.01, UTS 0.01, mount 0.10,
PID 0.02 and network 0.35 (and its teardown runs later in a kernel worker). IPC is
per worker: sessions must not see each other's objects. A PID namespace per worker
would need a second fork per worker (its unshare only affects children): about twice
the fork cost, so the workers of one sandbox share one, whose init is a small holder
process — they see each other's pids but no host pid, and the syscall filter lets a
worker signal only itself. Network, UTS and the root are the same for every worker of
a sandbox, so they are built once.

Worker side: standard library only.
"""

from __future__ import annotations

import ctypes
import errno
import os
import select
import signal
import sys
from collections.abc import Sequence
from typing import Any

from sandbox.worker.confine import minimal_root

_CLONE_NEWNS, _CLONE_NEWUTS, _CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
_CLONE_NEWUSER, _CLONE_NEWPID, _CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
_MS_REC, _MS_PRIVATE = 0x4000, 1 << 18
_PR_SET_PDEATHSIG = 1
#: The uid and gid a worker has inside its own user namespace ("nobody").
INSIDE_ID = 65534
HOSTNAME = b"sandbox"

#: The namespace mechanisms, as named in the confinement report and in ``require``.
MECHANISMS = (
    "user_namespace",
    "pid_namespace",
    "ipc_namespace",
    "network_namespace",
    "uts_namespace",
    "mount_namespace",
    "minimal_root",
)
_ZYGOTE_FLAGS = {
    "pid_namespace": _CLONE_NEWPID,
    "network_namespace": _CLONE_NEWNET,
    "uts_namespace": _CLONE_NEWUTS,
    "mount_namespace": _CLONE_NEWNS,
}

_libc = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None

#: Set in the zygote by :func:`enter_zygote`; its workers inherit it with the fork.
_zygote_report: dict[str, str] = {}
_zygote_user_ns = False
#: A descriptor of the host's /proc, kept across the pivot for the workers' id maps.
_proc_fd: int | None = None
#: The write end of the pipe that tells the PID namespace's holder the zygote lives.
_holder_pipe = -1


def _unshare(flags: int) -> None:
    if _libc is None:
        raise OSError(errno.ENOSYS, "namespaces exist only on Linux")
    if _libc.unshare(ctypes.c_int(flags)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"unshare: {os.strerror(err)}")


_HINTS = {
    errno.ENOSPC: "user.max_user_namespaces is 0 or reached",
    errno.EPERM: "unprivileged user namespaces are disabled here",
    errno.EUSERS: "too deeply nested",
}


def _enter(flags: int) -> str | None:
    """unshare ``flags`` with a new user namespace; as root, without one if refused.

    Returns None, or why no user namespace was entered (root's own privileges did).
    """
    try:
        _unshare(flags | _CLONE_NEWUSER)
        return None
    except OSError as exc:
        err = exc.errno or 0
        why = f"user namespace refused: {os.strerror(err)}"
        why += f" ({_HINTS[err]})" if err in _HINTS else ""
        if os.geteuid() != 0:
            raise OSError(err, why) from None
    try:
        _unshare(flags)
    except OSError as exc:
        raise OSError(exc.errno, f"{why}; as root without one: {exc.strerror}") from None
    return why


def _map_ids(proc: int, outside: tuple[int, int], inside: tuple[int, int]) -> None:
    """Map ``outside`` (uid, gid, taken before the unshare: unmapped ids read as
    65534) to ``inside`` in the user namespace this process just entered."""
    (uid, gid), (inside_uid, inside_gid) = outside, inside
    for name, text in (
        ("setgroups", "deny"),
        ("uid_map", f"{inside_uid} {uid} 1"),
        ("gid_map", f"{inside_gid} {gid} 1"),
    ):
        fd = os.open(f"self/{name}", os.O_WRONLY, dir_fd=proc)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)


def _degraded(exc: OSError) -> str:
    return f"degraded: {exc.strerror or exc}"  # strerror: without "[Errno n]"


def _set_hostname() -> None:
    assert _libc is not None
    for call in (_libc.sethostname, _libc.setdomainname):
        if call(HOSTNAME, ctypes.c_size_t(len(HOSTNAME))) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"sethostname: {os.strerror(err)}")


def _start_holder() -> int:
    """Fork the PID namespace's init: it only waits. Workers die with it, it dies with
    the zygote (their PID namespace ends when its init exits)."""
    global _holder_pipe
    alive, _holder_pipe = os.pipe()  # the zygote keeps the write end while it lives
    pid = os.fork()
    if pid != 0:
        os.close(alive)
        return pid
    try:  # pragma: no cover - runs in the holder
        assert _libc is not None
        os.close(_holder_pipe)
        _libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        # A zygote that died before the prctl above sent no signal: its pipe tells.
        if select.select([alive], [], [], 0)[0]:
            os._exit(0)
        os.closerange(0, 1 << 20)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        while True:
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                signal.pause()
    finally:
        os._exit(0)


def enter_zygote(mounts: Sequence[dict[str, Any]]) -> list[int]:
    """The zygote's namespaces and minimal root, once per sandbox; never raises.

    Returns the pids of helper processes started (the PID namespace's holder). What
    could not be set up is recorded as degraded for every worker's report.
    """
    global _zygote_user_ns, _proc_fd
    report = _zygote_report
    flags = _CLONE_NEWPID | _CLONE_NEWNET | _CLONE_NEWUTS | _CLONE_NEWNS
    try:
        _proc_fd = os.open("/proc", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        ids = (os.getuid(), os.getgid())
        refused = _enter(flags)
    except OSError as exc:
        report.update(dict.fromkeys(_ZYGOTE_FLAGS, _degraded(exc)))
        report["minimal_root"] = report["mount_namespace"]
        return []
    # The first child in the new PID namespace is its init: the holder, before any worker.
    helpers = [_start_holder()]
    report.update(dict.fromkeys(_ZYGOTE_FLAGS, "active"))
    try:
        if refused is None:
            _map_ids(_proc_fd, ids, ids)
            _zygote_user_ns = True
        _set_hostname()
    except OSError as exc:
        report["uts_namespace"] = report["minimal_root"] = _degraded(exc)
        return helpers
    try:
        assert _libc is not None
        # Nothing mounted from here on may propagate back to the host's namespace.
        if _libc.mount(None, b"/", None, ctypes.c_ulong(_MS_REC | _MS_PRIVATE), None) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"mount private: {os.strerror(err)}")
        report["minimal_root"] = minimal_root.build(mounts)
    except OSError as exc:
        report["minimal_root"] = _degraded(exc)
    return helpers


def enter_worker(*, own_mounts: bool = False) -> dict[str, str]:
    """This worker's own user and IPC namespaces (and mount namespace with
    ``own_mounts``); returns the state of every namespace mechanism. Never raises.

    Runs before the worker closes its inherited descriptors (it needs /proc's).
    """
    global _proc_fd
    report = dict.fromkeys(MECHANISMS, "degraded: set up by a sandbox's zygote only")
    report.update(_zygote_report)
    flags = _CLONE_NEWIPC | (_CLONE_NEWNS if own_mounts else 0)
    try:
        proc = _proc_fd if _proc_fd is not None else os.open("/proc", os.O_PATH | os.O_DIRECTORY)
        try:
            ids = (os.getuid(), os.getgid())
            refused = _enter(flags)
            own_user = refused is None
            if own_user:
                _map_ids(proc, ids, (INSIDE_ID, INSIDE_ID))
        finally:
            os.close(proc)
            _proc_fd = None
    except OSError as exc:
        report["ipc_namespace"] = _degraded(exc)
        if own_mounts:
            report["mount_namespace"] = _degraded(exc)
        own_user, refused = False, None
    else:
        report["ipc_namespace"] = "active"
        if own_mounts:
            report["mount_namespace"] = "active (the worker's own)"
    if own_user:
        report["user_namespace"] = f"active (uid {INSIDE_ID} in its own)"
    elif not report["ipc_namespace"].startswith("active"):
        report["user_namespace"] = report["ipc_namespace"]
    elif _zygote_user_ns:
        report["user_namespace"] = "active (the sandbox's; the worker's own was refused)"
    else:
        report["user_namespace"] = f"degraded: {refused}; the others use root's privileges"
    return report


def off() -> dict[str, str]:
    """The report with the OS layer off: no namespace is entered."""
    return dict.fromkeys(MECHANISMS, "off")


def in_own_mount_namespace(report: dict[str, str]) -> bool:
    """True when :func:`enter_worker` gave this worker its own mount namespace."""
    return report.get("mount_namespace", "") == "active (the worker's own)"


def minimal_root_active() -> bool:
    """True when this process runs inside the minimal root: nothing outside the
    mounts exists, so metadata calls (chmod, utime, xattrs) can reach only them."""
    return _zygote_report.get("minimal_root", "").startswith("active")
