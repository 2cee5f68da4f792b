"""docs/cookbook/approvals.md: the app served by the page's command, driven by the page's
curl commands, then the store attacked (an altered checkpoint, another digest, a replayed
decision, a late one)."""

from __future__ import annotations

import json
import os
import shlex
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.docs.pages import commands, titled
from tests.docs.servers import free_port, serving

PAGE = "cookbook/approvals.md"
COVERS = {PAGE: ["approvals.py"]}
BIN = Path(sys.executable).parent

pytestmark = pytest.mark.timeout(240)


def _line(starting: str, containing: str = "") -> str:
    (line,) = [c for c in commands(PAGE) if c.startswith(starting) and containing in c]
    return line


def _curl(line: str, port: int, **fill: str) -> dict[str, Any]:
    for name, value in fill.items():
        line = line.replace(name, value)
    argv = shlex.split(line.replace("8000", str(port)))
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    reply: dict[str, Any] = json.loads(done.stdout)
    return reply


def test_the_recipe(tmp_path: Path) -> None:
    (tmp_path / "approvals.py").write_text(titled(PAGE, "approvals.py"))
    port = free_port()
    server = _line("CHECKPOINT_KEY=").replace("8000", str(port))
    path = {"PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    with serving(["bash", "-c", f"exec env {server}"], port, cwd=tmp_path, env=path):
        the_page_approves_and_refuses(port)
        the_store_cannot_change_what_runs(port, tmp_path / "pending.db")


def _pause(port: int) -> tuple[dict[str, Any], dict[str, str]]:
    pending = _curl(_line("curl", "/runs -d"), port)
    assert pending["status"] == "pending", pending
    (action,) = pending["actions"]
    assert (action["tool"], action["arguments"]) == (
        "refund",
        {"order_id": "A-1001", "amount": 42.5},
    )
    return pending, {
        "RUN_ID": pending["run_id"],
        "ACTION_ID": action["id"],
        "DIGEST": action["digest"],
    }


def the_page_approves_and_refuses(port: int) -> None:
    _, ids = _pause(port)
    approve = _line("curl", '"approve": true')
    assert _curl(approve, port, **ids) == {"status": "completed", "result": "Refunded."}
    again = httpx.post(
        f"http://127.0.0.1:{port}/runs/{ids['RUN_ID']}/decisions",
        json={"action_id": ids["ACTION_ID"], "approve": True, "digest": ids["DIGEST"]},
    )
    assert again.status_code == 404, again.text  # a decision is taken once
    _, ids = _pause(port)
    refused = _curl(_line("curl", '"approve": false'), port, **ids)
    assert refused == {"status": "completed", "result": "Not refunded: over 40 needs a manager"}


def _decide(port: int, ids: dict[str, str], digest: str) -> httpx.Response:
    body = {"action_id": ids["ACTION_ID"], "approve": True, "digest": digest}
    url = f"http://127.0.0.1:{port}/runs/{ids['RUN_ID']}/decisions"
    return httpx.post(url, json=body, timeout=60)


def the_store_cannot_change_what_runs(port: int, database: Path) -> None:
    with sqlite3.connect(database) as store:
        # The amount raised in the stored checkpoint, after the person saw 42.5.
        _, ids = _pause(port)
        store.execute("UPDATE pending SET checkpoint = replace(checkpoint, '42.5', '4250.0')")
        store.commit()
        altered = _decide(port, ids, ids["DIGEST"])
        assert altered.status_code == 409 and "signature" in altered.text, altered.text
        # An approval of other content than the pending action's.
        _, ids = _pause(port)
        other = _decide(port, ids, "0" * 64)
        assert other.status_code == 409 and "digest" in other.text, other.text
        # A decision that comes after DECISION_TTL_S.
        _, ids = _pause(port)
        store.execute("UPDATE pending SET stored = 0")
        store.commit()
        late = _decide(port, ids, ids["DIGEST"])
        assert late.status_code == 410, late.text
        assert store.execute("SELECT count(*) FROM pending").fetchone() == (0,)
