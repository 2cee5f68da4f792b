"""The host-side stage of the escapes suite: secrets, mounts, markers, placeholders.

One :class:`SuiteArena` per run: a temporary root holding a read-only and (unless
asked not to) a writable mount (each with a symlink leading out), a shared secret
outside them, an empty ``outside`` directory, and an environment variable of the host
holding a secret (set before the sandbox starts, restored afterwards). One
:class:`CaseArena` per case: its own secret file and marker path, the TCP/UDP listeners
and decoy process its source names, the file the host keeps opening while it runs
(``{{WATCHED_FILE}}``), and the placeholder values the source is filled with.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import stat
import tempfile
import threading
from pathlib import Path
from typing import Self

from sandbox.policy import Mount, SandboxPolicy
from sandbox.probe.hoststate import FileMeta, Opener
from sandbox.probe.hostview import HostView
from sandbox.probe.listeners import Decoy, TcpListener, UdpListener

#: What a script does with the ``os`` module (``osm``) once it holds a real one.
PAYLOAD_OS = """\
for step in ("read", "env", "mkdir"):
    try:
        if step == "read":
            print(osm.read(osm.open({{SECRET_FILE}}, osm.O_RDONLY), 4096))
        elif step == "env":
            print(osm.environ.get({{SECRET_ENV}}))
        else:
            osm.mkdir({{MARKER}})
    except Exception as exc:
        print("blocked:", step, type(exc).__name__)
"""

#: What a script does with the real builtins (``bi``, a dict or the module).
PAYLOAD_BUILTINS = """\
imp = bi["__import__"] if type(bi) is dict else getattr(bi, "__import__")
osm = imp("os")
{{PAYLOAD_OS}}
"""

#: Every placeholder a corpus snippet may use.
PLACEHOLDERS = (
    "SECRET_ENV",
    "SECRET_FILE",
    "MARKER",
    "OUTSIDE_DIR",
    "MOUNT_RO",
    "MOUNT_RW",
    "MOUNT_RO_HOST",
    "MOUNT_RW_HOST",
    "OUTSIDE_LINK",
    "OUTSIDE_LINK_HOST",
    "OUTSIDE_DIR_LINK",
    "OUTSIDE_DIR_LINK_HOST",
    "WATCHED_FILE",
    "TOKEN",
    "NONCE",
    "PORT",
    "UDP_PORT",
    "HOST_PID",
    "DECOY_PID",
    "SHM_ID",
    "MSQ_ID",
    "IPC_KEY",
    "DEEP_PARENS",
    "DEEP_UNARY",
    "PAYLOAD_OS",
    "PAYLOAD_BUILTINS",
)
_PLACEHOLDER = re.compile(r"\{\{([A-Z_]+)\}\}")
_BLOCK = re.compile(r"^([ \t]*)\{\{(PAYLOAD_[A-Z]+)\}\}[ \t]*$", re.M)
_BLOCKS = {"PAYLOAD_OS": PAYLOAD_OS, "PAYLOAD_BUILTINS": PAYLOAD_BUILTINS}


def _tree(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every entry under ``root`` (symlinks not followed): size, mtime, link target."""
    found: dict[str, tuple[int, int, str]] = {}
    # Through directory descriptors: a case may build paths longer than PATH_MAX.
    for dirpath, dirnames, filenames, dir_fd in os.fwalk(root):
        for name in [*dirnames, *filenames]:
            st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
            target = os.readlink(name, dir_fd=dir_fd) if stat.S_ISLNK(st.st_mode) else ""
            found[os.path.join(dirpath, name)] = (st.st_size, st.st_mtime_ns, target)
    return found


class SuiteArena:
    """Temporary root, mounts and host secrets shared by every case of one run."""

    def __init__(
        self, policy: SandboxPolicy, *, writable: bool = True, victims: bool = False
    ) -> None:
        """``writable``: mount the writable directory (else only the read-only one);
        ``victims``: run a victim session beside each case (``victim.py``)."""
        self.victims = victims and writable
        self.root = Path(tempfile.mkdtemp(prefix="codeact-probe-"))
        self.ro, self.rw = self.root / "ro", self.root / "rw"
        self.outside = self.root / "outside"
        self.shared_secret = self.root / "shared-secret.txt"
        for directory in (self.ro, self.rw, self.outside, self.root / "cases"):
            directory.mkdir()
        self.shared_token = secrets.token_hex(16)
        self.shared_secret.write_text(f"SHARED={self.shared_token}\n")
        (self.ro / "data.txt").write_text("public data\n")
        (self.ro / "escape-link").symlink_to(self.shared_secret)
        (self.ro / "escape-dir").symlink_to(self.outside, target_is_directory=True)
        (self.rw / "escape-dir").symlink_to(self.outside, target_is_directory=True)
        self.env_name = f"CODEACT_PROBE_SECRET_{secrets.token_hex(4).upper()}"
        self.env_token = secrets.token_hex(16)
        taken = {m.sandbox_path for m in policy.mounts}
        self.ro_path = "/data" if "/data" not in taken else "/probe-data"
        self.rw_path = "/out" if "/out" not in taken else "/probe-out"
        self.rw_max_bytes = 1 << 20
        if not policy.layers.os:
            # Nothing makes a mount private without the OS layer: said so, for research.
            policy = policy.with_writes("direct")
        mounts = [Mount(sandbox_path=self.ro_path, host_path=str(self.ro), mode="ro")]
        if writable:
            mounts.append(
                Mount(
                    sandbox_path=self.rw_path,
                    host_path=str(self.rw),
                    mode="rw",
                    max_bytes=self.rw_max_bytes,
                )
            )
        self.policy = policy.with_mounts(*mounts)
        self._lock = threading.Lock()
        self._before = self._watched()
        self._saved_env = os.environ.get(self.env_name)
        os.environ[self.env_name] = self.env_token

    def _watched(self) -> dict[str, tuple[int, int, str]]:
        watched = {**_tree(self.ro), **_tree(self.outside)}
        watched[str(self.shared_secret)] = (0, 0, self.shared_secret.read_text())
        return watched

    def changes(self) -> list[str]:
        """Paths under the read-only mount or outside the mounts that changed."""
        with self._lock:
            try:
                now = self._watched()
            except OSError as exc:
                return [f"{exc.filename}: {exc.strerror}"]
            before, self._before = self._before, now
        return sorted(p for p in set(now) | set(before) if now.get(p) != before.get(p))

    def rw_bytes(self, nonce: str) -> int:
        """What files under the writable mount whose path names ``nonce`` hold on the
        disk: each its length, or its allocated blocks where those are more."""
        total = 0
        for dirpath, _, filenames, dir_fd in os.fwalk(self.rw):
            for name in filenames:
                if nonce in os.path.join(dirpath, name):
                    st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                    if stat.S_ISREG(st.st_mode):
                        total += max(st.st_size, st.st_blocks * 512)
        return total

    def rw_special_bits(self) -> list[str]:
        """Entries under the writable mount with a setuid, setgid or sticky bit."""
        found = []
        for dirpath, dirnames, filenames, dir_fd in os.fwalk(self.rw):
            for name in [*dirnames, *filenames]:
                st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                if not stat.S_ISLNK(st.st_mode) and st.st_mode & 0o7000:
                    found.append(f"{os.path.join(dirpath, name)} ({stat.filemode(st.st_mode)})")
        return found

    def close(self) -> None:
        """Restore the environment and remove the temporary root."""
        if self._saved_env is None:
            os.environ.pop(self.env_name, None)
        else:
            os.environ[self.env_name] = self._saved_env
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CaseArena:
    """One case's secret file, marker, and the listeners and decoy its source names."""

    def __init__(self, suite: SuiteArena, source: str) -> None:
        self.suite = suite
        self.nonce = f"probe{secrets.token_hex(6)}"
        self.token = secrets.token_hex(16)
        self.dir = suite.root / "cases" / self.nonce
        self.dir.mkdir()
        self.secret_token = secrets.token_hex(16)
        self.secret = self.dir / "secret.txt"
        self.secret.write_text(f"SECRET={self.secret_token}\n")
        self.secret_meta = FileMeta.of(self.secret)
        self.marker = self.dir / "marker"
        self.watched = self.dir / "watched.txt"
        self.watched.write_text("opened by the host while the case runs\n")
        self.opener = Opener(self.watched) if "{{WATCHED_FILE}}" in source else None
        self.tcp = TcpListener() if "{{PORT}}" in source else None
        self.udp = UdpListener() if "{{UDP_PORT}}" in source else None
        self.decoy = Decoy(f"probe-decoy-{self.nonce}") if "{{DECOY_PID}}" in source else None
        self.view = HostView(source, self.secret)

    def values(self) -> dict[str, str]:
        """Placeholder → Python literal."""
        s = self.suite
        literals: dict[str, object] = {
            "SECRET_ENV": s.env_name,
            "SECRET_FILE": str(self.secret),
            "MARKER": str(self.marker),
            "OUTSIDE_DIR": str(s.outside),
            "MOUNT_RO": s.ro_path,
            "MOUNT_RW": s.rw_path,
            "MOUNT_RO_HOST": str(s.ro),
            "MOUNT_RW_HOST": str(s.rw),
            "OUTSIDE_LINK": f"{s.ro_path}/escape-link",
            "OUTSIDE_LINK_HOST": str(s.ro / "escape-link"),
            "OUTSIDE_DIR_LINK": f"{s.rw_path}/escape-dir",
            "OUTSIDE_DIR_LINK_HOST": str(s.rw / "escape-dir"),
            "WATCHED_FILE": str(self.watched),
            "TOKEN": self.token,
            "NONCE": self.nonce,
        }
        values = {name: repr(value) for name, value in literals.items()}
        numbers = {
            "PORT": self.tcp.port if self.tcp else 0,
            "UDP_PORT": self.udp.port if self.udp else 0,
            "HOST_PID": os.getpid(),
            "DECOY_PID": self.decoy.pid if self.decoy else 0,
        }
        values.update({name: str(value) for name, value in numbers.items()})
        values.update(self.view.values())
        # Deeply nested source is generated, so that the corpus files stay parseable.
        values["DEEP_PARENS"] = "(" * 30_000 + "1" + ")" * 30_000
        values["DEEP_UNARY"] = "-" * 50_000 + "1"
        return values

    def contacted(self) -> list[str]:
        """Which of this case's listeners were reached."""
        hits = [("the TCP listener", self.tcp), ("the UDP listener", self.udp)]
        return [name for name, listener in hits if listener and listener.contacted]

    def secret_metadata_changed(self) -> bool:
        """True when the secret file's mode, owner, times or xattrs are not as created."""
        return FileMeta.of(self.secret) != self.secret_meta

    def open_failures(self) -> list[str]:
        """The host's failed or hung opens of the watched file (stops the opener)."""
        if self.opener is None:
            return []
        self.opener.close()
        return self.opener.failures

    @property
    def decoy_killed(self) -> bool:
        """True when the decoy died before the runner stopped it."""
        if self.decoy is None:
            return False
        self.decoy.settle()
        return self.decoy.killed

    def fill(self, source: str) -> str:
        """The source with payload blocks and placeholders substituted."""
        for _ in range(3):
            source = _BLOCK.sub(
                lambda m: "".join(m[1] + line for line in _BLOCKS[m[2]].splitlines(True)),
                source,
            )
        values = self.values()
        return _PLACEHOLDER.sub(lambda m: values.get(m[1], m[0]), source)

    def secrets(self) -> list[str]:
        """Tokens that must never come back from the sandbox."""
        suite = self.suite
        return [self.secret_token, suite.shared_token, suite.env_token, *self.view.secrets()]

    def close(self) -> None:
        """Stop the listeners and the decoy."""
        for resource in (self.tcp, self.udp, self.decoy, self.opener, self.view):
            if resource is not None:
                resource.close()
