"""The worker's seccomp filter: raw classic BPF, loaded with ``prctl``.

It refuses network sockets, ``exec``, new processes and threads, ``ptrace``, signals
to other processes, the administrative calls a root process could otherwise make
(mounts, clocks, modules) and, unless a writable mount needs them (Landlock then
confines the writes), changes to the file system: opening for writing, creating,
truncating, renaming, deleting, ``chmod``. Refused calls fail with ``EPERM``, so Python
raises ``PermissionError``. No extra package, no root needed.

Worker side: standard library only.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import platform
import signal
import struct
import sys
from typing import Any

from .syscalls import (
    ARCHES,
    DENIED_COMMON,
    DENIED_X86_64_ONLY,
    FILE_WRITES,
    OPEN_CALLS,
    WRITE_OPEN_FLAGS,
)

_PR_SET_PDEATHSIG = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

_LD_ABS_W, _JEQ, _JGE, _JSET, _RET = 0x20, 0x15, 0x35, 0x45, 0x06
_ALLOW, _KILL, _ERRNO = 0x7FFF0000, 0x80000000, 0x00050000

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
    if machine not in ARCHES:
        raise OSError(errno.ENOSYS, f"no syscall table for {machine}")
    arch, table = ARCHES[machine]
    denied = DENIED_COMMON + (DENIED_X86_64_ONLY if machine == "x86_64" else [])
    if file_writes:
        denied = [name for name in denied if name not in FILE_WRITES]
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
    opened = [] if file_writes else OPEN_CALLS
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
            (_JSET, WRITE_OPEN_FLAGS, 1, 0),
            allow,
            refuse,
        ]
    return _assemble(prog)


#: Stands for the worker's pid in a program built ahead of time (no real pid is this).
_PID_SENTINEL = 0xFFFFFFFE


@functools.cache
def _template(machine: str, file_writes: bool) -> bytes:
    return build_filter(_PID_SENTINEL, machine, file_writes=file_writes)


def prepare() -> None:
    """Build the programs ahead of time (the zygote does, so its workers only patch in
    their pid instead of assembling the filter again)."""
    try:
        for file_writes in (False, True):
            _template(platform.machine(), file_writes)
    except OSError:
        pass  # no table for this machine: each worker reports the filter as degraded


def filter_for(pid: int, *, file_writes: bool = False) -> bytes:
    """The program of :func:`build_filter` for ``pid``, from the prepared template."""
    template = _template(platform.machine(), file_writes)
    marker = struct.pack("=HBBI", _JEQ, 0, 3, _PID_SENTINEL)
    assert template.count(marker) == 1
    return template.replace(marker, struct.pack("=HBBI", _JEQ, 0, 3, pid))


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


def die_with_parent() -> None:
    """Ask the kernel to SIGKILL this process when its parent dies."""
    if _libc is not None:
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def install_syscall_filter(*, file_writes: bool = False) -> None:
    """Load the seccomp filter into this process (irreversible)."""
    if _libc is None:
        raise OSError(errno.ENOSYS, "seccomp needs Linux")
    program = filter_for(os.getpid(), file_writes=file_writes)
    buf = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    _prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog))
