"""The worker's seccomp filter: an allowlist in raw classic BPF, loaded with ``prctl``.

Only the syscalls of ``syscalls.ALLOWED`` pass, some only with the arguments of
``syscalls.CHECKED`` (signals, limits, priority and CPUs of the worker itself; harmless
``fcntl``/``ioctl``/``prctl`` commands). Opening for writing, creating, renaming and
deleting files pass only with ``file_writes`` (read-write mounts, confined by Landlock);
changing a file's mode, owner, times or extended attributes only with
``metadata_writes`` (the filesystem layer leaves nothing but the mounts visible).
Everything else — sockets, new processes and threads, exec, ptrace, namespaces,
mounts, io_uring, fanotify, and every syscall a later kernel adds — fails with
``EPERM``, so Python raises ``PermissionError``; another architecture's calls (``int
0x80``) kill the worker. No extra package, no root needed.

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

from sandbox.worker.confine.syscalls import (
    ALLOWED,
    ARCHES,
    CHECKED,
    FILE_WRITES,
    HOT,
    METADATA,
    MODE_ARGS,
    OPEN_CALLS,
    SELF,
    SPECIAL_MODE_BITS,
    WRITE_OPEN_FLAGS,
)

_PR_SET_PDEATHSIG = 1
_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2

_LD_ABS_W, _JA, _JEQ, _JGE, _JSET, _RET = 0x20, 0x05, 0x15, 0x35, 0x45, 0x06
_ALLOW, _KILL, _ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
_ALLOW_RET = (_RET, _ALLOW, 0, 0)
_REFUSE_RET = (_RET, _ERRNO | errno.EPERM, 0, 0)

_Instr = tuple[int, "int | str", "int | str", "int | str"]


def _assemble(prog: list[_Instr | str]) -> bytes:
    """Resolve jump labels (strings) into BPF's forward offsets and pack the program.

    A conditional jump reaches 255 instructions; ``_JA`` (its label in ``k``) any.
    """
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
        k = labels[k] - index - 1 if isinstance(k, str) else k
        packed.append(struct.pack("=HBBI", op, offsets[0], offsets[1], k))
    return b"".join(packed)


def _checked_block(
    name: str, rules: tuple[tuple[int, tuple[int | str, ...]], ...], pid: int
) -> list[_Instr | str]:
    """Allow when every rule holds: the low 32 bits of argument ``index`` (arguments are
    64-bit little-endian words from offset 16) is one of the values."""
    block: list[_Instr | str] = [f"check_{name}"]
    for number, (index, values) in enumerate(rules):
        passed = f"check_{name}_{number + 1}"
        block.append((_LD_ABS_W, 16 + 8 * index, 0, 0))
        for value in values:
            block.append((_JEQ, pid if value == SELF else int(value), passed, 0))
        block += [_REFUSE_RET, passed]
    return [*block, _ALLOW_RET]


def _chain(
    table: dict[str, int], file_writes: bool, metadata_writes: bool
) -> list[tuple[int, str]]:
    """(number, label) for each syscall this filter lets through, the most frequent first."""
    allowed = [name for group in ALLOWED.values() for name in group]
    allowed += list(FILE_WRITES) if file_writes else []
    allowed += list(METADATA) if metadata_writes else []
    targets = {name: "allow" for name in allowed}
    targets.update({name: f"mode_{name}" for name, _ in MODE_ARGS if name in targets})
    targets.update({name: f"check_{name}" for name in CHECKED})
    if not file_writes:
        targets.update({name: f"open_flags_{index}" for name, index in OPEN_CALLS})
    hot = {name: rank for rank, name in enumerate(HOT)}
    names = sorted((n for n in targets if n in table), key=lambda n: hot.get(n, len(hot)))
    return [(table[name], targets[name]) for name in names]


def build_filter(
    pid: int,
    machine: str | None = None,
    *,
    file_writes: bool = False,
    metadata_writes: bool = False,
) -> bytes:
    """The BPF program for the worker ``pid``: the allowlist, its argument checks, and
    the write and metadata groups when the flags ask for them."""
    machine = machine or platform.machine()
    if machine not in ARCHES:
        raise OSError(errno.ENOSYS, f"no syscall table for {machine}")
    arch, table = ARCHES[machine]
    prog: list[_Instr | str] = [
        (_LD_ABS_W, 4, 0, 0),
        (_JEQ, arch, 0, "kill"),
        (_LD_ABS_W, 0, 0, 0),
    ]
    if machine == "x86_64":  # the x32 ABI shares the arch value; refuse it outright
        prog.append((_JGE, 0x40000000, "deny", 0))
    chain = _chain(table, file_writes, metadata_writes)
    for nr, label in chain:
        if label == "allow":
            prog.append((_JEQ, nr, "allow", 0))
        else:  # the blocks below lie beyond a conditional jump's reach: through a _JA
            prog += [(_JEQ, nr, 0, 1), (_JA, label, 0, 0)]
    prog += ["deny", _REFUSE_RET, "allow", _ALLOW_RET, "kill", (_RET, _KILL, 0, 0)]
    # BPF jumps only forward: each block below carries its own returns.
    if not file_writes:
        for name, index in OPEN_CALLS:
            if name in table:
                prog += [
                    f"open_flags_{index}",
                    (_LD_ABS_W, 16 + 8 * index, 0, 0),
                    (_JSET, WRITE_OPEN_FLAGS, 1, 0),
                    _ALLOW_RET,
                    _REFUSE_RET,
                ]
    labels = {label for _, label in chain}
    for name, index in MODE_ARGS:
        if f"mode_{name}" in labels:
            prog += [
                f"mode_{name}",
                (_LD_ABS_W, 16 + 8 * index, 0, 0),
                (_JSET, SPECIAL_MODE_BITS, 0, 1),
                _REFUSE_RET,
                _ALLOW_RET,
            ]
    for name, rules in CHECKED.items():
        if name in table:
            prog += _checked_block(name, rules, pid)
    return _assemble(prog)


#: Stands for the worker's pid in a program built ahead of time (no real pid is this).
_PID_SENTINEL = 0xFFFFFFFE
_Variant = tuple[str, bool, bool]


@functools.cache
def _template(variant: _Variant) -> tuple[bytes, tuple[int, ...]]:
    """A program built for the sentinel pid, and the offsets of its pid comparisons."""
    machine, file_writes, metadata_writes = variant
    program = build_filter(
        _PID_SENTINEL, machine, file_writes=file_writes, metadata_writes=metadata_writes
    )
    marks = tuple(
        offset
        for offset in range(0, len(program), 8)
        if struct.unpack_from("=HBBI", program, offset)[::3] == (_JEQ, _PID_SENTINEL)
    )
    return program, marks


def prepare() -> None:
    """Build the programs ahead of time (the zygote does, so its workers only patch in
    their pid instead of assembling the filter again)."""
    try:
        for file_writes in (False, True):
            for metadata_writes in (False, True):
                _template((platform.machine(), file_writes, metadata_writes))
    except OSError:
        pass  # no table for this machine: each worker reports the filter as degraded


def filter_for(pid: int, *, file_writes: bool = False, metadata_writes: bool = False) -> bytes:
    """The program of :func:`build_filter` for ``pid``, from the prepared template."""
    template, marks = _template((platform.machine(), file_writes, metadata_writes))
    program = bytearray(template)
    for offset in marks:
        struct.pack_into("=I", program, offset + 4, pid)
    return bytes(program)


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


def install_syscall_filter(*, file_writes: bool = False, metadata_writes: bool = False) -> None:
    """Load the seccomp filter into this process (irreversible).

    ``file_writes``: the read-write mounts are confined by Landlock, so opening for
    writing, creating, renaming and deleting may pass. ``metadata_writes``: the
    filesystem layer governs every path the worker can see (a minimal root holding only
    the mounts), so chmod, chown, utime and xattr calls may pass. The worker's own pid
    is read here, so that it is right inside a PID namespace as well.
    """
    if _libc is None:
        raise OSError(errno.ENOSYS, "seccomp needs Linux")
    program = filter_for(os.getpid(), file_writes=file_writes, metadata_writes=metadata_writes)
    buf = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.cast(buf, ctypes.c_void_p))
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    _prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.addressof(fprog))
