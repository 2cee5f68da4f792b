"""The loopback fake streams as OpenAI's API does when asked: server-sent chunks, a usage
chunk on ``stream_options.include_usage``, ``[DONE]`` — so ``agent.stream()``,
``codeact run`` and ``codeact bench run`` all run against it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from codeact import Agent, Completed, ModelDelta
from codeact.bench import Suite
from codeact.bench.fake_server import FakeServer
from codeact.models import OpenAIChatModel

pytestmark = pytest.mark.timeout(120)

#: A one-task suite, as a module ``codeact bench run letters:SUITE`` imports.
SUITE_MODULE = """
from codeact.bench import BenchTask, Suite

FENCE = "`" * 3
QUESTION = "How many letters has the word 'streaming'?"
REPLY = f"Counting them.\\n{FENCE}python\\nfinal_result(len('streaming'))\\n{FENCE}"
SUITE = Suite(
    name="letters",
    tasks=[BenchTask(id="letters-1", input=QUESTION, expected=9)],
    golden=lambda task: [REPLY],
)
"""
_module: dict[str, Any] = {}
exec(SUITE_MODULE, _module)
SUITE: Suite = _module["SUITE"]
QUESTION: str = _module["QUESTION"]
REPLY: str = _module["REPLY"]
BIN = Path(sys.executable).parent


def _events(response: httpx.Response) -> list[str]:
    lines = [line for line in response.iter_lines() if line]
    assert all(line.startswith("data: ") for line in lines), lines
    return [line.removeprefix("data: ") for line in lines]


def _ask(client: httpx.Client, url: str, **extra: object) -> list[str]:
    body = {"model": "golden", "messages": [{"role": "user", "content": QUESTION}], **extra}
    with client.stream("POST", f"{url}/chat/completions", json=body) as response:
        assert response.status_code == 200
        assert response.headers["content-type"] == "text/event-stream"
        return _events(response)


def test_a_streamed_answer_is_chunks_then_usage_then_done() -> None:
    with FakeServer(SUITE, chunk_chars=5) as server, httpx.Client(timeout=30) as client:
        events = _ask(client, server.url, stream=True, stream_options={"include_usage": True})
        bare = _ask(client, server.url, stream=True)  # the same connection, kept alive
        whole = client.post(
            f"{server.url}/chat/completions",
            json={"messages": [{"role": "user", "content": QUESTION}]},
        ).json()
    assert events[-1] == "[DONE]" and bare[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert {c["object"] for c in chunks} == {"chat.completion.chunk"}
    pieces = [c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"]]
    assert "".join(pieces) == REPLY and max(len(p) for p in pieces) == 5
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    finish = [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]]
    assert finish[-1] == "stop" and set(finish[:-1]) == {None}
    # The usage chunk comes last, without choices, and says what the whole answer says.
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"] == whole["usage"]
    assert all("usage" not in json.loads(e) for e in bare[:-1])  # not asked for: none


def test_agent_stream_reads_the_tokens_and_the_usage() -> None:
    async def run(url: str) -> list[object]:
        model = OpenAIChatModel("golden", provider="openai-compatible", base_url=url)
        return [event async for event in Agent("letters", model).stream(QUESTION)]

    with FakeServer(SUITE, chunk_chars=4, record=True) as server:
        events = asyncio.run(run(server.url))
    deltas = [e.text for e in events if isinstance(e, ModelDelta)]
    assert len(deltas) > 5 and "".join(deltas) == REPLY
    last = events[-1]
    assert isinstance(last, Completed) and last.result == 9, last
    assert last.usage.input_tokens > 0 and last.usage.output_tokens == len(REPLY) // 4
    (request,) = server.received
    assert request.body["stream"] is True
    assert request.body["stream_options"] == {"include_usage": True}
    assert request.headers["content-type"] == "application/json"


def _codeact(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BIN / "codeact"), *argv], capture_output=True, text=True, timeout=100, cwd=cwd
    )


def test_codeact_run_streams_from_the_fake(tmp_path: Path) -> None:
    with FakeServer(SUITE, chunk_chars=3) as server:
        done = _codeact("run", QUESTION, "--model", f"openai-compatible:golden@{server.url}",
                        "--json", cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    output = json.loads(done.stdout)
    assert output["value"] == 9 and output["failure"] is None
    assert output["usage"]["input_tokens"] > 0


def test_codeact_bench_run_against_the_fake(tmp_path: Path) -> None:
    (tmp_path / "letters.py").write_text(SUITE_MODULE)
    with FakeServer(SUITE) as server:
        done = subprocess.run(
            [str(BIN / "codeact"), "bench", "run", "letters:SUITE", "--model",
             f"openai-compatible:golden@{server.url}", "--log-dir", "log", "--display", "none"],
            capture_output=True, text=True, timeout=100, cwd=tmp_path,
            env={"PATH": str(BIN), "HOME": str(tmp_path),
                 "PYTHONPATH": str(tmp_path)},
        )  # fmt: skip
        requests = server.requests
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (sample,) = (tmp_path / "log" / "samples.jsonl").read_text().splitlines()
    assert json.loads(sample)["status"] == "passed" and requests == 1
