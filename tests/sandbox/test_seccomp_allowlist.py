"""The seccomp filter as an allowlist: what it refuses, the arguments it checks, the
write and metadata groups, and the construction of the program itself.

Each attempt runs in a forked child behind the filter (``forked.in_child``).
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import mmap
import os
import platform
import resource
import signal
import socket
import struct
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sandbox.worker.confine import seccomp, syscalls
from tests.sandbox.forked import attempt, in_child

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or platform.machine() not in ("x86_64", "aarch64"),
    reason="the seccomp filter has syscall tables for Linux x86_64 and aarch64 only",
)
MACHINE = platform.machine()
PARENT = os.getpid()
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def raw(number: int, *args: int) -> Callable[[], None]:
    """A raw syscall that raises OSError like Python's wrappers do."""

    def call() -> None:
        if libc.syscall(ctypes.c_long(number), *(ctypes.c_long(a) for a in args)) < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))

    return call


def behind_filter(action: Callable[[], Any], **flags: bool) -> Callable[[], str]:
    def body() -> str:
        seccomp.install_syscall_filter(**flags)
        return attempt(action)

    return body


# What held against the deny list, now simply absent from the allowlist. Numbers per
# machine: the filter's own tables no longer name them.
HELD = {
    "ptrace": {"x86_64": 101, "aarch64": 117},
    "process_vm_readv": {"x86_64": 310, "aarch64": 270},
    "pidfd_open": {"x86_64": 434, "aarch64": 434},
    "pidfd_getfd": {"x86_64": 438, "aarch64": 438},
    "io_uring_setup": {"x86_64": 425, "aarch64": 425},
    "userfaultfd": {"x86_64": 323, "aarch64": 282},
    "unshare": {"x86_64": 272, "aarch64": 97},
    "setns": {"x86_64": 308, "aarch64": 268},
    "mount": {"x86_64": 165, "aarch64": 40},
    "bpf": {"x86_64": 321, "aarch64": 280},
    "perf_event_open": {"x86_64": 298, "aarch64": 241},
    "keyctl": {"x86_64": 250, "aarch64": 219},
    "clone": {"x86_64": 56, "aarch64": 220},
    "clone3": {"x86_64": 435, "aarch64": 435},
    "execve": {"x86_64": 59, "aarch64": 221},
    "socket": {"x86_64": 41, "aarch64": 198},
    "fanotify_init": {"x86_64": 300, "aarch64": 262},
    "fanotify_mark": {"x86_64": 301, "aarch64": 263},
    "inotify_init1": {"x86_64": 294, "aarch64": 26},
    "sendmsg": {"x86_64": 46, "aarch64": 211},
    "flock": {"x86_64": 73, "aarch64": 32},
    "msgget": {"x86_64": 68, "aarch64": 186},
    "shmget": {"x86_64": 29, "aarch64": 194},
    "seccomp": {"x86_64": 317, "aarch64": 277},
    # Unassigned today: a later kernel's syscall is refused as well.
    "a future syscall": {"x86_64": 1000, "aarch64": 1000},
}


@pytest.mark.timeout(30)
@pytest.mark.parametrize("name", list(HELD))
def test_calls_outside_the_allowlist_are_refused(name: str) -> None:
    # Harmless arguments: with the filter gone, most of these would succeed.
    assert in_child(behind_filter(raw(HELD[name][MACHINE], 0, 0, 0, 0))) == "EPERM"


@pytest.mark.skipif(MACHINE != "x86_64", reason="the x32 ABI exists on x86_64 only")
def test_the_x32_abi_is_refused() -> None:
    getpid_x32 = 0x40000000 | 39
    assert in_child(behind_filter(raw(getpid_x32))) == "EPERM"


@pytest.mark.skipif(MACHINE != "x86_64", reason="int 0x80 exists on x86_64 only")
@pytest.mark.timeout(30)
def test_int_0x80_kills_the_worker() -> None:
    # mov eax, 20 (i386 getpid); int 0x80; ret
    code = bytes([0xB8, 20, 0, 0, 0, 0xCD, 0x80, 0xC3])
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child is killed
        try:
            page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | 4)
            page.write(code)
            address = ctypes.addressof(ctypes.c_char.from_buffer(page))
            seccomp.install_syscall_filter()
            ctypes.CFUNCTYPE(ctypes.c_int)(address)()
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSYS, status


PRIO, AFFINITY = os.PRIO_PROCESS, os.sched_getaffinity(0)
#: A channel like the worker's, made before the filter (which refuses socket()).
CHANNEL = socket.socketpair()


def _send_and_read(flags: int) -> bytes:
    CHANNEL[0].send(b"x", flags)
    return CHANNEL[1].recv(1, flags)


ON_ITSELF = {
    "getrlimit": lambda: resource.getrlimit(resource.RLIMIT_NOFILE),
    "prlimit 0": lambda: resource.prlimit(0, resource.RLIMIT_CORE, (0, 0)),
    "prlimit own pid": lambda: resource.prlimit(os.getpid(), resource.RLIMIT_CORE),
    "setpriority 0": lambda: os.setpriority(PRIO, 0, 1),
    "setpriority own pid": lambda: os.setpriority(PRIO, os.getpid(), 2),
    "getpriority": lambda: os.getpriority(PRIO, 0),
    "sched_getaffinity": lambda: os.sched_getaffinity(0),
    "sched_setaffinity own pid": lambda: os.sched_setaffinity(os.getpid(), AFFINITY),
    "sched_getscheduler": lambda: os.sched_getscheduler(0),
    "kill itself": lambda: os.kill(os.getpid(), 0),
    "fcntl F_GETFL": lambda: fcntl.fcntl(0, fcntl.F_GETFL),
    "fcntl F_SETFD": lambda: fcntl.fcntl(0, fcntl.F_SETFD, fcntl.FD_CLOEXEC),
    "set_inheritable": lambda: os.set_inheritable(0, False),
    "set_blocking": lambda: os.set_blocking(0, True),
    "isatty": lambda: os.isatty(0),
    "alarm": lambda: signal.alarm(0),
    "setrlimit lower": lambda: resource.setrlimit(resource.RLIMIT_CORE, (0, 0)),
    "sendfile": lambda: os.sendfile(os.pipe()[1], os.open(__file__, os.O_RDONLY), 0, 16),
    "channel send and recv": lambda: _send_and_read(0),
    "channel MSG_DONTWAIT": lambda: _send_and_read(socket.MSG_DONTWAIT),
    "channel MSG_NOSIGNAL": lambda: _send_and_read(socket.MSG_NOSIGNAL),
}
ON_OTHERS = {
    "prlimit parent": lambda: resource.prlimit(PARENT, resource.RLIMIT_NOFILE),
    "setpriority parent": lambda: os.setpriority(PRIO, PARENT, 7),
    "getpriority parent": lambda: os.getpriority(PRIO, PARENT),
    "setpriority process group": lambda: os.setpriority(os.PRIO_PGRP, 0, 7),
    "setpriority user": lambda: os.setpriority(os.PRIO_USER, 0, 7),
    "sched_setaffinity parent": lambda: os.sched_setaffinity(PARENT, AFFINITY),
    "sched_getaffinity parent": lambda: os.sched_getaffinity(PARENT),
    "sched_setscheduler parent": lambda: os.sched_setscheduler(
        PARENT, os.SCHED_IDLE, os.sched_param(0)
    ),
    "sched_setparam parent": lambda: os.sched_setparam(PARENT, os.sched_param(0)),
    "tgkill to the parent": lambda: raw(syscalls.ARCHES[MACHINE][1]["tgkill"], PARENT, PARENT, 0)(),
    "fcntl F_SETOWN": lambda: fcntl.fcntl(0, fcntl.F_SETOWN, PARENT),
    "fcntl F_SETSIG": lambda: fcntl.fcntl(0, 10, signal.SIGKILL),
    "fcntl F_SETOWN_EX": lambda: fcntl.fcntl(0, 15, struct.pack("ii", 1, PARENT)),
    "fcntl F_SETLEASE": lambda: fcntl.fcntl(0, fcntl.F_SETLEASE, fcntl.F_RDLCK),
    "fcntl F_SETLK": lambda: fcntl.lockf(0, fcntl.LOCK_SH | fcntl.LOCK_NB),
    "ioctl TIOCSTI": lambda: fcntl.ioctl(0, 0x5412, b"x"),
    "prctl PR_SET_DUMPABLE": lambda: raw(syscalls.ARCHES[MACHINE][1]["prctl"], 4, 1)(),
    "channel send MSG_OOB": lambda: CHANNEL[0].send(b"x", socket.MSG_OOB),
    "channel recv MSG_OOB": lambda: CHANNEL[1].recv(1, socket.MSG_OOB | socket.MSG_DONTWAIT),
    "channel recv MSG_PEEK": lambda: CHANNEL[1].recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT),
}


@pytest.mark.timeout(30)
@pytest.mark.parametrize("action", list(ON_ITSELF.values()), ids=list(ON_ITSELF))
def test_calls_on_the_worker_itself_pass(action: Callable[[], Any]) -> None:
    assert in_child(behind_filter(action)) == "ok"


@pytest.mark.timeout(30)
@pytest.mark.parametrize("action", list(ON_OTHERS.values()), ids=list(ON_OTHERS))
def test_calls_on_other_processes_and_risky_commands_are_refused(action: Callable[[], Any]) -> None:
    assert in_child(behind_filter(action)) == "EPERM"


METADATA = {
    "chmod": lambda f: os.chmod(f, 0o600),
    "fchmod": lambda f: os.chmod(os.open(f, os.O_RDONLY), 0o600),
    "chown": lambda f: os.chown(f, os.getuid(), os.getgid()),
    "utime": lambda f: os.utime(f, (0, 0)),
    "setxattr": lambda f: os.setxattr(f, "user.probe", b"x"),
    "listxattr": os.listxattr,
}


@pytest.mark.timeout(30)
@pytest.mark.parametrize("action", list(METADATA.values()), ids=list(METADATA))
def test_metadata_changes_need_metadata_writes(
    tmp_path: Path, action: Callable[[Path], Any]
) -> None:
    target = tmp_path / "file.txt"
    target.write_text("x")
    before = target.stat()
    refused = behind_filter(lambda: action(target), file_writes=True)
    assert in_child(refused) == "EPERM"
    after = target.stat()
    assert (after.st_mode, after.st_mtime_ns, after.st_ctime_ns) == (
        before.st_mode,
        before.st_mtime_ns,
        before.st_ctime_ns,
    )
    outcome = in_child(behind_filter(lambda: action(target), metadata_writes=True))
    assert outcome == "ok" or "ENOTSUP" in outcome or "Operation not supported" in outcome


def test_metadata_writes_do_not_open_file_writes(tmp_path: Path) -> None:
    target = tmp_path / "new.txt"
    assert in_child(behind_filter(lambda: target.write_text("x"), metadata_writes=True)) == "EPERM"
    assert not target.exists()


def test_allowlist_names_are_known_on_every_machine() -> None:
    groups = [name for group in syscalls.ALLOWED.values() for name in group]
    names = [*groups, *syscalls.FILE_WRITES, *syscalls.METADATA, *syscalls.CHECKED]
    assert len(names) == len(set(names)), "a syscall is named in two groups"
    for _, table in syscalls.ARCHES.values():
        # Legacy path calls (open, stat, chmod, ...) exist on x86_64 only.
        assert set(table) <= set(names)
    assert set(names) == set(syscalls.X86_64)
    assert not {"clone", "clone3", "fork", "vfork", "execve", "socket", "ptrace"} & set(names)
    assert set(syscalls.HOT) <= set(names)


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
@pytest.mark.parametrize("file_writes", [False, True])
@pytest.mark.parametrize("metadata_writes", [False, True])
def test_every_variant_assembles(machine: str, file_writes: bool, metadata_writes: bool) -> None:
    program = seccomp.build_filter(
        4242, machine, file_writes=file_writes, metadata_writes=metadata_writes
    )
    assert 0 < len(program) // 8 < 4096  # the kernel's BPF_MAXINSNS
    with pytest.raises(OSError):
        seccomp.build_filter(1, "riscv64")


@pytest.mark.parametrize("metadata_writes", [False, True])
@pytest.mark.parametrize("file_writes", [False, True])
def test_the_prepared_filter_is_the_one_built_for_the_pid(
    file_writes: bool, metadata_writes: bool
) -> None:
    seccomp.prepare()
    flags = {"file_writes": file_writes, "metadata_writes": metadata_writes}
    for pid in (1, os.getpid(), 4_194_304):
        assert seccomp.filter_for(pid, **flags) == seccomp.build_filter(pid, **flags)


def test_refusals_keep_errno_eperm() -> None:
    # A refused call is an ordinary PermissionError, never a crash of the worker.
    def body() -> list[Any]:
        seccomp.install_syscall_filter()
        try:
            raw(HELD["bpf"][MACHINE], 0, 0, 0)()
        except OSError as exc:
            return [exc.errno, os.getpid() > 0]
        return ["ran"]

    assert in_child(body) == [errno.EPERM, True]


def fchmodat2(path: Path, mode: int) -> None:
    name = ctypes.create_string_buffer(os.fsencode(path))
    number = syscalls.ARCHES[MACHINE][1]["fchmodat2"]
    raw(number, -100, ctypes.addressof(name), mode, 0)()


SPECIAL_MODES = {
    "chmod setuid": lambda f: os.chmod(f, 0o4755),
    "chmod setgid": lambda f: os.chmod(f, 0o2755),
    "chmod sticky": lambda f: os.chmod(f, 0o1644),
    "fchmod setuid": lambda f: os.fchmod(os.open(f, os.O_RDONLY), 0o4700),
    "fchmodat setgid": lambda f: os.chmod(f.name, 0o2700, dir_fd=os.open(f.parent, os.O_RDONLY)),
    "fchmodat2 setuid": lambda f: fchmodat2(f, 0o4700),
    "open with a setuid mode": lambda f: os.open(f.with_name("new"), os.O_CREAT, 0o4755),
    "mkdir with a setgid mode": lambda f: os.mkdir(f.with_name("dir"), 0o2755),
    "mkdirat with a sticky mode": lambda f: os.mkdir("dir", 0o1777, dir_fd=os.open(f.parent, 0)),
}


@pytest.mark.timeout(30)
@pytest.mark.parametrize("action", list(SPECIAL_MODES.values()), ids=list(SPECIAL_MODES))
def test_no_setuid_setgid_or_sticky_bit_in_any_mode(
    tmp_path: Path, action: Callable[[Path], Any]
) -> None:
    target = tmp_path / "file"
    target.write_text("x")
    target.chmod(0o644)
    flags = {"file_writes": True, "metadata_writes": True}
    assert in_child(behind_filter(lambda: action(target), **flags)) == "EPERM"
    assert target.stat().st_mode & 0o7777 == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.timeout(30)
def test_plain_modes_still_pass(tmp_path: Path) -> None:
    target = tmp_path / "file"
    target.write_text("x")

    def plain() -> None:
        os.chmod(target, 0o750)
        os.close(os.open(tmp_path / "new", os.O_CREAT | os.O_WRONLY, 0o640))
        os.mkdir(tmp_path / "dir", 0o700)

    flags = {"file_writes": True, "metadata_writes": True}
    assert in_child(behind_filter(plain, **flags)) == "ok"
    assert target.stat().st_mode & 0o7777 == 0o750


@pytest.mark.timeout(30)
@pytest.mark.parametrize("call", ["getpgid", "getsid"])
def test_process_groups_and_sessions_only_of_the_worker_itself(call: str) -> None:
    def body() -> list[Any]:
        seccomp.install_syscall_filter()
        function = getattr(os, call)
        # 0 is a real answer: the session's leader may sit outside this PID namespace.
        own = [function(0) == function(os.getpid()), function(0) >= 0]
        return [*own, attempt(lambda: function(PARENT)), attempt(lambda: function(1))]

    assert in_child(body) == [True, True, "EPERM", "EPERM"]


#: Calls that would charge a per-user kernel budget of the host's user (counted up the
#: worker's user namespaces, or by uid): none may pass the filter.
PER_USER_BUDGETS = {
    "namespaces": ("unshare", "setns", "clone", "clone3", "fork", "vfork"),
    "inotify": ("inotify_init", "inotify_init1", "inotify_add_watch"),
    "fanotify": ("fanotify_init", "fanotify_mark"),
    "epoll watches": ("epoll_create", "epoll_create1", "epoll_ctl"),
    "keys": ("add_key", "request_key", "keyctl"),
    "locks": ("flock",),
    "locked memory": ("mlock", "mlock2", "mlockall", "io_uring_setup"),
    "POSIX message queues": ("mq_open", "mq_timedsend"),
    "POSIX timers": ("timer_create",),
    "SysV IPC": ("shmget", "msgget", "semget"),
    "BPF and perf": ("bpf", "perf_event_open"),
}


def test_no_call_that_charges_a_per_user_budget_is_allowed() -> None:
    allowed = {name for group in syscalls.ALLOWED.values() for name in group}
    allowed |= {*syscalls.FILE_WRITES, *syscalls.METADATA, *syscalls.CHECKED}
    for budget, calls in PER_USER_BUDGETS.items():
        assert not allowed & set(calls), budget
