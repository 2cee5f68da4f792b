"""Where the kernel refuses user namespaces, everything degrades cleanly and says why.

The refusal is real: the sandbox runs in a child user namespace whose
``user.max_user_namespaces`` is 0 (a per-namespace limit, so nothing outside changes),
once as that namespace's root and once as a root without capabilities (which, like any
unprivileged user, cannot create namespaces at all).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = f"""
import json, sys
sys.path.insert(0, {str(ROOT)!r})
from sandbox import RequirementNotMet, Sandbox, SandboxPolicy
policy = SandboxPolicy.preset("default").with_layers(language=False)
with Sandbox(policy, spares=0) as sb, sb.session() as session:
    ran = session.run("import os\\nprint(os.getuid())")
    report = dict(sb.confinement)
try:
    Sandbox(policy.with_require("ipc_namespace"), spares=0).start().close()
    refused = ""
except RequirementNotMet as exc:
    refused = str(exc)
print(json.dumps({{"report": report, "ran": ran.stdout, "refused": refused}}))
"""
LIMIT_ZERO = "echo 0 > /proc/sys/user/max_user_namespaces && exec \"$@\""
NO_CAPS = ["setpriv", "--securebits=+noroot,+noroot_locked", "--bounding-set=-all"]


def _run(prefix: list[str]) -> dict[str, object]:
    for tool in ("unshare", *prefix[:1]):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed")
    if subprocess.run(["unshare", "-U", "-r", "true"], capture_output=True).returncode:
        pytest.skip("this machine allows no user namespace to run the test in")
    command = ["unshare", "-U", "-r", "sh", "-c", LIMIT_ZERO, "sh", *prefix]
    done = subprocess.run(
        [*command, sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    value = json.loads(done.stdout.strip().splitlines()[-1])
    assert isinstance(value, dict)
    return value


def test_root_without_user_namespaces_keeps_the_other_namespaces() -> None:
    result = _run([])
    report = result["report"]
    assert isinstance(report, dict)
    assert report["user_namespace"].startswith("degraded: user namespace refused")
    assert "max_user_namespaces" in report["user_namespace"]
    for name in ("pid_namespace", "ipc_namespace", "network_namespace", "minimal_root"):
        assert report[name].startswith("active"), report
    assert result["ran"] == "0\n"  # root's uid: no namespace to map it in
    assert result["refused"] == ""


def test_without_privileges_every_namespace_is_degraded_and_required_ones_refused() -> None:
    result = _run(NO_CAPS)
    report = result["report"]
    assert isinstance(report, dict)
    names = ("user_namespace", "pid_namespace", "ipc_namespace", "network_namespace")
    for name in (*names, "uts_namespace", "mount_namespace", "minimal_root"):
        assert report[name].startswith("degraded: user namespace refused"), report
    assert report["syscall_filter"] == "active" and report["filesystem"].startswith("active")
    assert result["ran"] == "0\n"
    assert "requires ipc_namespace, not available" in str(result["refused"])
