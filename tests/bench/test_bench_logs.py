"""``samples.jsonl`` survives a crash and a full disk: torn last lines are dropped with a
warning wherever the cut falls (inside a UTF-8 character too), a short write leaves the
log as it was, and ``codeact bench report`` never shows a traceback."""

from __future__ import annotations

import argparse
import logging
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from codeact.bench.cli import report_run
from codeact.bench.logdir import DROPPED, LogDir
from codeact.cli import main

ROOT = Path(__file__).resolve().parents[2]
#: ``codeact bench report``'s arguments (its handler is called directly at every cut).
REPORT = argparse.Namespace

SUITE_MODULE = """
from codeact.bench import BenchTask, Suite

def echo(text):
    return text

TASKS = [BenchTask(id=f"café/{i}", input=f"Say ☕ {i} — «{i}».", expected=f"☕ {i} é")
         for i in range(3)]

def golden(task):
    i = task.id.split("/")[1]
    return [f"Saying it, «é».\\n```python\\nfinal_result(echo('☕ {i} é'))\\n```"]

SUITE = Suite(name="cafe", tasks=TASKS, tools=lambda task: {"echo": echo}, golden=golden)
"""


@pytest.fixture
def suite_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "cafe_suite.py").write_text(SUITE_MODULE, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _run(log: Path, *extra: str) -> list[str]:
    return ["bench", "run", "cafe_suite:SUITE", "--model", "golden", "--log-dir", str(log),
            "--display", "none", *extra]  # fmt: skip


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": f"{cwd}{os.pathsep}{ROOT}"}
    return subprocess.run(
        [sys.executable, "-m", "codeact.cli", *args], cwd=cwd, env=env,
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


@pytest.mark.timeout(240)
def test_a_log_cut_at_every_byte_of_its_last_record_reads_and_reports(
    suite_dir: Path, caplog: pytest.LogCaptureFixture, capsys: pytest.CaptureFixture[str]
) -> None:
    log = suite_dir / "logs"
    assert main(_run(log, "--limit", "2")) == 0
    path = log / "samples.jsonl"
    whole = path.read_bytes()
    start = whole.rstrip(b"\n").rfind(b"\n") + 1
    last = whole[start:]
    assert len(last) != len(last.decode()), "the record should hold multi-byte characters"
    first = LogDir(log).read_samples()[0]
    inside_a_character = []
    capsys.readouterr()
    for cut in range(start, len(whole)):
        path.write_bytes(whole[:cut])
        caplog.clear()
        with caplog.at_level(logging.WARNING, "codeact.bench"):
            assert LogDir(log).read_samples() == [first], cut
            assert report_run(REPORT(log_dir=str(log), other=None, json=True, html=None)) == 0, cut
        assert (cut > start) == any("not a whole sample record" in m for m in caplog.messages)
        try:
            whole[start:cut].decode()
        except UnicodeDecodeError:
            inside_a_character.append(cut)
    assert inside_a_character
    assert '"samples": 1' in capsys.readouterr().out
    # The command itself, cut inside a character: a warning, the summary, no traceback.
    path.write_bytes(whole[: inside_a_character[len(inside_a_character) // 2]])
    result = _cli("bench", "report", str(log), cwd=suite_dir)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "not a whole sample record" in result.stderr
    assert "1/1 passed" in result.stdout


@pytest.mark.timeout(120)
def test_resume_after_a_torn_line_keeps_its_bytes_and_appends_whole_records(
    suite_dir: Path,
) -> None:
    log = suite_dir / "logs"
    assert main(_run(log, "--limit", "1")) == 0
    path = log / "samples.jsonl"
    whole = path.read_bytes()
    torn = "{\"id\": \"cut inside «".encode()[:-1]  # the second byte of « is missing
    path.write_bytes(whole + torn)
    assert main(_run(log)) == 0
    lines = path.read_bytes().split(b"\n")
    assert lines[-1] == b"" and len(lines) == 4
    assert [r.task for r in sorted(LogDir(log).read_samples(), key=lambda r: r.task)] == [
        "café/0", "café/1", "café/2",
    ]  # fmt: skip
    assert (log / DROPPED).read_bytes() == torn + b"\n"


def _append_under_a_size_limit(log: Path, limit: int) -> subprocess.CompletedProcess[str]:
    """Append a record again in a child whose files cannot grow past ``limit`` bytes:
    the kernel writes part of the line, as on a disk that fills up."""
    program = (
        "import sys\n"
        "from codeact.bench.logdir import LogDir\n"
        "logs = LogDir(sys.argv[1])\n"
        "record = logs.read_samples()[0]\n"
        "try:\n"
        "    logs.append(record)\n"
        "except OSError as exc:\n"
        "    print(exc)\n"
        "    raise SystemExit(1)\n"
    )

    def limit_size() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    return subprocess.run(
        [sys.executable, "-c", program, str(log)], capture_output=True, text=True, timeout=60,
        preexec_fn=limit_size, env={**os.environ, "PYTHONPATH": str(ROOT)},
    )  # fmt: skip


@pytest.mark.timeout(120)
@pytest.mark.parametrize("room", [0, 1, 700])
def test_a_short_write_leaves_the_log_as_it_was(suite_dir: Path, room: int) -> None:
    log = suite_dir / "logs"
    assert main(_run(log, "--limit", "1")) == 0
    path = log / "samples.jsonl"
    before = path.read_bytes()
    result = _append_under_a_size_limit(log, len(before) + room)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    if room:
        assert f"only {room} of the record's" in result.stdout
    assert path.read_bytes() == before
    assert len(LogDir(log).read_samples()) == 1


@pytest.mark.timeout(180)
def test_a_run_on_a_full_disk_stops_with_a_message_and_resumes_whole(suite_dir: Path) -> None:
    log = suite_dir / "logs"
    assert main(_run(log, "--limit", "1")) == 0
    size = (log / "samples.jsonl").stat().st_size
    # Room for run.json and one more record but not two: the third sample's line is cut.
    limit = 2 * size + size // 2

    def limit_size() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))

    base = {**os.environ, "PYTHONPATH": f"{suite_dir}{os.pathsep}{ROOT}"}
    full = subprocess.run(
        [sys.executable, "-m", "codeact.cli", *_run(log, "--concurrency", "1")],
        cwd=suite_dir, env=base, capture_output=True, text=True, timeout=150,
        preexec_fn=limit_size,
    )  # fmt: skip
    assert full.returncode == 1, full.stderr
    assert "Traceback" not in full.stderr and "is the disk full?" in full.stderr
    assert len(LogDir(log).read_samples()) == 2
    assert (log / "samples.jsonl").read_bytes().endswith(b"\n")
    assert main(_run(log)) == 0
    assert len(LogDir(log).read_samples()) == 3
