"""Filesystem confinement of a worker with Landlock (Linux ≥ 5.13, no root needed).

After :func:`restrict`, the worker can read the Python installation and the system's
shared libraries (so that imports keep working when the language layer is off), read
``ro`` mounts, read and write ``rw`` mounts — and nothing else: not /etc (bar the
loader's cache), /proc, /root, /tmp, /home or the project. Where the kernel offers
them, TCP bind/connect and signals or abstract sockets leaving the sandbox are refused
too. The syscalls are made through ctypes; nothing to install.

Worker side: standard library only.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import sys
import sysconfig
from collections.abc import Iterable

import sandbox

_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446  # same on x86_64 and aarch64
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1
_PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR = 1 << 4, 1 << 5, 1 << 6, 1 << 7
MAKE_REG, MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 8, 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_NET_BIND_TCP, _NET_CONNECT_TCP = 1 << 0, 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET, _SCOPE_SIGNAL = 1 << 0, 1 << 1

READ_ONLY = READ_FILE | READ_DIR
READ_WRITE = (
    READ_FILE | READ_DIR | WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG | TRUNCATE
)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


_libc = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None
if _libc is not None:
    _libc.syscall.restype = ctypes.c_long


def _syscall(number: int, *args: object) -> int:
    assert _libc is not None
    result = int(_libc.syscall(number, *args))
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def abi_version() -> int:
    """The kernel's Landlock ABI version; 0 when Landlock is unavailable."""
    if _libc is None:
        return 0
    try:
        return _syscall(
            _CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION)
        )
    except OSError:
        return 0


def _handled_fs(abi: int) -> int:
    rights = (1 << 13) - 1  # ABI 1: EXECUTE .. MAKE_SYM
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


@functools.cache
def python_paths() -> tuple[str, ...]:
    """Directories holding the interpreter's modules (read-only for the worker).

    Cached: the zygote computes it once, its workers inherit the answer.
    """
    names = ("stdlib", "platstdlib", "purelib", "platlib")
    paths = {sysconfig.get_paths().get(name) for name in names}
    paths |= {sys.prefix, sys.base_prefix, sys.exec_prefix}
    # The whole package, not this module's folder: workers import more of it after
    # confinement (lazy imports of the language layer).
    package = os.path.dirname(os.path.abspath(sandbox.__file__))
    paths.add(package)
    return tuple(sorted(p for p in paths if p and os.path.isdir(p)))


#: Where the dynamic loader finds the shared libraries that extension modules link
#: against (libz for zlib and binascii, libssl, libffi, ...): code, not secrets.
_LIBRARY_PATHS = ("/lib", "/lib64", "/usr/lib", "/usr/lib64", "/usr/local/lib", "/etc/ld.so.cache")


@functools.cache
def library_paths() -> tuple[str, ...]:
    """The system's shared-library directories (and the loader's cache) that exist."""
    return tuple(p for p in _LIBRARY_PATHS if os.path.exists(p))


def restrict(read_only: Iterable[str], read_write: Iterable[str]) -> int:
    """Confine this process (irreversibly); returns the ABI used. Raises OSError if not."""
    abi = abi_version()
    if abi < 1:
        raise OSError(errno.ENOSYS, "Landlock is not available in this kernel")
    handled = _handled_fs(abi)
    attr = _RulesetAttr(
        handled_access_fs=handled,
        handled_access_net=(_NET_BIND_TCP | _NET_CONNECT_TCP) if abi >= 4 else 0,
        scoped=(_SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL) if abi >= 6 else 0,
    )
    # Older kernels know a shorter struct: pass only the fields they understand.
    size = 24 if abi >= 6 else (16 if abi >= 4 else 8)
    # Without CAP_SYS_ADMIN (any user but root) the kernel requires no_new_privs first.
    assert _libc is not None
    if _libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    ruleset = _syscall(
        _CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)
    )
    try:
        for paths, access in ((read_only, READ_ONLY | EXECUTE), (read_write, READ_WRITE)):
            for path in paths:
                _allow(ruleset, path, access & handled)
        _syscall(_RESTRICT_SELF, ruleset, ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
    return abi


def _allow(ruleset: int, path: str, access: int) -> None:
    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    try:
        if not os.path.isdir(path):
            # Rights on a regular file may not include directory-only rights.
            access &= EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
        rule = _PathBeneathAttr(allowed_access=access, parent_fd=fd)
        _syscall(
            _ADD_RULE,
            ruleset,
            ctypes.c_int(_RULE_PATH_BENEATH),
            ctypes.byref(rule),
            ctypes.c_uint32(0),
        )
    finally:
        os.close(fd)
