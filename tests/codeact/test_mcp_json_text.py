"""An MCP tool whose dict reaches the client as JSON text gives the script that dict."""

from __future__ import annotations

import sys

import pytest

from codeact import Agent
from codeact.mcp import MCPServerStdio
from codeact.models import ScriptedModel
from tests.codeact.mcp_helpers import SERVERS

pytestmark = pytest.mark.timeout(120)

UNTYPED = [sys.executable, str(SERVERS / "untyped.py")]
FENCE = "`" * 3


def test_json_text_becomes_data_and_other_text_stays_text() -> None:
    script = (
        "q = quote('Rome')\n"
        "final_result({'total': q['nightly'] * 2, 'rooms': q['rooms'], "
        "'code': code(), 'count': count()})"
    )
    agent = Agent(
        "booker",
        ScriptedModel([f"{FENCE}python\n{script}\n{FENCE}"]),
        mcp_servers=[MCPServerStdio(UNTYPED)],
    )
    out = agent.run_sync("Two nights in Rome?")
    # "007" is not JSON and "42" is not an object or array: both stay the tool's text.
    assert out.value == {
        "total": 241.0,
        "rooms": ["single", "double"],
        "code": "007",
        "count": "42",
    }
