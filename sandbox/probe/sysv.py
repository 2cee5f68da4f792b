"""The host's SysV IPC objects, as bait and as evidence (Linux, through ctypes).

:class:`SysvBait` creates a shared-memory segment holding a secret and a message
queue holding one message, both private to the host's user (mode 0600), and tells
afterwards whether the message is still there. :func:`objects` lists every segment,
queue and semaphore set of the host's IPC namespace (``/proc/sysvipc``), so that a
case's objects surviving its session can be seen.
"""

from __future__ import annotations

import ctypes
import os
import secrets
from pathlib import Path

IPC_PRIVATE, IPC_CREAT, IPC_NOWAIT, IPC_RMID, IPC_STAT = 0, 0o1000, 0o4000, 0, 2
_SIZE = 4096

_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p
_libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
_libc.shmdt.argtypes = [ctypes.c_void_p]
_libc.msgrcv.restype = ctypes.c_ssize_t


class _MsgBuf(ctypes.Structure):
    _fields_ = [("mtype", ctypes.c_long), ("mtext", ctypes.c_char * 256)]


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def objects() -> set[tuple[str, int]]:
    """(kind, id) of every SysV object in this IPC namespace."""
    found: set[tuple[str, int]] = set()
    for kind, column in (("shm", 1), ("msg", 1), ("sem", 1)):
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()[1:]
        except OSError:
            continue
        found |= {(kind, int(line.split()[column])) for line in lines if line.strip()}
    return found


class SysvBait:
    """A secret in a shared-memory segment and a message in a queue, both the host's."""

    def __init__(self) -> None:
        self.secret = f"SHM-SECRET-{secrets.token_hex(12)}"
        self.message = f"MSG-SECRET-{secrets.token_hex(12)}"
        self.shm_id = _check(_libc.shmget(IPC_PRIVATE, _SIZE, IPC_CREAT | 0o600), "shmget")
        self.msq_id = -1
        try:
            address = _libc.shmat(self.shm_id, None, 0)
            if address in (None, ctypes.c_void_p(-1).value):
                _check(-1, "shmat")
            ctypes.memmove(address, self.secret.encode(), len(self.secret))
            _libc.shmdt(address)
            self.msq_id = _check(_libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600), "msgget")
            buf = _MsgBuf(1, self.message.encode())
            _check(_libc.msgsnd(self.msq_id, ctypes.byref(buf), len(self.message), 0), "msgsnd")
        except BaseException:
            self.close()
            raise

    def message_taken(self) -> bool:
        """True when the host's message is no longer in its queue."""
        buf = _MsgBuf()
        size = _libc.msgrcv(self.msq_id, ctypes.byref(buf), 256, 0, IPC_NOWAIT)
        if size < 0:
            return True
        again = _MsgBuf(buf.mtype, buf.mtext)
        _check(_libc.msgsnd(self.msq_id, ctypes.byref(again), size, 0), "msgsnd")
        return bytes(buf.mtext[:size]).decode() != self.message

    def close(self) -> None:
        """Remove both objects."""
        _libc.shmctl(self.shm_id, IPC_RMID, None)
        if self.msq_id >= 0:
            _libc.msgctl(self.msq_id, IPC_RMID, None)
