"""``codeact run``: the README's agent example, JSON output, exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
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


@pytest.mark.timeout(60)
def test_approve_without_a_terminal_refuses(tmp_path: Path) -> None:
    replies = tmp_path / "r.json"
    replies.write_text(json.dumps(["```python\nfinal_result(1)\n```"] * 2))
    result = codeact(
        "run", "t", "--model", f"scripted:{replies}", "--approve", "--max-steps", "2", "--json"
    )
    assert result.returncode == 1
    output = json.loads(result.stdout)
    assert output["failure"]["code"] == "max_steps_exceeded"
    assert "no terminal to ask for approval" in output["messages"][3]["content"]


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
        "import csv\nw = open('/out/t.csv', 'w')\nw.write('a,b')\nw.close()\n"
        "final_result(csv.QUOTE_ALL)"
    )
    replies.write_text(json.dumps([{"content": f"```python\n{script}\n```"}]))
    args = ("run", "write it", "--model", f"scripted:{replies}", "--policy", str(policy))
    refused = codeact(*args)
    assert "module 'csv' is not available" in refused.stdout, refused.stdout + refused.stderr
    result = codeact(*args, "--allow-module", "csv")
    assert result.returncode == 0, result.stderr
    assert "wrote /out/t.csv (3 bytes, new)" in result.stdout, result.stdout
    bad = codeact(*args, "--allow-module", "no_such_module_xyz")
    assert bad.returncode == 2 and "no_such_module_xyz" in bad.stderr
