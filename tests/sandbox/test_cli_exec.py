"""``codeact exec``: output shapes and exit statuses."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def codeact(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "codeact.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_readme_example_script() -> None:
    result = codeact("exec", "examples/primes.py")
    assert result.returncode == 0, result.stderr
    assert "status: ok" in result.stdout
    assert '"sum": 1060' in result.stdout
    assert "found 25 primes below 100" in result.stdout


def test_json_prints_exactly_one_execution() -> None:
    result = codeact("exec", "examples/primes.py", "--json")
    assert result.returncode == 0
    execution = json.loads(result.stdout)
    assert execution["output"] == {
        "type": "final_result",
        "value": {"count": 25, "sum": 1060, "largest": 97},
    }
    assert execution["error_code"] is None
    assert {
        "stdout",
        "stdout_truncated",
        "duration_s",
        "cpu_s",
        "peak_memory_bytes",
        "tool_calls",
    } <= set(execution)


def test_stdin_and_failing_script_still_exit_zero() -> None:
    result = codeact(
        "exec", "-", "--json", "--policy", "strict", "--timeout", "0.5", stdin="import time\n"
    )
    assert result.returncode == 0
    execution = json.loads(result.stdout)
    assert execution["error_code"] == "policy_violation"
    assert "Importable modules: json, math, re" in execution["output"]["message"]


@pytest.mark.timeout(30)
def test_timeout_override() -> None:
    result = codeact("exec", "-", "--json", "--timeout", "0.5", stdin="while True:\n    pass\n")
    assert result.returncode == 0
    assert json.loads(result.stdout)["error_code"] in ("timeout", "cpu_limit")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("exec", "does-not-exist.py"), "cannot read"),
        (("exec", "examples/primes.py", "--policy", "nope"), "neither a preset"),
        (("exec", "examples/primes.py", "--memory-mb", "1"), "memory_mb"),
        (("exec",), "the following arguments are required"),
        (("exec", "examples/primes.py", "--timeout", "soon"), "invalid float value"),
    ],
)
def test_bad_usage_exits_2(args: tuple[str, ...], needle: str) -> None:
    result = codeact(*args)
    assert result.returncode == 2
    assert needle in result.stderr
    assert result.stdout == ""


def test_sandbox_failure_exits_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from codeact.cli import main
    from sandbox import Sandbox, SandboxError

    def fail(self: Sandbox) -> Sandbox:
        raise SandboxError("the zygote did not start")

    monkeypatch.setattr(Sandbox, "start", fail)
    assert main(["exec", str(ROOT / "examples/primes.py")]) == 3
    assert "the sandbox failed: the zygote did not start" in capsys.readouterr().err


def test_too_little_memory_is_refused_up_front() -> None:
    result = codeact("exec", "examples/primes.py", "--memory-mb", "64")
    assert result.returncode == 2 and result.stdout == ""
    assert "limits.memory_mb: 64 MB is too little" in result.stderr
    assert "at least 100 MB" in result.stderr
    assert "Traceback" not in result.stderr
    # The floor is real: the smallest figure accepted runs a script.
    result = codeact("exec", "examples/primes.py", "--memory-mb", "100")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize(
    ("content", "needles"),
    [
        (b'name = "caf\xe9"\n', ["must be UTF-8 text", "byte 11"]),
        (b'extends = "default"\nlimits = [1, 2]\n', ["limits: must be a table", "list"]),
        (b"limits = [1, 2]\nmodules = []\n", ["limits:"]),
        (b'extends = "strict"\nlayers = "off"\n', ["layers: must be a table"]),
    ],
)
@pytest.mark.parametrize("command", ["exec", "run"])
def test_a_broken_policy_file_is_named_and_exits_2(
    tmp_path: Path, content: bytes, needles: list[str], command: str
) -> None:
    policy = tmp_path / "bad.toml"
    policy.write_bytes(content)
    if command == "exec":
        result = codeact("exec", "examples/primes.py", "--policy", str(policy))
    else:
        replies = tmp_path / "r.json"
        replies.write_text('["final_result(1)"]')
        result = codeact("run", "t", "--model", f"scripted:{replies}", "--policy", str(policy))
    assert result.returncode == 2, result.stderr
    assert str(policy) in result.stderr
    for needle in needles:
        assert needle in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("command", ["exec", "run"])
def test_a_missing_mount_directory_exits_2(tmp_path: Path, command: str) -> None:
    policy = tmp_path / "p.toml"
    policy.write_text(
        f'extends = "default"\n[[mounts]]\nsandbox_path = "/data"\n'
        f'host_path = "{tmp_path / "gone"}"\n'
    )
    if command == "exec":
        result = codeact("exec", "examples/primes.py", "--policy", str(policy))
    else:
        replies = tmp_path / "r.json"
        replies.write_text('["final_result(1)"]')
        result = codeact("run", "t", "--model", f"scripted:{replies}", "--policy", str(policy))
    assert result.returncode == 2
    assert "does not exist" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.timeout(60)
def test_ctrl_c_stops_the_run_quietly_and_leaves_nothing_behind(tmp_path: Path) -> None:
    import signal
    import time

    import psutil

    script = tmp_path / "loop.py"
    script.write_text("while True:\n    pass\n")
    process = subprocess.Popen(
        [sys.executable, "-m", "codeact.cli", "exec", str(script), "--timeout", "30"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    deadline = time.monotonic() + 20
    children: list[psutil.Process] = []
    while time.monotonic() < deadline and len(children) < 2:  # the zygote and a worker
        time.sleep(0.1)
        children = psutil.Process(process.pid).children(recursive=True)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=20)
    assert process.returncode == 130
    assert err.strip() == "codeact: interrupted"
    _, alive = psutil.wait_procs(children, timeout=5)
    assert not alive


def test_allow_module_adds_a_module_and_an_unknown_one_is_a_usage_error() -> None:
    source = "import tomllib\nfinal_result(tomllib.loads('q = 1')['q'])"
    refused = codeact("exec", "-", "--json", stdin=source)
    assert json.loads(refused.stdout)["error_code"] == "policy_violation"
    allowed = codeact("exec", "-", "--json", "--allow-module", "tomllib", stdin=source)
    assert json.loads(allowed.stdout)["output"]["value"] == 1, allowed.stdout
    unknown = codeact("exec", "-", "--allow-module", "no_such_module_xyz", stdin=source)
    assert unknown.returncode == 2 and "no_such_module_xyz" in unknown.stderr
