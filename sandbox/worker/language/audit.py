"""The language layer's view of what library code does with files, sockets and
processes: an audit hook (PEP 578) installed in the worker before the first script.

Library code opens files itself (``pd.read_csv``, ``np.save``, ``plt.savefig``) and
may open sockets (``pd.read_csv("http://...")``); the guards never see those calls.
CPython raises an audit event for each, whoever calls, and the hook refuses:

- ``open`` and the ``os`` path operations outside the mounts and, for reading, the
  Python installation and shared-library directories (what ``landlock.py`` lets a
  worker read); writes only under ``rw`` mounts. Paths are resolved (symlinks
  followed) before the check;
- every socket operation, ``urllib`` requests, new processes and ``ctypes.dlopen``.

So the language layer alone keeps library code to the mounts, as the OS layer does
again. Installed only with the language layer on (plain Python is the OS layer's
alone); a hook cannot be removed once added.

Worker side: standard library only.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any

from sandbox.worker.confine import landlock

#: Events whose first one or two arguments are paths, and whether they write.
_PATH_EVENTS: dict[str, tuple[int, bool]] = {
    "os.remove": (1, True),
    "os.rename": (2, True),
    "os.mkdir": (1, True),
    "os.rmdir": (1, True),
    "os.link": (2, True),
    "os.symlink": (2, True),
    "os.chmod": (1, True),
    "os.chown": (1, True),
    "os.utime": (1, True),
    "os.truncate": (1, True),
    "os.listdir": (1, False),
    "os.scandir": (1, False),
    "os.chdir": (1, False),
}
_REFUSED = frozenset(
    {
        "socket.__new__",
        "socket.bind",
        "socket.connect",
        "socket.getaddrinfo",
        "socket.gethostbyname",
        "socket.gethostbyaddr",
        "socket.sendto",
        "socket.sendmsg",
        "urllib.Request",
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "os.startfile",
        "ctypes.dlopen",
        "pty.spawn",
        "webbrowser.open",
    }
)
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


def _inside(path: str, roots: Iterable[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def _exact_path(path: Any) -> str:
    """The path as the kernel will get it, decided without calling a method the
    script could override: a ``str``/``bytes`` subclass's ``split`` or ``__fspath__``
    could show the check one path and the open another."""
    if isinstance(path, str):
        return str.__add__("", path)  # the characters themselves, as an exact str
    if isinstance(path, bytes | bytearray):
        return os.fsdecode(bytes.__add__(b"", path))
    if type(path).__module__ == "pathlib" or isinstance(path, os.DirEntry):
        return os.fsdecode(os.fspath(path))  # the standard library's own path types
    raise PermissionError(
        f"library code in the sandbox takes paths as str, bytes or pathlib paths, "
        f"not {type(path).__name__}"
    )


class _Hook:
    def __init__(self, mounts: Sequence[dict[str, Any]]) -> None:
        writable = [m for m in mounts if m["mode"] == "rw"]
        self.read_roots = [
            os.path.realpath(p)
            for p in (
                *landlock.python_paths(),
                *landlock.library_paths(),
                *(m["host_path"] for m in mounts),
                *(m["sandbox_path"] for m in mounts),
            )
        ]
        self.write_roots = [
            os.path.realpath(p) for m in writable for p in (m["host_path"], m["sandbox_path"])
        ]

    def check(self, path: Any, write: bool) -> None:
        if isinstance(path, int) or path is None:
            return  # an open descriptor: checked when it was opened
        text = _exact_path(path)
        real = os.path.realpath(text)
        if not _inside(real, self.write_roots if write else self.read_roots):
            what = "write to" if write else "read"
            raise PermissionError(f"{text!r}: library code may not {what} it in the sandbox")

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if event == "open":
            path, mode, flags = (*args, None, None)[:3]
            write = (
                any(c in mode for c in "wax+")
                if isinstance(mode, str)
                else isinstance(flags, int) and bool(flags & _WRITE_FLAGS)
            )
            self.check(path, write)
        elif event in _PATH_EVENTS:
            count, write = _PATH_EVENTS[event]
            for path in args[:count]:
                self.check(path, write)
        elif event in _REFUSED:
            raise PermissionError(f"{event} is not available in the sandbox")


def install(mounts: Sequence[dict[str, Any]]) -> str:
    """Add the hook to this process (for good); returns the report's state."""
    sys.addaudithook(_Hook(mounts))
    return "active"
