"""A worker holds no privileges: ``no_new_privs`` and every capability set empty, root or
not, with and without the write staging (which uses capabilities in its own user
namespace before they are dropped).

Seen from inside (capget and prctl through ctypes, language layer off: Landlock hides
/proc from the worker) and from the host (/proc/<worker>/status).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from sandbox import FinalResult, Mount, Sandbox, SandboxPolicy
from tests.confinement import degraded

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="capabilities are Linux's")
POLICY = SandboxPolicy.preset("default").with_layers(language=False)

INSIDE = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)

class Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

class Data(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint32) for n in ("effective", "permitted", "inheritable")]

header, data = Header(0x20080522, 0), (Data * 2)()
status = libc.capget(ctypes.byref(header), data)
final_result({
    "capget": status,
    "sets": [getattr(d, n) for n in ("effective", "permitted", "inheritable") for d in data],
    "bounding": [c for c in range(64) if libc.prctl(23, c, 0, 0, 0) == 1],
    "ambient": [c for c in range(64) if libc.prctl(47, 1, c, 0, 0) == 1],
    "no_new_privs": libc.prctl(39, 0, 0, 0, 0),
})
"""
SETS = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")


def _status(pid: int) -> dict[str, str]:
    lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    return {k: v.strip() for k, _, v in (line.partition(":") for line in lines)}


def _observe(policy: SandboxPolicy) -> tuple[dict[str, str], dict[str, Any], dict[str, str]]:
    with Sandbox(policy, spares=0) as sandbox, sandbox.session() as session:
        execution = session.run(INSIDE)
        assert session.pid is not None
        host_view = _status(session.pid)
        report = dict(sandbox.confinement)
    assert isinstance(execution.output, FinalResult), execution.output
    inside = execution.output.value
    assert isinstance(inside, dict)
    return report, inside, host_view


def _check(report: dict[str, str], inside: dict[str, Any], host_view: dict[str, str]) -> None:
    assert report["privileges"].startswith("active"), report
    assert inside["capget"] == 0
    assert inside["sets"] == [0] * 6
    assert inside["ambient"] == []
    assert inside["no_new_privs"] == 1
    assert host_view["NoNewPrivs"] == "1"
    for name in ("CapInh", "CapPrm", "CapEff", "CapAmb"):
        assert int(host_view[name], 16) == 0, (name, host_view[name])
    if os.geteuid() == 0 or report["privileges"] == "active":
        # Root (or a user namespace) holds CAP_SETPCAP: the bounding set is emptied too.
        assert report["privileges"] == "active", report
        assert inside["bounding"] == []
        assert int(host_view["CapBnd"], 16) == 0, host_view["CapBnd"]


@pytest.mark.timeout(60)
def test_a_worker_holds_no_capability() -> None:
    _check(*_observe(POLICY))


@pytest.mark.timeout(60)
def test_a_staging_worker_holds_no_capability_and_still_stages(tmp_path: Path) -> None:
    (tmp_path / "kept.txt").write_text("copied into the staging tmpfs\n")
    policy = POLICY.with_mounts(Mount(sandbox_path="/out", host_path=str(tmp_path), mode="rw"))
    report, inside, host_view = _observe(policy)
    _check(report, inside, host_view)
    if not report["private_writes"].startswith("active"):
        degraded(f"private writes are degraded here: {report['private_writes']}")
    with Sandbox(policy, spares=0) as sandbox, sandbox.session() as session:
        run = session.run(
            f"text = open({str(tmp_path / 'kept.txt')!r}).read()\n"
            f"open({str(tmp_path / 'new.txt')!r}, 'w').write('staged')\n"
            "final_result(text)"
        )
    assert run.output == FinalResult(value="copied into the staging tmpfs\n")
    assert (tmp_path / "new.txt").read_text() == "staged"


@pytest.mark.timeout(60)
def test_root_is_left_without_privileges() -> None:
    if os.geteuid() != 0:
        pytest.skip("runs as root only (an unprivileged worker is covered above)")
    report, inside, host_view = _observe(POLICY)
    assert report["privileges"] == "active"
    assert all(int(host_view[name], 16) == 0 for name in SETS), host_view
    assert inside["bounding"] == []
