"""The golden reply files: well-formed, covering every domain, and solving their tasks.

Besides the static checks, each file's code runs here in a sandbox session with the
task's tools (the agent loop's own run is in `test_m3tooleval_golden.py`).
"""

import json
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from codeact.bench.m3tooleval import (
    DOMAINS,
    golden_replies,
    golden_task_names,
    is_correct,
    task_by_name,
    tools_for,
)
from codeact.bench.m3tooleval import golden as golden_module
from codeact.bench.m3tooleval.golden import GoldenError, reply_content
from sandbox import Sandbox, SandboxPolicy

BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
NAMES = golden_task_names()


def _code(reply: str | dict[str, str]) -> str:
    blocks = BLOCK.findall(reply_content(reply))
    assert len(blocks) == 1, reply
    return str(blocks[0])


def test_golden_files_cover_every_domain() -> None:
    domains = Counter(task_by_name(name).domain for name in NAMES)
    assert len(NAMES) >= 10
    assert all(domains[domain] >= 2 for domain in DOMAINS), domains


@pytest.mark.parametrize("name", NAMES)
def test_golden_file_is_well_formed(name: str) -> None:
    replies = golden_replies(name)
    for reply in replies:
        content = reply_content(reply)
        prose = BLOCK.sub("", content).strip()
        assert prose and content.count("```") == 2, content
    codes = [_code(reply) for reply in replies]
    assert "final_result(" in codes[-1]
    assert all("final_result(" not in code for code in codes[:-1])


def test_golden_errors_name_the_file_and_item(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(golden_module, "GOLDEN_DIR", tmp_path)
    with pytest.raises(GoldenError, match="no golden replies for task 'a/b'"):
        golden_replies("a/b")
    cases = {
        "[": "not valid JSON",
        "[]": "non-empty JSON list",
        '["ok", 3]': "reply 1: expected a string or an object",
        '[{"content": "x", "usage": {}}]': r"reply 0: unknown field\(s\) \['usage'\]",
        '[{"content": "x", "thinking": 1}]': "'thinking' must be a string",
    }
    for text, message in cases.items():
        (tmp_path / "a__b.json").write_text(text, encoding="utf-8")
        with pytest.raises(GoldenError, match=message):
            golden_replies("a/b")
    (tmp_path / "a__b.json").write_text(json.dumps(["hi", {"content": "x"}]), encoding="utf-8")
    assert golden_replies("a/b") == ["hi", {"content": "x"}]
    assert golden_module.golden_task_names() == ["a/b"]


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(SandboxPolicy.preset("default"), spares=1) as sb:
        yield sb


@pytest.fixture(scope="module")
def outcomes(sandbox: Sandbox) -> dict[str, list[str]]:
    """Each golden task's output types, reply by reply, run in one session."""
    results: dict[str, list[str]] = {}
    for name in NAMES:
        task = task_by_name(name)
        kinds = []
        with sandbox.session(tools=tools_for(task.domain)) as session:
            for reply in golden_replies(name):
                output = session.run(_code(reply)).output
                kinds.append(output.type)
                if output.type == "final_result":
                    value = output.value
                    assert is_correct(value, task.expected_output, task.expected_type), (
                        name,
                        value,
                    )
        results[name] = kinds
    return results


@pytest.mark.timeout(60)
def test_golden_code_solves_its_task_in_a_sandbox(outcomes: dict[str, list[str]]) -> None:
    for name, kinds in outcomes.items():
        assert kinds[-1] == "final_result", (name, kinds)
        assert "final_result" not in kinds[:-1], (name, kinds)


@pytest.mark.timeout(60)
def test_some_golden_files_recover_from_an_error(outcomes: dict[str, list[str]]) -> None:
    recovering = [name for name, kinds in outcomes.items() if "error" in kinds[:-1]]
    assert len(recovering) >= 2, outcomes
