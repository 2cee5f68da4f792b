"""``codeact mcp serve``: the sandbox answering a real MCP client, over stdio and HTTP."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from codeact.mcp.serve import SandboxService, SessionLimitReached, build_server
from sandbox import SandboxPolicy
from tests.codeact.mcp_helpers import free_port, http_server

pytestmark = pytest.mark.timeout(120)
ROOT = Path(__file__).resolve().parents[2]
SERVE = [sys.executable, "-m", "codeact.cli", "mcp", "serve"]


async def _exercise(client: Any) -> None:
    names = {t.name for t in (await client.list_tools()).tools}
    assert names == {"run_python", "close_session"}
    first = await client.call_tool("run_python", {"code": "x = 21\nfinal_result(x * 2)",
                                                  "session_id": "a"})
    assert not first.is_error
    assert first.structured_content["output"] == {"type": "final_result", "value": 42}
    assert first.structured_content["error_code"] is None
    again = await client.call_tool("run_python", {"code": "print('hi')\nobservation(x)",
                                                  "session_id": "a"})
    assert again.structured_content["output"] == {"type": "observation", "value": 21}
    assert again.structured_content["stdout"] == "hi\n"
    fresh = await client.call_tool("run_python", {"code": "observation(x)"})
    assert fresh.structured_content["error_code"] == "runtime_error"
    escape = await client.call_tool("run_python", {"code": "import os\nos.system('id')"})
    assert escape.structured_content["error_code"] == "policy_violation"
    closed = await client.call_tool("close_session", {"session_id": "a"})
    assert closed.structured_content == {"result": True}
    gone = await client.call_tool("run_python", {"code": "observation(x)", "session_id": "a"})
    assert gone.structured_content["error_code"] == "runtime_error"


def test_stdio_client() -> None:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    async def main() -> None:
        params = StdioServerParameters(command=SERVE[0], args=SERVE[1:], cwd=str(ROOT))
        async with Client(params) as client:
            await _exercise(client)

    asyncio.run(main())


def test_http_client() -> None:
    from mcp import Client

    port = free_port()
    with http_server([*SERVE, "--transport", "http", "--port", str(port)], port) as url:

        async def main() -> None:
            async with Client(url) as client:
                await _exercise(client)

        asyncio.run(main())


def test_sessions_are_bounded_and_expire() -> None:
    async def main() -> None:
        service = SandboxService(SandboxPolicy.preset("default"), max_sessions=2, idle_s=0.4)
        async with service.running():
            await service.run_python("a = 1", "one")
            await service.run_python("b = 2", "two")
            with pytest.raises(SessionLimitReached, match="at most 2 sessions"):
                await service.run_python("c = 3", "three")
            for _ in range(100):  # the reaper runs every idle_s / 4
                if not service.session_ids():
                    break
                await asyncio.sleep(0.1)
            assert service.session_ids() == []
            result = await service.run_python("observation(3)", "three")
            assert result["output"] == {"type": "observation", "value": 3}

    asyncio.run(main())


def test_bad_usage_exits_2() -> None:
    result = subprocess.run(
        [*SERVE, "--policy", "no-such-policy"], cwd=ROOT, capture_output=True, text=True,
        timeout=60, stdin=subprocess.DEVNULL,
    )
    assert result.returncode == 2
    assert "no-such-policy" in result.stderr


def test_a_refusal_reaches_the_client_as_the_tools_error_with_its_message(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from mcp import Client

    async def main() -> list[str]:
        service = SandboxService(SandboxPolicy.preset("default"), max_sessions=1)
        async with service.running():
            async with Client(build_server(service)) as client:
                first = await client.call_tool("run_python", {"code": "a = 1", "session_id": "1"})
                assert not first.is_error
                texts = []
                for arguments in ({"code": "b = 2", "session_id": "2"},
                                  {"code": "c = 3", "session_id": ""}):  # fmt: skip
                    refused = await client.call_tool("run_python", arguments)
                    assert refused.is_error
                    texts.append(refused.content[0].text)  # type: ignore[union-attr]
                return texts

    with caplog.at_level(logging.INFO):
        limit, empty = asyncio.run(main())
    assert "this server keeps at most 1 sessions" in limit, limit
    assert "session_id must be a non-empty string" in empty, empty
    # Expected refusals: no traceback logged on the server's side.
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records]


def test_serve_without_the_mcp_extra_prints_the_install_hint(tmp_path: Path) -> None:
    stub = tmp_path / "mcp"  # an environment where the SDK is not installed
    stub.mkdir()
    (stub / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'mcp'\")\n")
    result = subprocess.run(
        SERVE, cwd=ROOT, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"},
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert "pip install 'codeact[mcp]'" in result.stderr
    assert "Traceback" not in result.stderr
