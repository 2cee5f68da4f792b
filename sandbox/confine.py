"""Confining a freshly forked worker before it runs any script.

In order: its own session and process group (so the host can kill everything it
starts), death with its parent, no inherited descriptors, an empty environment,
resource limits, and on Linux a seccomp filter that refuses network sockets, ``exec``,
new processes and threads, ``ptrace``, signals to other processes, changes to the file
system (opening for writing, creating, truncating, renaming, deleting, ``chmod``...),
and the administrative calls a root process could otherwise make (mounts, clocks,
modules). Files can still be opened for reading.

The filter is raw classic BPF loaded with ``prctl``: no extra package, no root needed.
Refused calls fail with ``EPERM``, so Python raises ``PermissionError``. Anything a
machine does not allow is reported as degraded in the returned report, never skipped
silently.

Worker side: standard library only.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import resource
import signal
import struct
import sys
from collections.abc import Sequence
from typing import Any

from . import landlock

_PR_SET_PDEATHSIG = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

_LD_ABS_W, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW, _KILL, _ERRNO = 0x7FFF0000, 0x80000000, 0x00050000

# Calls a script never needs and that reach beyond its own process.
_DENIED_COMMON = [
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "execve",
    "execveat",
    "clone",
    "clone3",
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "setsid",
    "setpgid",
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "bpf",
    "perf_event_open",
    "keyctl",
    "add_key",
    "request_key",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "userfaultfd",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "personality",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "open_by_handle_at",
    "name_to_handle_at",
    "acct",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "setuid",
    "setgid",
    "setreuid",
    "setregid",
    "setresuid",
    "setresgid",
    "setgroups",
    "capset",
    "pidfd_open",
    "pidfd_send_signal",
    "pidfd_getfd",
    "quotactl",
    "sethostname",
    "setdomainname",
    "syslog",
    "mknodat",
    "vhangup",
    "kcmp",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
    # The file system (_FILE_WRITES): RLIMIT_FSIZE=0 stops writing bytes, not creating,
    # truncating (open with O_TRUNC), renaming or deleting files. Writable opens are
    # refused by the flag check below.
    "openat2",
    "mkdirat",
    "unlinkat",
    "symlinkat",
    "linkat",
    "renameat2",
    "truncate",
    "ftruncate",
    "fallocate",
    "fchmod",
    "fchmodat",
    "fchmodat2",
    "fchown",
    "fchownat",
    "utimensat",
    "setxattr",
    "lsetxattr",
    "fsetxattr",
    "removexattr",
    "lremovexattr",
    "fremovexattr",
]
_DENIED_X86_64_ONLY = [
    "fork",
    "vfork",
    "mknod",
    "iopl",
    "ioperm",
    "creat",
    "mkdir",
    "rmdir",
    "unlink",
    "rename",
    "renameat",
    "link",
    "symlink",
    "chmod",
    "chown",
    "lchown",
    "utime",
    "utimes",
    "futimesat",
]
_FILE_WRITES = frozenset(_DENIED_COMMON[_DENIED_COMMON.index("openat2") :]) | frozenset(
    _DENIED_X86_64_ONLY[_DENIED_X86_64_ONLY.index("creat") :]
)
#: ``open``-like calls: (name, index of the flags argument). Only read-only opens pass.
_OPEN_CALLS = [("open", 1), ("openat", 2)]
_WRITE_OPEN_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC

_X86_64 = {
    "socket": 41,
    "socketpair": 53,
    "connect": 42,
    "bind": 49,
    "listen": 50,
    "accept": 43,
    "accept4": 288,
    "execve": 59,
    "execveat": 322,
    "clone": 56,
    "clone3": 435,
    "fork": 57,
    "vfork": 58,
    "ptrace": 101,
    "process_vm_readv": 310,
    "process_vm_writev": 311,
    "setsid": 112,
    "setpgid": 109,
    "unshare": 272,
    "setns": 308,
    "mount": 165,
    "umount2": 166,
    "pivot_root": 155,
    "chroot": 161,
    "bpf": 321,
    "perf_event_open": 298,
    "keyctl": 250,
    "add_key": 248,
    "request_key": 249,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "userfaultfd": 323,
    "init_module": 175,
    "finit_module": 313,
    "delete_module": 176,
    "kexec_load": 246,
    "kexec_file_load": 320,
    "reboot": 169,
    "swapon": 167,
    "swapoff": 168,
    "personality": 135,
    "settimeofday": 164,
    "clock_settime": 227,
    "clock_adjtime": 305,
    "adjtimex": 159,
    "open_by_handle_at": 304,
    "name_to_handle_at": 303,
    "acct": 163,
    "rt_sigqueueinfo": 129,
    "rt_tgsigqueueinfo": 297,
    "setuid": 105,
    "setgid": 106,
    "setreuid": 113,
    "setregid": 114,
    "setresuid": 117,
    "setresgid": 119,
    "setgroups": 116,
    "capset": 126,
    "pidfd_open": 434,
    "pidfd_send_signal": 424,
    "pidfd_getfd": 438,
    "quotactl": 179,
    "sethostname": 170,
    "setdomainname": 171,
    "syslog": 103,
    "mknod": 133,
    "mknodat": 259,
    "vhangup": 153,
    "kcmp": 312,
    "iopl": 172,
    "ioperm": 173,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "move_mount": 429,
    "open_tree": 428,
    "mount_setattr": 442,
    "kill": 62,
    "tkill": 200,
    "tgkill": 234,
    "open": 2,
    "openat": 257,
    "openat2": 437,
    "creat": 85,
    "mkdir": 83,
    "mkdirat": 258,
    "rmdir": 84,
    "unlink": 87,
    "unlinkat": 263,
    "rename": 82,
    "renameat": 264,
    "renameat2": 316,
    "link": 86,
    "linkat": 265,
    "symlink": 88,
    "symlinkat": 266,
    "truncate": 76,
    "ftruncate": 77,
    "fallocate": 285,
    "chmod": 90,
    "fchmod": 91,
    "fchmodat": 268,
    "fchmodat2": 452,
    "chown": 92,
    "fchown": 93,
    "lchown": 94,
    "fchownat": 260,
    "utime": 132,
    "utimes": 235,
    "futimesat": 261,
    "utimensat": 280,
    "setxattr": 188,
    "lsetxattr": 189,
    "fsetxattr": 190,
    "removexattr": 197,
    "lremovexattr": 198,
    "fremovexattr": 199,
}
_AARCH64 = {
    "socket": 198,
    "socketpair": 199,
    "bind": 200,
    "listen": 201,
    "accept": 202,
    "connect": 203,
    "accept4": 242,
    "execve": 221,
    "execveat": 281,
    "clone": 220,
    "clone3": 435,
    "ptrace": 117,
    "process_vm_readv": 270,
    "process_vm_writev": 271,
    "setsid": 157,
    "setpgid": 154,
    "unshare": 97,
    "setns": 268,
    "mount": 40,
    "umount2": 39,
    "pivot_root": 41,
    "chroot": 51,
    "bpf": 280,
    "perf_event_open": 241,
    "keyctl": 219,
    "add_key": 217,
    "request_key": 218,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
    "userfaultfd": 282,
    "init_module": 105,
    "finit_module": 273,
    "delete_module": 106,
    "kexec_load": 104,
    "kexec_file_load": 294,
    "reboot": 142,
    "swapon": 224,
    "swapoff": 225,
    "personality": 92,
    "settimeofday": 170,
    "clock_settime": 112,
    "clock_adjtime": 266,
    "adjtimex": 171,
    "open_by_handle_at": 265,
    "name_to_handle_at": 264,
    "acct": 89,
    "rt_sigqueueinfo": 138,
    "rt_tgsigqueueinfo": 240,
    "setuid": 146,
    "setgid": 144,
    "setreuid": 145,
    "setregid": 143,
    "setresuid": 147,
    "setresgid": 149,
    "setgroups": 159,
    "capset": 91,
    "pidfd_open": 434,
    "pidfd_send_signal": 424,
    "pidfd_getfd": 438,
    "quotactl": 60,
    "sethostname": 161,
    "setdomainname": 162,
    "syslog": 116,
    "mknodat": 33,
    "vhangup": 58,
    "kcmp": 272,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "move_mount": 429,
    "open_tree": 428,
    "mount_setattr": 442,
    "kill": 129,
    "tkill": 130,
    "tgkill": 131,
    "openat": 56,
    "openat2": 437,
    "mkdirat": 34,
    "unlinkat": 35,
    "symlinkat": 36,
    "linkat": 37,
    "renameat2": 276,
    "truncate": 45,
    "ftruncate": 46,
    "fallocate": 47,
    "fchmod": 52,
    "fchmodat": 53,
    "fchmodat2": 452,
    "fchownat": 54,
    "fchown": 55,
    "utimensat": 88,
    "setxattr": 5,
    "lsetxattr": 6,
    "fsetxattr": 7,
    "removexattr": 14,
    "lremovexattr": 15,
    "fremovexattr": 16,
}
_ARCHES = {"x86_64": (0xC000003E, _X86_64), "aarch64": (0xC00000B7, _AARCH64)}


_Instr = tuple[int, int, "int | str", "int | str"]


def _assemble(prog: list[_Instr | str]) -> bytes:
    """Resolve jump labels (strings) into BPF's forward offsets and pack the program."""
    labels: dict[str, int] = {}
    code: list[_Instr] = []
    for item in prog:
        if isinstance(item, str):
            labels[item] = len(code)
        else:
            code.append(item)
    packed = []
    for index, (op, k, jt, jf) in enumerate(code):
        offsets = [labels[j] - index - 1 if isinstance(j, str) else j for j in (jt, jf)]
        if min(offsets) < 0 or max(offsets) > 255:
            raise ValueError("seccomp filter jump out of range")
        packed.append(struct.pack("=HBBI", op, offsets[0], offsets[1], k))
    return b"".join(packed)


def build_filter(pid: int, machine: str | None = None, *, file_writes: bool = False) -> bytes:
    """The BPF program for this worker: deny list, signals only to itself, and read-only
    file access unless ``file_writes`` (read-write mounts, confined by Landlock)."""
    machine = machine or platform.machine()
    if machine not in _ARCHES:
        raise OSError(errno.ENOSYS, f"no syscall table for {machine}")
    arch, table = _ARCHES[machine]
    denied = _DENIED_COMMON + (_DENIED_X86_64_ONLY if machine == "x86_64" else [])
    if file_writes:
        denied = [name for name in denied if name not in _FILE_WRITES]
    prog: list[_Instr | str] = [
        (_LD_ABS_W, 4, 0, 0),
        (_JEQ, arch, 0, "kill"),
        (_LD_ABS_W, 0, 0, 0),
    ]
    if machine == "x86_64":  # the x32 ABI shares the arch value; refuse it outright
        prog.append((_JGE, 0x40000000, "deny", 0))
    for nr in sorted({table[name] for name in denied}):
        prog.append((_JEQ, nr, "deny", 0))
    for name in ("kill", "tkill", "tgkill"):
        prog.append((_JEQ, table[name], "own_pid", 0))
    opened = [] if file_writes else _OPEN_CALLS
    opens = [(table[name], index) for name, index in opened if name in table]
    for nr, index in opens:
        prog.append((_JEQ, nr, f"open_flags_{index}", 0))
    prog += [(_RET, _ALLOW, 0, 0), "deny", (_RET, _ERRNO | errno.EPERM, 0, 0)]
    prog += ["kill", (_RET, _KILL, 0, 0)]
    # BPF jumps only forward: each block below carries its own returns.
    allow, refuse = (_RET, _ALLOW, 0, 0), (_RET, _ERRNO | errno.EPERM, 0, 0)
    # The first argument (pid/tgid/tid) must be this process. Arguments are 64-bit
    # little-endian words from offset 16: low half, then high half.
    prog += [
        "own_pid",
        (_LD_ABS_W, 16, 0, 0),
        (_JEQ, pid, 0, 3),
        (_LD_ABS_W, 20, 0, 0),
        (_JEQ, 0, 0, 1),
        allow,
        refuse,
    ]
    for index in sorted({index for _, index in opens}):
        prog += [
            f"open_flags_{index}",
            (_LD_ABS_W, 16 + 8 * index, 0, 0),
            (_JSET, _WRITE_OPEN_FLAGS, 1, 0),
            allow,
            refuse,
        ]
    return _assemble(prog)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_libc = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None
if _libc is not None:
    _libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
    _libc.prctl.restype = ctypes.c_int


def _prctl(option: int, arg2: Any, arg3: Any = 0) -> None:
    assert _libc is not None
    if _libc.prctl(option, arg2, arg3, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def install_syscall_filter(*, file_writes: bool = False) -> None:
    """Load the seccomp filter into this process (irreversible)."""
    if _libc is None:
        raise OSError(errno.ENOSYS, "seccomp needs Linux")
    program = build_filter(os.getpid(), file_writes=file_writes)
    buf = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    _prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog))


def apply_rlimits(limits: dict[str, Any], *, max_file_bytes: int = 0) -> None:
    """Resource limits for this process; raises if one cannot be set.

    ``max_file_bytes`` is the largest file a script may write (0: none at all).
    """
    memory = int(limits["memory_mb"]) * 1024 * 1024
    session_cpu = int(limits["session_cpu_s"])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversize writes fail with EFBIG instead
    settings = [
        (resource.RLIMIT_AS, (memory, memory)),
        (resource.RLIMIT_CPU, (session_cpu, session_cpu + 1)),
        (resource.RLIMIT_FSIZE, (max_file_bytes, max_file_bytes)),
        (resource.RLIMIT_NOFILE, (32, 32)),
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_NPROC, (0, 0)),
        (resource.RLIMIT_MEMLOCK, (0, 0)),
        (resource.RLIMIT_MSGQUEUE, (0, 0)),
    ]
    for which, value in settings:
        resource.setrlimit(which, value)


def detach(channel_fd: int) -> None:
    """New session, death with the parent, stdio on /dev/null, nothing else inherited."""
    os.setsid()
    if _libc is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        if fd != null:
            os.dup2(null, fd)
    keep = sorted({0, 1, 2, channel_fd})
    for low, high in zip(keep, [*keep[1:], 1 << 20], strict=True):
        if high > low + 1:
            os.closerange(low + 1, high)
    os.environ.clear()


def _own_process_group() -> None:
    os.setsid()
    if _libc is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _restrict_filesystem(mounts: Sequence[dict[str, Any]]) -> str:
    read_only = [*landlock.python_paths(), *(m["host_path"] for m in mounts if m["mode"] == "ro")]
    read_write = [m["host_path"] for m in mounts if m["mode"] == "rw"]
    try:
        abi = landlock.restrict(read_only, read_write)
    except OSError as exc:
        return f"degraded: {exc.strerror or exc}"
    return f"active (Landlock ABI {abi})"


def confine(
    channel_fd: int,
    limits: dict[str, Any],
    *,
    os_layer: bool = True,
    mounts: Sequence[dict[str, Any]] = (),
) -> dict[str, str]:
    """Apply the mechanisms; return each one's state: "active", "off" (the policy's
    ``os`` layer is off) or "degraded: <why>" (this machine does not allow it).

    With the OS layer off only the process group (the host's wall clock kills through
    it) and the rlimits remain.
    """
    report: dict[str, str] = {}
    if os_layer:
        detach(channel_fd)
        report["environment"] = "active" if not os.environ else "degraded: not empty"
        report["descriptors"] = "active"
    else:
        _own_process_group()
        report["environment"] = report["descriptors"] = "off"
    report["process_group"] = "active"
    writable = [m for m in mounts if m["mode"] == "rw"]
    try:
        apply_rlimits(limits, max_file_bytes=max((m["max_bytes"] for m in writable), default=0))
        report["rlimits"] = "active"
    except (OSError, ValueError) as exc:
        report["rlimits"] = f"degraded: {exc}"
    if not os_layer:
        report["syscall_filter"] = report["filesystem"] = "off"
        return report
    report["filesystem"] = _restrict_filesystem(mounts)
    try:
        # Without Landlock, writes stay refused by the filter, writable mounts or not.
        landlocked = report["filesystem"].startswith("active")
        install_syscall_filter(file_writes=bool(writable) and landlocked)
        report["syscall_filter"] = "active"
    except OSError as exc:
        report["syscall_filter"] = f"degraded: {exc.strerror or exc}"
    return report
