"""Files for scripts, at the language layer: a safe ``open`` and path helpers.

Scripts see only the policy's mounts, at their sandbox paths (``/data`` → a host
directory). Every path is resolved here before any host call: ``..`` components,
paths outside every mount, symlinks that leave their mount, and writes to read-only
mounts are refused with ``PermissionError``. Writes count against the mount's byte
budget for the session. Relative paths start at the first mount. Files are handed out
as :class:`SandboxFile` wrappers, never as real file objects (whose class could reopen
any path). The OS layer (Landlock) enforces the same mounts again underneath.

Worker side: standard library only.
"""

from __future__ import annotations

import builtins
import fnmatch
import os
import posixpath
from collections.abc import Iterator
from typing import Any

_MODES = {"r", "w", "a", "x"}


class Mounts:
    """The mount table of one session, with its write budgets."""

    def __init__(self, mounts: list[dict[str, Any]]) -> None:
        self._mounts = sorted(mounts, key=lambda m: -len(m["sandbox_path"]))
        self._written = {m["sandbox_path"]: 0 for m in mounts}
        self.cwd = mounts[0]["sandbox_path"] if mounts else "/"

    def __bool__(self) -> bool:
        return bool(self._mounts)

    def roots(self) -> list[str]:
        """The sandbox paths of the mounts."""
        return sorted(m["sandbox_path"] for m in self._mounts)

    def normalize(self, path: Any) -> str:
        """An absolute sandbox path without ``.`` components; ``..`` is refused."""
        if isinstance(path, SandboxPath):
            path = path.as_posix()
        if not isinstance(path, str):
            raise TypeError(f"expected a path string, not {type(path).__name__}")
        if "\0" in path:
            raise ValueError("embedded null character in path")
        if ".." in path.split("/"):
            raise PermissionError(f"{path!r}: '..' is not allowed in sandbox paths")
        if not path.startswith("/"):
            path = posixpath.join(self.cwd, path)
        normalized: str = posixpath.normpath(path).replace("//", "/")
        return normalized

    def resolve(self, path: Any, *, write: bool = False) -> tuple[str, dict[str, Any]]:
        """(host path, mount) for a sandbox path, after every check."""
        sandbox_path = self.normalize(path)
        for mount in self._mounts:
            root = mount["sandbox_path"]
            if sandbox_path == root or sandbox_path.startswith(root + "/"):
                break
        else:
            raise PermissionError(
                f"{sandbox_path!r} is outside the sandbox's mounts ({', '.join(self.roots())})"
                if self._mounts
                else f"{sandbox_path!r}: this sandbox has no files"
            )
        if write and mount["mode"] != "rw":
            raise PermissionError(f"{sandbox_path!r}: the mount {root} is read-only")
        host_root = os.path.realpath(mount["host_path"])
        host = os.path.join(host_root, sandbox_path[len(root) :].lstrip("/"))
        # Symlinks must not lead out of the mount (checked on the deepest existing part).
        probe = host
        while not os.path.lexists(probe) and probe != host_root:
            probe = os.path.dirname(probe)
        real = os.path.realpath(probe)
        if real != host_root and not real.startswith(host_root + os.sep):
            raise PermissionError(f"{sandbox_path!r} leads outside its mount")
        return host, mount

    def charge(self, mount: dict[str, Any], size: int) -> None:
        """Count ``size`` written bytes against the mount's budget."""
        key = mount["sandbox_path"]
        if self._written[key] + size > mount["max_bytes"]:
            raise OSError(f"write quota of {mount['max_bytes']} bytes exceeded under {key}")
        self._written[key] += size


class SandboxFile:
    """A file opened by a script: reading, writing, iteration, ``with``; nothing else."""

    __slots__ = ("_file", "_mount", "_mounts", "mode", "name")

    def __init__(
        self, file: Any, name: str, mode: str, mounts: Mounts, mount: dict[str, Any]
    ) -> None:
        self._file, self._mounts, self._mount = file, mounts, mount
        self.name, self.mode = name, mode

    def read(self, size: int = -1) -> Any:
        return self._file.read(size)

    def readline(self, size: int = -1) -> Any:
        return self._file.readline(size)

    def readlines(self) -> list[Any]:
        return list(self._file.readlines())

    def write(self, data: Any) -> int:
        size = len(data.encode("utf-8")) if isinstance(data, str) else len(data)
        self._mounts.charge(self._mount, size)
        return int(self._file.write(data))

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def seek(self, offset: int, whence: int = 0) -> int:
        return int(self._file.seek(offset, whence))

    def tell(self) -> int:
        return int(self._file.tell())

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()

    @property
    def closed(self) -> bool:
        return bool(self._file.closed)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._file)

    def __enter__(self) -> SandboxFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self._file.close()

    def __repr__(self) -> str:
        return f"<sandbox file {self.name!r} mode {self.mode!r}>"


def make_open(mounts: Mounts) -> Any:
    """The script's ``open``: text or binary, r/w/a/x, under the mounts only."""

    def open(
        file: Any, mode: str = "r", encoding: str | None = None, newline: str | None = None
    ) -> SandboxFile:
        if (
            not isinstance(mode, str)
            or not mode
            or set(mode) - {"r", "w", "a", "x", "b", "t"}
            or len(set(mode) & _MODES) != 1
            or ("b" in mode and "t" in mode)
        ):
            raise ValueError(f"mode {mode!r} is not supported: use r, w, a or x, with b or t")
        write = mode[0] != "r" and "r" not in mode
        host, mount = mounts.resolve(file, write=write)
        # The real file object stays inside the wrapper (its class could reopen any path).
        if "b" in mode:
            real = builtins.open(host, mode.replace("t", ""))  # noqa: SIM115
        else:
            real = builtins.open(  # noqa: SIM115
                host, mode.replace("t", ""), encoding=encoding or "utf-8", newline=newline
            )
        return SandboxFile(real, mounts.normalize(file), mode, mounts, mount)

    return open


class SandboxPath:
    """A small ``pathlib.PurePosixPath``-like path that does I/O through the mounts."""

    __slots__ = ("_mounts", "_path")
    _path: str
    _mounts: Mounts

    def __init__(self, path: Any, mounts: Mounts) -> None:
        text: Any = path.as_posix() if isinstance(path, SandboxPath) else path
        if not isinstance(text, str):
            raise TypeError(f"expected a path string, not {type(text).__name__}")
        self._path, self._mounts = text, mounts

    def _new(self, path: str) -> SandboxPath:
        return SandboxPath(path, self._mounts)

    def as_posix(self) -> str:
        return self._path

    def __str__(self) -> str:
        return self._path

    def __repr__(self) -> str:
        return f"Path({self._path!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SandboxPath) and other._path == self._path

    def __hash__(self) -> int:
        return hash(self._path)

    def __truediv__(self, other: Any) -> SandboxPath:
        return self._new(posixpath.join(self._path, str(other)))

    @property
    def name(self) -> str:
        return posixpath.basename(self._path.rstrip("/"))

    @property
    def suffix(self) -> str:
        return posixpath.splitext(self.name)[1]

    @property
    def stem(self) -> str:
        return posixpath.splitext(self.name)[0]

    @property
    def parent(self) -> SandboxPath:
        return self._new(posixpath.dirname(self._path.rstrip("/")) or "/")

    def exists(self) -> bool:
        return exists(self._mounts, self._path)

    def is_file(self) -> bool:
        return isfile(self._mounts, self._path)

    def is_dir(self) -> bool:
        return isdir(self._mounts, self._path)

    def iterdir(self) -> Iterator[SandboxPath]:
        for entry in listdir(self._mounts, self._path):
            yield self / entry

    def glob(self, pattern: str) -> list[SandboxPath]:
        return [p for p in self.iterdir() if fnmatch.fnmatch(p.name, pattern)]

    def open(self, mode: str = "r", encoding: str | None = None) -> SandboxFile:
        opened: SandboxFile = make_open(self._mounts)(self._path, mode, encoding)
        return opened

    def read_text(self, encoding: str | None = None) -> str:
        with self.open("r", encoding) as f:
            return str(f.read())

    def read_bytes(self) -> bytes:
        with self.open("rb") as f:
            return bytes(f.read())

    def write_text(self, data: str, encoding: str | None = None) -> int:
        with self.open("w", encoding) as f:
            return f.write(data)

    def write_bytes(self, data: bytes) -> int:
        with self.open("wb") as f:
            return f.write(data)

    def mkdir(self, parents: bool = False, exist_ok: bool = False) -> None:
        host, _ = self._mounts.resolve(self._path, write=True)
        if parents:
            os.makedirs(host, exist_ok=exist_ok)
        else:
            try:
                os.mkdir(host)
            except FileExistsError:
                if not exist_ok:
                    raise

    def unlink(self) -> None:
        remove(self._mounts, self._path)


def exists(mounts: Mounts, path: Any) -> bool:
    try:
        return os.path.exists(mounts.resolve(path)[0])
    except PermissionError:
        return False


def isfile(mounts: Mounts, path: Any) -> bool:
    try:
        return os.path.isfile(mounts.resolve(path)[0])
    except PermissionError:
        return False


def isdir(mounts: Mounts, path: Any) -> bool:
    normalized = mounts.normalize(path)
    if normalized == "/" or any(r.startswith(normalized.rstrip("/") + "/") for r in mounts.roots()):
        return True
    try:
        return os.path.isdir(mounts.resolve(path)[0])
    except PermissionError:
        return False


def listdir(mounts: Mounts, path: Any = ".") -> list[str]:
    normalized = mounts.normalize(path)
    prefix = normalized.rstrip("/") + "/"
    above = sorted({r[len(prefix) :].split("/")[0] for r in mounts.roots() if r.startswith(prefix)})
    if above:  # a directory above the mounts shows the next components towards them
        return above
    return sorted(os.listdir(mounts.resolve(path)[0]))


def remove(mounts: Mounts, path: Any) -> None:
    os.remove(mounts.resolve(path, write=True)[0])


def makedirs(mounts: Mounts, path: Any, exist_ok: bool = False) -> None:
    os.makedirs(mounts.resolve(path, write=True)[0], exist_ok=exist_ok)


def getsize(mounts: Mounts, path: Any) -> int:
    return os.path.getsize(mounts.resolve(path)[0])


def module_members(mounts: Mounts) -> dict[str, dict[str, Any]]:
    """Members of the ``os.path``, ``os`` and ``pathlib`` proxies for these mounts."""

    def bind(fn: Any) -> Any:
        return lambda *args, **kwargs: fn(mounts, *args, **kwargs)

    path_members: dict[str, Any] = {
        "join": posixpath.join,
        "basename": posixpath.basename,
        "dirname": posixpath.dirname,
        "splitext": posixpath.splitext,
        "split": posixpath.split,
        "normpath": posixpath.normpath,
        "isabs": posixpath.isabs,
        "sep": "/",
        "exists": bind(exists),
        "isfile": bind(isfile),
        "isdir": bind(isdir),
        "getsize": bind(getsize),
        "abspath": lambda p: mounts.normalize(p),
    }
    os_members: dict[str, Any] = {
        "listdir": bind(listdir),
        "remove": bind(remove),
        "unlink": bind(remove),
        "makedirs": bind(makedirs),
        "getcwd": lambda: mounts.cwd,
        "sep": "/",
        "linesep": "\n",
    }
    return {
        "os.path": path_members,
        "os": os_members,
        "pathlib": {
            "Path": lambda *parts: SandboxPath(
                posixpath.join(*parts) if parts else mounts.cwd, mounts
            ),
            "PurePosixPath": lambda *parts: SandboxPath(posixpath.join(*parts), mounts),
        },
    }
