"""What a worker must not see of the host: its SysV objects, processes, hostname,
network interfaces and files outside the mounts — as evidence for one corpus case.

:class:`HostView` fills the placeholders ``{{SHM_ID}}`` and ``{{MSQ_ID}}`` (the host's
bait segment and queue, see ``sysv.py``) and ``{{IPC_KEY}}`` (a key no host object
uses). Afterwards it reports, in words: the bait message taken from its queue, SysV
objects with the case's key alive in the host's IPC namespace after the session, and
*host facts* printed by the script — values only the host knows, each printed with a
label (``hostname=``, ``host-sid=``, ``ifaces=``, ``inode=``), so that a script that
merely guesses does not count.
"""

from __future__ import annotations

import ctypes
import os
import secrets
import socket
from pathlib import Path

from sandbox.probe.sysv import SysvBait
from sandbox.worker.confine.namespaces import HOSTNAME

_libc = ctypes.CDLL(None, use_errno=True)


def _interfaces() -> str:
    try:
        return ",".join(sorted(name for _, name in socket.if_nameindex()))
    except OSError:
        return ""


class HostView:
    """One case's SysV bait and the host facts its script must not be able to print."""

    def __init__(self, source: str, secret_file: Path) -> None:
        baited = "{{SHM_ID}}" in source or "{{MSQ_ID}}" in source
        self.bait = SysvBait() if baited else None
        self.ipc_key = secrets.randbelow(1 << 30) + 1
        self.facts = [f"host-sid={os.getsid(0)}", f"inode={secret_file.stat().st_ino}"]
        if socket.gethostname() != HOSTNAME.decode():  # else indistinguishable
            self.facts.append(f"hostname={socket.gethostname()}")
        interfaces = _interfaces()
        if interfaces and interfaces != "lo":
            self.facts.append(f"ifaces={interfaces}")

    def values(self) -> dict[str, str]:
        """Placeholder → Python literal."""
        bait = self.bait
        return {
            "SHM_ID": str(bait.shm_id if bait else -1),
            "MSQ_ID": str(bait.msq_id if bait else -1),
            "IPC_KEY": str(self.ipc_key),
        }

    def secrets(self) -> list[str]:
        """The bait's contents: they must never come back from the sandbox."""
        return [self.bait.secret, self.bait.message] if self.bait else []

    def effects(self, dump: str) -> list[str]:
        """Every host effect or host fact seen, in words; removes objects that escaped."""
        found = [f"a host fact was visible in the run ({f})" for f in self.facts if f in dump]
        if self.bait is not None and self.bait.message_taken():
            found.append("the host's SysV message was taken from its queue")
        for kind, ident, rmid in (
            ("segment", _libc.shmget(self.ipc_key, 0, 0), _libc.shmctl),
            ("message queue", _libc.msgget(self.ipc_key, 0), _libc.msgctl),
            ("semaphore set", _libc.semget(self.ipc_key, 0, 0), _libc.semctl),
        ):
            if ident >= 0:
                found.append(f"a SysV {kind} made by the script outlived its session")
                rmid(ident, 0, None)  # IPC_RMID
        return found

    def close(self) -> None:
        """Remove the bait."""
        if self.bait is not None:
            self.bait.close()
