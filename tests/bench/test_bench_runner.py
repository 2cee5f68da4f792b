"""`codeact bench run` on small suites: logs, resume, retries and the failure statuses."""

from __future__ import annotations

import asyncio
import json
import textwrap
from pathlib import Path

import pytest

from codeact.bench import BenchTask, SampleRecord, Suite
from codeact.bench.logdir import LogDir, LogDirError
from codeact.bench.runner import BenchConfig, run_bench
from codeact.cli import main
from codeact.messages import Ai, Message
from codeact.models import FunctionModel
from codeact.models.errors import ModelError, ModelErrorCode
from codeact.models.testing import CallInfo

SUITE_MODULE = """
from codeact.bench import BenchTask, Suite

def add(a, b):
    return a + b

TASKS = [BenchTask(id=f"add/{i}", input=f"What is {i} + {i * 10}?", expected=i * 11,
                   domain="even" if i % 2 == 0 else "odd") for i in range(6)]

def golden(task):
    i = int(task.id.split("/")[1])
    wrong = "Adding.\\n```python\\nx = ad({i}, {j})\\n```" .format(i=i, j=i * 10)
    fix = "A typo; the tool is `add`.\\n```python\\nx = add({i}, {j})\\nprint(x)\\n```".format(
        i=i, j=i * 10)
    answer = "The sum is known.\\n```python\\nfinal_result(x if x != 33 else 0)\\n```"
    return [wrong, fix, answer] if i == 1 else [fix, answer]

SUITE = Suite(name="adder", tasks=TASKS, tools=lambda task: {"add": add}, golden=golden)
"""


@pytest.fixture
def suite_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "adder_suite.py").write_text(SUITE_MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _records(log: Path) -> list[SampleRecord]:
    lines = (log / "samples.jsonl").read_text().splitlines()
    return [SampleRecord.model_validate_json(line) for line in lines]


@pytest.mark.timeout(120)
def test_module_suite_runs_logs_and_resumes(
    suite_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = suite_dir / "logs"
    args = ["bench", "run", "adder_suite:SUITE", "--model", "golden", "--log-dir", str(log)]
    assert main([*args, "--limit", "2", "--display", "none"]) == 0
    first = {r.id: r for r in _records(log)}
    assert len(first) == 2
    # Task add/1 made a mistake the error feedback fixed: 3 turns, still passed.
    assert first[next(i for i, r in first.items() if r.task == "add/1")].turns == 3
    capsys.readouterr()
    # Rerunning the same command without --limit runs only the 4 samples left.
    assert main([*args, "--display", "plain", "--json"]) == 1
    out = capsys.readouterr()
    records = _records(log)
    assert len(records) == 6 and len({r.id for r in records}) == 6
    assert {r.id: r for r in records if r.id in first} == first
    summary = json.loads(out.out)
    assert (summary["samples"], summary["passed"], summary["failed"]) == (6, 5, 1)
    failed = next(r for r in records if r.status == "failed")
    assert (failed.task, failed.answer, failed.expected) == ("add/3", 0, 33)
    assert failed.transcript is not None and failed.transcript.tool_calls
    assert {g["domain"] for g in summary["groups"]} == {"even", "odd"}
    assert main(["bench", "report", str(log)]) == 0
    table = capsys.readouterr().out
    assert "odd" in table and "5/6 passed" in table
    # A third run has nothing left to do.
    assert main([*args, "--display", "none"]) == 1
    assert len(_records(log)) == 6


@pytest.mark.timeout(60)
def test_a_half_written_last_line_is_dropped_on_resume(suite_dir: Path) -> None:
    log = suite_dir / "logs"
    args = ["bench", "run", "adder_suite:SUITE", "--model", "golden", "--log-dir", str(log)]
    assert main([*args, "--tasks", "add/0,add/2", "--display", "none"]) == 0
    with (log / "samples.jsonl").open("a") as handle:
        handle.write('{"id": "cut-off-by-a-cra')
    assert len(LogDir(log).read_samples()) == 2
    assert main([*args, "--tasks", "add/[0245]", "--display", "none"]) == 0
    records = _records(log)
    assert sorted(r.task for r in records) == ["add/0", "add/2", "add/4", "add/5"]


@pytest.mark.timeout(60)
def test_another_configuration_is_refused_in_the_same_log_dir(
    suite_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = suite_dir / "logs"
    base = ["bench", "run", "adder_suite:SUITE", "--log-dir", str(log), "--display", "none"]
    assert main([*base, "--model", "golden", "--limit", "1"]) == 0
    capsys.readouterr()
    assert main([*base, "--model", "golden", "--max-steps", "3", "--limit", "1"]) == 2
    err = capsys.readouterr().err
    # What differs, in words: no dict reprs of both configurations.
    assert "this one has max steps 3 (logged: 10)" in err, err
    assert "{" not in err and "policy_digest" not in err
    assert main([*base, "--model", "golden", "--policy", "strict", "--limit", "1"]) == 2
    err = capsys.readouterr().err
    assert "policy 'strict' (logged: 'default'), policy content (digest)" in err, err


def test_bad_usage_is_reported(suite_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "run", "nosuch", "--model", "golden"]) == 2
    assert "unknown suite 'nosuch'" in capsys.readouterr().err
    assert main(["bench", "run", "adder_suite:SUITE", "--model", "golden", "--tasks", "zz*"]) == 2
    assert "matches no task" in capsys.readouterr().err
    code = main(["bench", "run", "adder_suite:SUITE", "--model", "golden", "--action-mode", "json"])
    assert code == 2 and "--protocol paper" in capsys.readouterr().err
    code = main(["bench", "run", "adder_suite:SUITE", "--model", "scripted:none.json"])
    assert code == 2 and "replays one conversation" in capsys.readouterr().err
    assert not (suite_dir / "logs").exists()  # bad usage leaves no log directory behind


@pytest.mark.timeout(60)
def test_jsonl_suite_with_tools_and_grader(suite_dir: Path) -> None:
    (suite_dir / "mytools.py").write_text(
        textwrap.dedent(
            """
            def shout(text):
                return text.upper()
            TOOLS = [shout]
            def grade(task, answer):
                return str(answer).lower() == str(task.expected)
            """
        )
    )
    tasks = [{"id": "hi", "input": "Shout hi.", "expected": "hi"}]
    (suite_dir / "tasks.jsonl").write_text("".join(json.dumps(t) + "\n" for t in tasks))
    reply = "Shouting.\n```python\nfinal_result(shout('hi'))\n```"
    (suite_dir / "script.json").write_text(json.dumps([reply]))
    log = suite_dir / "jl"
    argv = ["bench", "run", "--suite-file", "tasks.jsonl", "--tools", "mytools:TOOLS"]
    argv += ["--grader", "mytools:grade", "--model", "scripted:script.json", "--log-dir", str(log)]
    assert main([*argv, "--display", "none"]) == 0
    (record,) = _records(log)
    assert (record.answer, record.status) == ("HI", "passed")
    (suite_dir / "bad.jsonl").write_text('{"id": "x"}\n')
    assert main(["bench", "run", "--suite-file", "bad.jsonl", "--model", "golden"]) == 2


def _suite() -> Suite:
    tasks = [BenchTask(id=f"t{i}", input=f"Say {i}.", expected=i) for i in range(3)]
    return Suite(name="say", tasks=tasks)


@pytest.mark.timeout(60)
def test_infrastructure_failures_are_retried_and_model_failures_kept(tmp_path: Path) -> None:
    calls: dict[str, int] = {}

    def reply(messages: list[Message], info: CallInfo) -> str:
        key = next(m.text() for m in messages if m.role == "human").split()[-1].rstrip(".")
        calls[key] = calls.get(key, 0) + 1
        if key == "0" and calls[key] == 1:
            raise ModelError(ModelErrorCode.OVERLOADED, "busy", retry_after=0.01)
        if key == "1":
            raise ModelError(ModelErrorCode.BAD_REQUEST, "the request is malformed")
        if key == "2":
            raise ModelError(ModelErrorCode.SERVER_ERROR, "it broke", retry_after=0.01)
        return f"Saying it.\n```python\nfinal_result({key})\n```"

    config = BenchConfig(
        suite=_suite(), model="fn", log_dir=tmp_path, retry_on_error=1,
        model_factory=lambda task: FunctionModel(reply),
    )  # fmt: skip
    summary = asyncio.run(run_bench(config))
    records = {r.task: r for r in LogDir(tmp_path).read_samples()}
    assert records["t0"].status == "passed"
    assert [r.code for r in records["t0"].retries] == ["overloaded"]
    assert records["t1"].status == "failed" and records["t1"].failure_code == "bad_request"
    assert not records["t1"].attempts
    assert records["t2"].status == "error" and records["t2"].failure_code == "server_error"
    assert [a.failure_code for a in records["t2"].attempts] == ["server_error"]
    assert len(records["t2"].retries) == 2 * 6  # 6 retries per attempt, 2 attempts
    assert (summary.passed, summary.failed, summary.errors) == (1, 1, 1)


def test_log_dir_errors(tmp_path: Path) -> None:
    (tmp_path / "run.json").write_text("{")
    with pytest.raises(LogDirError, match="not a valid RunInfo"):
        LogDir(tmp_path).read_run()


def test_records_have_json_schemas() -> None:
    schema = SampleRecord.model_json_schema()
    assert {"id", "status", "answer", "expected", "transcript"} <= set(schema["properties"])
    assert Ai(content="x").text() == "x"


@pytest.mark.timeout(60)
def test_the_sandbox_random_is_seeded_from_the_sample_id(tmp_path: Path) -> None:
    fence = "`" * 3
    reply = (
        f"Drawing.\n{fence}python\nimport random\nfinal_result(random.randint(0, 10**9))\n{fence}"
    )
    suite = Suite(
        name="dice", tasks=[BenchTask(id="roll", input="Roll.")], golden=lambda task: [reply]
    )

    def draws(log: Path) -> dict[int, object]:
        config = BenchConfig(suite=suite, model="golden", log_dir=log, epochs=2)
        asyncio.run(run_bench(config))
        return {r.epoch: r.answer for r in LogDir(log).read_samples()}

    first, second = draws(tmp_path / "a"), draws(tmp_path / "b")
    assert first == second  # the same samples draw the same numbers
    assert first[1] != first[2]  # another epoch is another sample, another seed
