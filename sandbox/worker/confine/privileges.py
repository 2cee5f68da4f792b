"""Leaving a worker without privileges: ``no_new_privs`` and no capability in any set.

A worker forked from a root host holds every capability, so that — without this — a
script could mark host files with fanotify (CAP_SYS_ADMIN), raise limits
(CAP_SYS_RESOURCE) or renice the host (CAP_SYS_NICE), whatever the other fences say.
:func:`drop` empties the bounding set first (``PR_CAPBSET_DROP`` needs CAP_SETPCAP,
which the later steps remove), then the ambient set, then effective, permitted and
inheritable (``capset``), and checks the result with ``capget``. It runs after the
write staging and any namespace set-up, which use capabilities inside the worker's own
user namespace, and before the filesystem fence and the syscall filter.

An unprivileged worker has no CAP_SETPCAP, so its bounding set stays as inherited;
``no_new_privs`` makes it unreachable (no exec can grant a capability), and the report
says so.

Worker side: standard library only.
"""

from __future__ import annotations

import ctypes
import errno
import os
import sys

_PR_CAPBSET_DROP = 24
_PR_SET_NO_NEW_PRIVS = 38
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_CAPABILITY_VERSION_3 = 0x20080522
#: Upper bound when /proc/sys/kernel/cap_last_cap cannot be read (40 on Linux 6.x);
#: numbers past the kernel's last capability fail with EINVAL and are skipped.
_CAP_LAST_FALLBACK = 63

_libc = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None
if _libc is not None:
    _libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4
    _libc.prctl.restype = ctypes.c_int
#: The same prctl without argument conversion, for the bounding-set loop: a fork costs
#: what the worker does before its first script, and argtypes double each call's cost.
_fast_prctl = ctypes.CDLL(None, use_errno=True).prctl if sys.platform == "linux" else None
_CAP_SETPCAP = 8


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [
        ("effective", ctypes.c_uint32),
        ("permitted", ctypes.c_uint32),
        ("inheritable", ctypes.c_uint32),
    ]


#: Built once at import, in the zygote: every object a fresh worker touches first costs
#: it copy-on-write page faults (making these in each worker cost it 0.1 ms, measured).
_CapPair = _CapData * 2
_NO_CAPABILITIES = _CapPair()
_HEADER = _CapHeader(_CAPABILITY_VERSION_3, 0)
_HELD = _CapPair()
_capget = _libc.capget if _libc is not None else None
_capset = _libc.capset if _libc is not None else None


def _prctl(option: int, arg2: int = 0, arg3: int = 0) -> int:
    assert _libc is not None
    result = int(_libc.prctl(option, arg2, arg3, 0, 0))
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))
    return result


def last_cap() -> int:
    """The highest capability number this kernel knows."""
    try:
        with open("/proc/sys/kernel/cap_last_cap", "rb") as f:
            return int(f.read())
    except (OSError, ValueError):
        return _CAP_LAST_FALLBACK


#: Read once at import (in the zygote), before any worker's Landlock fence hides /proc.
LAST_CAP = last_cap()
_CAP_ARGS = [ctypes.c_ulong(cap) for cap in range(max(LAST_CAP, _CAP_LAST_FALLBACK) + 1)]


def _drop_bounding(last: int) -> None:
    """Empty the bounding set (the caller holds CAP_SETPCAP)."""
    assert _fast_prctl is not None
    for cap in _CAP_ARGS[: last + 1]:
        if _fast_prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            err = ctypes.get_errno()
            if err == errno.EINVAL:
                break  # past this kernel's last capability
            raise OSError(err, f"PR_CAPBSET_DROP: {os.strerror(err)}")


def _sets() -> bytes:
    """capget of this process: effective, permitted, inheritable of capabilities 0-31,
    then the same of 32-63."""
    assert _capget is not None
    _HEADER.version, _HEADER.pid = _CAPABILITY_VERSION_3, 0
    if _capget(ctypes.byref(_HEADER), _HELD) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"capget: {os.strerror(err)}")
    return bytes(_HELD)


def drop(last: int | None = None) -> str:
    """Set ``no_new_privs`` and drop every capability; return the report's state.

    Raises OSError when a set cannot be emptied (the worker reports it as degraded).
    """
    if _libc is None:
        raise OSError(errno.ENOSYS, "capabilities exist only on Linux")
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)
    # Only a process holding CAP_SETPCAP (root, or any process in its own user
    # namespace) may shrink its bounding set.
    bounding = bool(int.from_bytes(_sets()[:4], "little") & (1 << _CAP_SETPCAP))
    if bounding:
        _drop_bounding(LAST_CAP if last is None else last)
    try:
        _prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL)
    except OSError as exc:
        if exc.errno != errno.EINVAL:  # before Linux 4.3 there is no ambient set
            raise
    assert _capset is not None
    _HEADER.version, _HEADER.pid = _CAPABILITY_VERSION_3, 0
    if _capset(ctypes.byref(_HEADER), _NO_CAPABILITIES) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"capset: {os.strerror(err)}")
    if any(_sets()):
        raise OSError(errno.EPERM, "capabilities are still held after capset")
    if not bounding:
        return "active (bounding set kept: dropping it needs CAP_SETPCAP; no_new_privs)"
    return "active"
