"""`codeact bench run` over real HTTP: the loopback OpenAI-compatible fake with injected
429s, 8 samples in flight, a run killed part way and resumed by running it again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from codeact.bench import SampleRecord
from codeact.bench.fake_server import FakeServer, every, serving
from codeact.bench.loading import load_suite
from codeact.cli import main

ROOT = Path(__file__).resolve().parents[2]


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text().splitlines()
    except FileNotFoundError:
        return []


def _stop_when_logged(argv: list[str], samples: Path, count: int, sig: int) -> tuple[int, int]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 90
    try:
        while len(_lines(samples)) < count and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        children = psutil.Process(proc.pid).children(recursive=True)
        proc.send_signal(sig)
        status = proc.wait(30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # The sandbox processes of the stopped run go with it.
    _gone, alive = psutil.wait_procs(children, timeout=10)
    assert not alive, alive
    return len(_lines(samples)), status


@pytest.mark.timeout(240)
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["killed", "ctrl-c"])
def test_a_stopped_run_resumes_with_every_sample_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], sig: int
) -> None:
    suite = load_suite("m3tooleval")
    log = tmp_path / "log"
    with serving(suite, latency_s=0.05, rate_limit=every(9), retry_after_s=0.05) as server:
        model = f"openai-compatible:golden@{server.url}"
        args = ["bench", "run", "m3tooleval", "--model", model, "--log-dir", str(log)]
        args += ["--concurrency", "8", "--display", "none"]
        logged, status = _stop_when_logged(
            [sys.executable, "-m", "codeact.cli", *args], log / "samples.jsonl", 12, sig
        )
        assert 12 <= logged < 82, "the run must be stopped part way"
        assert status == (130 if sig == signal.SIGINT else -signal.SIGKILL)
        before = {
            r.id: r
            for r in map(SampleRecord.model_validate_json, _lines(log / "samples.jsonl"))
            if r
        }
        assert main([*args, "--json"]) == 0
        refused = server.refused
        seeds = server.seeds
    summary = json.loads(capsys.readouterr().out)
    assert (summary["samples"], summary["passed"]) == (82, 82)
    records = [SampleRecord.model_validate_json(line) for line in _lines(log / "samples.jsonl")]
    assert len(records) == 82 and len({r.id for r in records}) == 82
    assert sorted(r.task for r in records) == sorted(t.id for t in suite.tasks)
    # The samples finished before the kill were kept as they were, not run again.
    assert all(before[r.id] == r for r in records if r.id in before)
    retried = [r for r in records if r.retries]
    assert retried and all(
        x.code == "rate_limited" and x.retry_after == 0.05 for r in retried for x in r.retries
    )
    assert refused > 0 and summary["usage"]["input_tokens"] > 0
    # Each sample asked for its own seed, the same on every turn and after the resume.
    assert {task: {r.seed} for r in records for task in [r.task]} == seeds


def test_fake_server_answers_like_chat_completions() -> None:
    import httpx

    suite = load_suite("m3tooleval")
    task = suite.tasks[0]
    with FakeServer(suite, rate_limit=lambda n: n == 2, retry_after_s=1.5) as server:
        url = f"{server.url}/chat/completions"
        body = {"model": "golden", "messages": [{"role": "user", "content": f"Task: {task.input}"}]}
        first = httpx.post(url, json=body).json()
        assert first["choices"][0]["message"]["content"] == suite.golden_replies(task)[0]
        refused = httpx.post(url, json=body)
        assert refused.status_code == 429 and refused.headers["retry-after"] == "1.5"
        unknown = httpx.post(url, json={"messages": [{"role": "user", "content": "hello"}]})
        assert unknown.status_code == 400 and "no task" in unknown.json()["error"]["message"]
