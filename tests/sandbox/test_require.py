"""``require``: a policy names mechanisms that must be active, and a sandbox refuses to
start where one is not. Unavailability is simulated by making the zygote's ``unshare``
refuse a namespace the way a kernel does (EPERM), before it starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import PolicyError, RequirementNotMet, Sandbox, SandboxPolicy
from sandbox.host import workers as process
from sandbox.probe.diff import diff_policies
from sandbox.worker.confine import namespaces

DEFAULT = SandboxPolicy.preset("default")

#: The zygote's boot line, with ``unshare`` refusing new IPC namespaces.
BOOT_REFUSING_IPC = """
import sys
sys.path.insert(0, {root!r})
import errno
from sandbox.worker.confine import namespaces
real = namespaces._unshare
def refuse_ipc(flags):
    if flags & 0x08000000:
        raise OSError(errno.EPERM, "unshare: Operation not permitted")
    real(flags)
namespaces._unshare = refuse_ipc
from sandbox.worker.zygote import main
main({fd})
"""


def test_require_is_validated_and_part_of_the_digest(tmp_path: Path) -> None:
    path = tmp_path / "p.toml"
    path.write_text('extends = "default"\nrequire = ["pid_namespace", "ipc_namespace"]\n')
    loaded = SandboxPolicy.from_file(path)
    assert loaded.require == ("ipc_namespace", "pid_namespace")
    assert loaded.digest() != DEFAULT.digest()
    assert loaded == DEFAULT.with_require("pid_namespace", "ipc_namespace")
    path.write_text('extends = "default"\nrequire = ["ipc_namespaces"]\n')
    with pytest.raises(PolicyError, match=r"require: unknown mechanism\(s\) 'ipc_namespaces'"):
        SandboxPolicy.from_file(path)
    with pytest.raises(PolicyError, match=r"layers\.os = false"):
        DEFAULT.with_layers(os=False).with_require("minimal_root")


def test_a_diff_names_what_a_policy_requires() -> None:
    changes = diff_policies(DEFAULT, DEFAULT.with_require("minimal_root", "pid_namespace"))
    assert [c.path for c in changes] == ["require"]
    assert "now requires minimal_root, pid_namespace" in changes[0].meaning
    back = diff_policies(DEFAULT.with_require("minimal_root"), DEFAULT)
    assert "no longer requires minimal_root" in back[0].meaning


def test_a_sandbox_refuses_to_start_without_a_required_namespace(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(process, "_BOOT", BOOT_REFUSING_IPC)
    # Without the requirement the same machine runs, reporting the gap.
    with Sandbox(DEFAULT, spares=0) as sb, sb.session() as session:
        assert session.run("final_result(1)").error_code is None
        state = sb.confinement["ipc_namespace"]
        assert state.startswith("degraded: ") and "Operation not permitted" in state, state
    sandbox = Sandbox(DEFAULT.with_require("ipc_namespace"), spares=0)
    with pytest.raises(RequirementNotMet, match="requires ipc_namespace, not available") as err:
        sandbox.start()
    assert "Operation not permitted" in str(err.value)
    assert sandbox.processes() == set()  # nothing left running


def test_required_mechanisms_that_are_active_let_the_sandbox_start() -> None:
    with Sandbox(DEFAULT, spares=0) as probe:
        states = probe.confinement
    active = [name for name in namespaces.MECHANISMS if states[name].startswith("active")]
    if not active:
        pytest.skip(f"no namespace is available on this machine: {states}")
    with Sandbox(DEFAULT.with_require(*active), spares=1) as sb, sb.session() as session:
        assert session.run("final_result(2)").output.value == 2  # type: ignore[union-attr]
