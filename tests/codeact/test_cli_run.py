"""``codeact run``: the README's agent example, JSON output, exit statuses."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "codeact.cli"]
TASK = (
    "Find the cheapest flight from E to B on 2023-11-10 and a hotel in B rated at least "
    "4.5 for 2 nights. What is the total?"
)
EXAMPLE = [
    "run",
    TASK,
    "--model",
    "scripted:examples/trip_replies.json",
    "--tools",
    "examples.travel_tools:TOOLS",
]


def codeact(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codeact.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.timeout(60)
def test_readme_agent_run_shows_each_step() -> None:
    result = codeact(*EXAMPLE)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.index("step 1") < out.index("step 2") < out.index("step 3") < out.index("step 4")
    assert "KeyError: 'price'" in out  # the mistake the error feedback fixes
    assert "Fly Budget for 189.5 and stay 2 nights at Grand B: 669.5 in total." in out
    assert "thinking:" in out and "4 requests" in out


@pytest.mark.timeout(60)
def test_json_prints_the_agent_output() -> None:
    result = codeact(*EXAMPLE, "--json")
    assert result.returncode == 0, result.stderr
    output = json.loads(result.stdout)
    assert output["value"]["total"] == 669.5
    assert output["usage"]["requests"] == 4 and output["steps"] == 4
    assert [c["name"] for c in output["tool_calls"]] == ["find_flights", "find_hotels"]


def scripted(tmp_path: Path, *codes: str) -> str:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps([f"```python\n{code}\n```" for code in codes]))
    return f"scripted:{replies}"


def test_approve_without_a_terminal_is_bad_usage(tmp_path: Path) -> None:
    result = codeact("run", "t", "--model", scripted(tmp_path, "final_result(1)"), "--approve")
    assert result.returncode == 2 and result.stdout == ""
    assert "--approve needs a terminal" in result.stderr and "--approve-file" in result.stderr


@pytest.mark.timeout(60)
def test_approve_file_decides_and_the_transcript_shows_refusals(tmp_path: Path) -> None:
    model = scripted(tmp_path, "final_result(1)", "final_result(2)")
    decisions = tmp_path / "decisions.txt"
    decisions.write_text("not before lunch\ny\n")
    result = codeact("run", "t", "--model", model, "--approve-file", str(decisions))
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "✗ script refused: not before lunch" in out
    assert out.index("refused") < out.index("✓ script approved") < out.index("final result")
    assert "══ final result ══\n2" in out


@pytest.mark.timeout(60)
def test_approve_file_from_standard_input_and_running_out_of_decisions(tmp_path: Path) -> None:
    model = scripted(tmp_path, "final_result(1)", "final_result(2)")
    result = subprocess.run(
        [*CLI, "run", "t", "--model", model, "--max-steps", "2", "--approve-file", "-", "--json"],
        input="no\n",
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert result.returncode == 1
    output = json.loads(result.stdout)
    assert output["failure"]["code"] == "max_steps_exceeded"
    texts = [m["content"] for m in output["messages"] if isinstance(m["content"], str)]
    assert any("Reason: no" in t for t in texts)
    assert any("no decision left in standard input" in t for t in texts)


def test_a_tools_module_that_fails_to_import_is_bad_usage(tmp_path: Path) -> None:
    (tmp_path / "broken_tools.py").write_text("raise RuntimeError('the database is down')\n")
    result = subprocess.run(
        [*CLI, "run", "t", "--model", scripted(tmp_path, "1"), "--tools", "broken_tools:find"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=60,
    )
    assert result.returncode == 2
    assert "cannot import 'broken_tools': RuntimeError: the database is down" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.timeout(60)
def test_a_closed_output_pipe_ends_the_run_quietly() -> None:
    read_end, write_end = os.pipe()
    os.close(read_end)  # as `| head` does once it has its lines
    try:
        result = subprocess.run(
            [sys.executable, "-m", "codeact.cli", *EXAMPLE],
            stdout=write_end,
            stderr=subprocess.PIPE,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
    finally:
        os.close(write_end)
    assert result.returncode == 141
    assert "Traceback" not in result.stderr and "BrokenPipeError" not in result.stderr


@pytest.mark.timeout(60)
def test_head_ends_quietly() -> None:
    command = " ".join([sys.executable, "-m", "codeact.cli", *(f"'{a}'" for a in EXAMPLE)])
    result = subprocess.run(
        f"{command} | head -3", shell=True, capture_output=True, text=True, cwd=ROOT, timeout=60
    )
    assert len(result.stdout.splitlines()) == 3
    assert "Traceback" not in result.stderr and "BrokenPipeError" not in result.stderr


def test_version() -> None:
    import codeact as package

    result = codeact("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"codeact {package.__version__}"


@pytest.mark.timeout(60)
def test_an_internal_error_exits_1(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from codeact.cli import main

    def broken(text: str, choice: str) -> str:
        raise KeyError("lost")

    monkeypatch.setattr("codeact.loop.extract_code", broken)
    assert main(["run", "t", "--model", scripted(tmp_path, "final_result(1)")]) == 1
    out = capsys.readouterr().out
    assert "══ failed (internal_error) ══\ninternal error: KeyError: 'lost'" in out


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("run", "t", "--model", "nope"), "PROVIDER:MODEL"),
        (("run", "t", "--model", "scripted:missing.json"), "missing.json"),
        (
            ("run", "t", "--model", "scripted:examples/trip_replies.json", "--tools", "x"),
            "MODULE:ATTR",
        ),
        (
            (
                "run",
                "t",
                "--model",
                "scripted:examples/trip_replies.json",
                "--tools",
                "examples.travel_tools:nothing",
            ),
            "has no attribute 'nothing'",
        ),
        (("run", "t", "--model", "scripted:examples/trip_replies.json", "--policy", "lax"), "lax"),
    ],
)
def test_bad_usage_exits_2(args: tuple[str, ...], needle: str) -> None:
    result = codeact(*args)
    assert result.returncode == 2, result.stderr
    assert needle in result.stderr


def test_missing_api_key_is_a_clear_usage_error() -> None:
    import os

    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    result = subprocess.run(
        [sys.executable, "-m", "codeact.cli", "run", "t", "--model", "openai:gpt-4o-mini"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        env=env,
    )
    assert result.returncode == 2
    assert "OPENAI_API_KEY" in result.stderr


@pytest.mark.timeout(60)
def test_allow_module_and_written_files_are_shown(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    policy = tmp_path / "p.toml"
    policy.write_text(
        f'extends = "default"\n[[mounts]]\nsandbox_path = "/out"\nhost_path = "{out}"\n'
        'mode = "rw"\n'
    )
    replies = tmp_path / "replies.json"
    script = (
        "import tomllib\nw = open('/out/t.csv', 'w')\nw.write('a,b')\nw.close()\n"
        "final_result(tomllib.loads('q = 1')['q'])"
    )
    replies.write_text(json.dumps([{"content": f"```python\n{script}\n```"}]))
    args = ("run", "write it", "--model", f"scripted:{replies}", "--policy", str(policy))
    refused = codeact(*args)
    assert "No module named 'tomllib'" in refused.stdout, refused.stdout + refused.stderr
    result = codeact(*args, "--allow-module", "tomllib")
    assert result.returncode == 0, result.stderr
    assert "wrote /out/t.csv (3 bytes, new)" in result.stdout, result.stdout
    bad = codeact(*args, "--allow-module", "no_such_module_xyz")
    assert bad.returncode == 2 and "no_such_module_xyz" in bad.stderr
