"""The OS layer alone, in every configuration: the OS-layer corpus runs as plain Python
under ``default``, ``data`` and ``allow_modules("*")``, with and without a writable
mount, and with a victim session of the same sandbox on the same mount beside each
attack (an app serving many users). Run as ``nobody`` too: ``test_unprivileged.py``.

Nothing may escape, and the victim's runs, budget, file listing and results stay its
own (``sandbox/probe/victim.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox import Mount, Sandbox, SandboxPolicy
from sandbox.probe.corpus import load_corpus
from sandbox.probe.escapes import run_escapes
from sandbox.probe.victim import Victim

#: The categories that attack the operating system rather than the language layer.
OS_CATEGORIES = ("os", "filesystem", "symlink", "channel", "procfs", "processes", "environment")


def _policy(preset: str) -> SandboxPolicy:
    if preset == 'allow_modules("*")':
        return SandboxPolicy.preset("default").allow_modules("*").with_layers(language=False)
    return SandboxPolicy.preset(preset).with_layers(language=False)


@pytest.mark.timeout(900)
@pytest.mark.parametrize("writable", [True, False], ids=["rw mount", "no rw mount"])
@pytest.mark.parametrize("preset", ["default", "data", 'allow_modules("*")'])
def test_the_os_layer_alone_holds(full_os_layer: None, preset: str, writable: bool) -> None:
    cases = [c for c in load_corpus() if c.category in OS_CATEGORIES]
    results = run_escapes(_policy(preset), cases, victims=writable, writable=writable)
    escaped = [f"{r.id}: {r.detail}" for r in results if r.outcome == "escaped"]
    assert not escaped
    assert len(results) == len(cases)


@pytest.mark.timeout(120)
def test_the_victim_sees_what_direct_writes_let_through(tmp_path: Path) -> None:
    # Outside the boundary on purpose: the victim's listing shows the attacker's file.
    mount = Mount(sandbox_path="/out", host_path=str(tmp_path), mode="rw")
    policy = SandboxPolicy.preset("default").with_mounts(mount).with_writes("direct")
    with Sandbox(policy, spares=0) as sandbox:
        victim = Victim(sandbox, "/out", "/out")
        victim.start()
        with sandbox.session() as attacker:
            assert attacker.run("open('/out/attacker.txt', 'w').write('x')").ok
        effects = victim.finish("")
    assert any("the victim's files listed another's" in effect for effect in effects), effects
