"""docs/cookbook/local-model.md: the program and the commands, against loopback servers
(a streaming stand-in for a local model server, and the project's fake for the suite)."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.openai_loopback import loopback
from tests.docs.pages import commands, titled
from tests.docs.servers import free_port, serving

PAGE = "cookbook/local-model.md"
COVERS = {PAGE: ["local_agent.py"]}
BIN = Path(sys.executable).parent
FENCE = "`" * 3
REPLY = (
    "I'll subtract the dates.\n"
    f"{FENCE}python\nfrom datetime import date\n"
    f"final_result((date(2024, 12, 25) - date(2024, 3, 1)).days)\n{FENCE}"
)
LEAK = "sk-the-openai-key-stays-home"

pytestmark = pytest.mark.timeout(180)


def _line(containing: str) -> str:
    (line,) = [c for c in commands(PAGE) if containing in c]
    return line


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=150, cwd=cwd,
        env={"PATH": str(BIN), "HOME": str(cwd), "OPENAI_API_KEY": LEAK, **env},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return done.stdout


def test_the_program_streams_from_the_server(tmp_path: Path) -> None:
    (tmp_path / "local_agent.py").write_text(titled(PAGE, "local_agent.py"))
    words = shlex.split(_line("python local_agent.py"))
    env = dict(word.split("=", 1) for word in words if "=" in word)
    with loopback([REPLY]) as server:
        env["LOCAL_MODEL_URL"] = server.url
        out = _run([sys.executable, "local_agent.py"], tmp_path, env)
    assert out.startswith("I'll subtract the dates.\n") and "\nanswer: 299 |" in out, out
    ((headers, body),) = server.requests
    assert body["model"] == "qwen2.5-coder:7b" and body["stream"] is True
    assert body["max_tokens"] == 1024 and body["temperature"] == 0
    assert LEAK not in json.dumps(headers), headers


def test_codeact_run_names_the_server_in_the_model_string(tmp_path: Path) -> None:
    argv = shlex.split(_line("codeact run"))
    with loopback([REPLY]) as server:
        argv = [a.replace("http://127.0.0.1:11434/v1", server.url) for a in argv]
        out = _run([str(BIN / "codeact"), *argv[1:]], tmp_path, {})
    assert "299" in out, out
    assert LEAK not in json.dumps([headers for headers, _ in server.requests])


def test_a_suite_runs_against_the_projects_fake(tmp_path: Path) -> None:
    port = free_port()
    fake = [sys.executable, "-m", "codeact.bench.fake_server", "m3tooleval", "--port", str(port)]
    argv = shlex.split(_line("codeact bench run"))
    argv = [
        a.replace(":8000", f":{port}").replace("logs/local", str(tmp_path / "log")) for a in argv
    ]
    with serving(fake, port, cwd=tmp_path):
        _run([str(BIN / "codeact"), *argv[1:]], tmp_path, {})
    samples = (tmp_path / "log" / "samples.jsonl").read_text().splitlines()
    assert [json.loads(s)["status"] for s in samples] == ["passed"] * 5
