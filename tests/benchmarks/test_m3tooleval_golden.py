"""Every golden reply file, run through the real agent loop, ends in a correct answer."""

import pytest

from benchmarks.m3tooleval import golden_task_names


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name", golden_task_names())
def test_golden_replies_pass_through_the_agent(name: str) -> None:
    from benchmarks.m3tooleval.runner import run_golden

    run = run_golden(name)
    assert run.passed, (name, run.value, run.task.expected_output)
    assert run.replies_left == 0, f"{name}: the agent stopped before the last golden reply"
