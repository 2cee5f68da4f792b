"""`codeact bench run m3tooleval --model golden`: all 82 tasks pass through the real loop,
sandbox, tools and grader, several samples at once in one shared sandbox."""

import json
from pathlib import Path

import pytest

from codeact.bench import SampleRecord
from codeact.bench.m3tooleval import golden_task_names, load_tasks
from codeact.cli import main


def test_every_task_has_golden_replies() -> None:
    assert golden_task_names() == sorted(task.name for task in load_tasks())


# 82 samples, ~250 scripts: about 2 s alone; the slack is for a loaded 2-core machine.
@pytest.mark.timeout(180)
def test_golden_replies_pass_every_task(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["bench", "run", "m3tooleval", "--model", "golden", "--log-dir", str(tmp_path)]
    assert main([*argv, "--concurrency", "8", "--display", "none", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["samples"], summary["passed"]) == (82, 82)
    lines = (tmp_path / "samples.jsonl").read_text().splitlines()
    records = [SampleRecord.model_validate_json(line) for line in lines]
    assert sorted(r.task for r in records) == sorted(t.name for t in load_tasks())
    for record in records:
        assert record.transcript is not None and record.transcript.failure is None
        scripted = sum(1 for m in record.transcript.messages if m.role == "ai")
        assert record.turns == scripted == record.usage.requests
    # Some transcripts make a mistake that the error feedback fixes.
    recovered = [
        r.task
        for r in records
        if r.transcript
        and any(m.role == "human" and m.text().startswith("Error:") for m in r.transcript.messages)
    ]
    assert len(recovered) >= 10, recovered
    by_domain = {g["domain"]: g["samples"] for g in summary["groups"]}
    assert by_domain == {
        "cryptobotanists_plant_dna_sequencer": 8,
        "message_decoder": 8,
        "trade_calculator": 17,
        "travel_itinerary_planning": 15,
        "web_browsing": 34,
    }
