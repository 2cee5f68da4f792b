"""When a probe may run: never with both layers off; with the language layer off only
where the OS layer really confines files and system calls and the worker holds no
capability (unless the caller insists).

The RedCode cases delete, copy and overwrite files and open sockets; with the language
layer off nothing but the OS layer stands between them and the machine.
"""

from __future__ import annotations

from sandbox.errors import ProbeRefused
from sandbox.host.sandbox import Sandbox
from sandbox.policy import SandboxPolicy

#: Mechanisms that must be active before a plain-Python attack may run.
REQUIRED_WITHOUT_LANGUAGE = ("filesystem", "syscall_filter", "privileges")


def check_policy(policy: SandboxPolicy) -> None:
    """Refuse a policy with both layers off, before anything starts."""
    if not policy.layers.language and not policy.layers.os:
        raise ProbeRefused(
            "refusing to run attacks with both layers off: nothing would confine them"
        )


def check_machine(policy: SandboxPolicy, sandbox: Sandbox, *, allow_unconfined: bool) -> None:
    """Refuse a language-off run when the OS layer is degraded here."""
    check_policy(policy)
    if policy.layers.language or allow_unconfined:
        return
    with sandbox.session():
        pass
    weak = {
        name: sandbox.confinement.get(name, "unknown")
        for name in REQUIRED_WITHOUT_LANGUAGE
        if not sandbox.confinement.get(name, "").startswith("active")
    }
    if weak:
        found = ", ".join(f"{name}: {state}" for name, state in weak.items())
        raise ProbeRefused(
            f"refusing to run attacks as plain Python while the OS layer is incomplete "
            f"({found}); pass allow_unconfined=True to run them anyway"
        )
