"""The worker supply a Sandbox hands its sessions: slots, closing, what stays readable."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sandbox import Sandbox, SandboxPolicy

POLICY = SandboxPolicy.preset("default")
HOST = Path(__file__).resolve().parents[2] / "sandbox" / "host"


@pytest.mark.parametrize("module", ["session.py", "supply.py"])
def test_sessions_and_their_supply_never_import_the_sandbox(module: str) -> None:
    # Not even for typing: a Session knows its supply only.
    tree = ast.parse((HOST / module).read_text())
    imported = {
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    }
    assert "sandbox.host.sandbox" not in imported
    assert not any(name.endswith(".sandbox") and "host" in name for name in imported if name)


@pytest.mark.parametrize("module", ["session.py", "aio.py", "supply.py"])
def test_sessions_touch_no_other_objects_private_members(module: str) -> None:
    tree = ast.parse((HOST / module).read_text())
    reached = [
        ast.unparse(node)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr.startswith("_")
        and not node.attr.startswith("__")
        and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    ]
    assert reached == []


def test_a_session_closed_twice_gives_its_slot_back_once() -> None:
    with Sandbox(POLICY, spares=0, max_workers=2, admission_timeout_s=0.5) as sb:
        first, second = sb.session(), sb.session()
        first.close()
        first.close()
        figures = sb.health().admission
        assert figures is not None and figures.admitted == 1
        second.close()
        figures = sb.health().admission
        assert figures is not None and figures.admitted == 0


def test_closing_the_sandbox_closes_its_sessions_and_keeps_its_reports() -> None:
    sb = Sandbox(POLICY, spares=0).start()
    session = sb.session()
    assert session.run("final_result(1)").ok
    confinement = sb.confinement
    sb.close()
    assert session.pid is None and sb.processes() == set()
    # Read after the close without starting anything again.
    assert sb.confinement == confinement
    assert sb.processes() == set() and not sb.health().running
    assert sb.health().sessions_served == 1
