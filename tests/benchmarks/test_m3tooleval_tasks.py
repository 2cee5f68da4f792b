"""Loading the tasks: the shipped data, and clear errors for bad data."""

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from codeact.bench.m3tooleval import DOMAINS, Task, TaskError, load_tasks, task_by_name
from codeact.bench.m3tooleval.tasks import DATA_DIR

SHIPPED = ["LICENSE", "README.md", "metadata.json", "tasks.json", "travel_data.json"]


def test_shipped_tasks() -> None:
    tasks = load_tasks()
    assert len(tasks) == 82
    assert Counter(task.domain for task in tasks) == {
        "web_browsing": 34,
        "trade_calculator": 17,
        "travel_itinerary_planning": 15,
        "message_decoder": 8,
        "cryptobotanists_plant_dna_sequencer": 8,
    }
    assert set(DOMAINS) == {task.domain for task in tasks}
    first = tasks[0]
    assert isinstance(first, Task)
    assert first.name == "message_decoder/full_alien_message_decoding"
    assert first.expected_output == "fchahcufcu" and first.expected_type == "str"
    assert first.tool_names[0] == "convert_hex_to_ascii"
    tuple_task = task_by_name(
        "cryptobotanists_plant_dna_sequencer/find_most_common_nucleotide_combined_sequence"
    )
    assert tuple_task.expected_type == "tuple" and tuple_task.expected_output == ["A", 3]


def test_data_files_and_attribution_ship_with_the_package() -> None:
    for name in [*SHIPPED, "web_pages.jsonl"]:
        assert (DATA_DIR / name).is_file(), name
    notice = (DATA_DIR / "README.md").read_text(encoding="utf-8")
    assert "xingyaoww/code-act" in notice and "scripts/eval/m3tooleval/" in notice
    assert "MIT" in notice
    assert "Xingyao Wang" in (DATA_DIR / "LICENSE").read_text(encoding="utf-8")


def test_task_by_name_suggests_close_names() -> None:
    with pytest.raises(KeyError, match="similar: web_browsing/price_of_legendary_wand"):
        task_by_name("web/price_of_legendary_wand")


def _write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def _good() -> dict[str, Any]:
    return json.loads((DATA_DIR / "tasks.json").read_text(encoding="utf-8"))[0]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"expected_type": "set"}, r"task 0 .*field 'expected_type'"),
        ({"expected_output": 3}, "expected_output 3 is not of expected_type 'str'"),
        ({"domain": "travel"}, "does not start with its domain"),
        ({"tools": []}, "tools is empty"),
        ({"is_single_tool_task": "maybe"}, "field 'is_single_tool_task'"),
        ({"extra": 1}, "field 'extra'"),
        ({"instruction": None}, "field 'instruction'"),
    ],
)
def test_bad_task_fields_are_named(tmp_path: Path, change: dict[str, Any], message: str) -> None:
    item = _good() | change
    with pytest.raises(TaskError, match=message):
        load_tasks(_write(tmp_path, [item]))


def test_missing_field_is_named(tmp_path: Path) -> None:
    item = _good()
    del item["expected_output"]
    with pytest.raises(
        TaskError, match=r"'message_decoder/full_alien_message_decoding'.*field 'expected_output'"
    ):
        load_tasks(_write(tmp_path, [item]))


def test_bool_is_not_an_int(tmp_path: Path) -> None:
    item = _good() | {"expected_type": "int", "expected_output": True}
    with pytest.raises(TaskError, match="not of expected_type 'int'"):
        load_tasks(_write(tmp_path, [item]))


def test_bad_files(tmp_path: Path) -> None:
    with pytest.raises(TaskError, match="cannot be read"):
        load_tasks(tmp_path / "absent.json")
    with pytest.raises(TaskError, match="not valid JSON"):
        load_tasks(_write(tmp_path, "[{"))
    with pytest.raises(TaskError, match="must hold a JSON list"):
        load_tasks(_write(tmp_path, {"tasks": []}))
    with pytest.raises(TaskError, match="task 1: must be a JSON object"):
        load_tasks(_write(tmp_path, [_good(), "oops"]))
    with pytest.raises(TaskError, match=r"task 1 .*duplicate task name"):
        load_tasks(_write(tmp_path, [_good(), _good()]))
