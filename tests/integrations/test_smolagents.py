"""smolagents: CodeactExecutor as a PythonExecutor, and a CodeAgent run end to end on it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("smolagents")

from smolagents import FinalAnswerTool, Tool
from smolagents.local_python_executor import InterpreterError
from smolagents.models import ChatMessage, MessageRole, Model

from codeact.integrations.smolagents import CodeactCodeAgent, CodeactExecutor
from sandbox import Sandbox, SandboxPolicy

pytestmark = pytest.mark.timeout(120)


class Ledger(Tool):
    """A tool with host state: each call is recorded in the host process."""

    name = "record"
    description = "Records an amount and returns the running total."
    inputs = {"amount": {"type": "number", "description": "the amount"}}
    output_type = "number"

    def __init__(self) -> None:
        super().__init__()
        self.amounts: list[float] = []

    def forward(self, amount: float) -> float:
        self.amounts.append(amount)
        return sum(self.amounts)


class Shouting(FinalAnswerTool):
    def forward(self, answer: Any) -> Any:
        return str(answer).upper()


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(SandboxPolicy.preset("default")) as sb:
        yield sb


@pytest.fixture
def executor(sandbox: Sandbox) -> Iterator[CodeactExecutor]:
    ex = CodeactExecutor(sandbox=sandbox)
    ex.send_tools({"record": Ledger(), "final_answer": FinalAnswerTool()})
    yield ex
    ex.cleanup()


def test_prints_last_values_and_state_across_calls(executor: CodeactExecutor) -> None:
    out = executor("print('adding')\ntotal = 2 + 3\ntotal * 2")
    assert (out.output, out.logs, out.is_final_answer) == (10, "adding\n", False)
    assert executor("total = total + 1").output == 6  # a last assignment is the output
    assert executor("items = [total]; items").output == [6]
    assert executor("for i in range(2):\n    pass").output is None
    # A value with no JSON form comes back as its repr.
    point = "class Point:\n    def __repr__(self):\n        return 'Point(1, 2)'\nPoint()"
    assert executor(point).output == "Point(1, 2)"


def test_a_last_value_too_large_comes_back_cut() -> None:
    policy = SandboxPolicy.preset("default").with_limits(result_bytes=4000)
    ex = CodeactExecutor(policy=policy)
    try:
        out = ex("'ab' * 10000")
        assert isinstance(out.output, str) and out.output.startswith("'abab")
        assert len(out.output) == 1000  # a quarter of result_bytes, in characters
    finally:
        ex.cleanup()


def test_tools_run_on_the_host(executor: CodeactExecutor) -> None:
    ledger = Ledger()
    executor.send_tools({"record": ledger, "final_answer": FinalAnswerTool()})
    assert executor("record(2.5)\nrecord(amount=1)").output == 3.5
    assert ledger.amounts == [2.5, 1]


def test_final_answer_ends_the_script_and_goes_through_the_tool(sandbox: Sandbox) -> None:
    ex = CodeactExecutor(sandbox=sandbox)
    ex.send_tools({"final_answer": Shouting()})
    try:
        out = ex("try:\n    final_answer('done')\nexcept Exception:\n    pass\nprint('after')")
        assert (out.output, out.is_final_answer, out.logs) == ("DONE", True, "")
        with pytest.raises(InterpreterError, match="final_answer"):
            ex("final_answer(lambda: 1)")  # no JSON form: the model is told so
    finally:
        ex.cleanup()


def test_variables_are_sent_as_json(executor: CodeactExecutor) -> None:
    executor.send_variables({"rows": [{"a": 1}, {"a": 2}], "label": "x"})
    assert executor("label + str(sum(r['a'] for r in rows))").output == "x3"
    with pytest.raises(TypeError, match=r"'handle'.*no JSON form"):
        executor.send_variables({"handle": object()})


def test_errors_raise_with_the_scripts_own_traceback(executor: CodeactExecutor) -> None:
    with pytest.raises(InterpreterError) as caught:
        executor("print('before')\nvalue = 1 / 0")
    assert "ZeroDivisionError" in str(caught.value) and "value = 1 / 0" in str(caught.value)
    assert executor.state["_print_outputs"] == "before\n"
    with pytest.raises(InterpreterError) as caught:
        executor("x = 1\n1 / 0")  # the last line is quoted as written
    assert "    1 / 0" in str(caught.value) and "codeact_output" not in str(caught.value)
    with pytest.raises(InterpreterError, match="No module named 'os'"):
        executor("import os")
    with pytest.raises(InterpreterError, match=r"name .open. is not defined"):
        executor("open('/etc/passwd').read()")


def test_authorized_imports_extend_the_policy() -> None:
    ex = CodeactExecutor(["numpy"], policy="default")
    try:
        assert "numpy" in ex.policy.modules and "numpy" in ex.authorized_imports
        assert ex("import numpy as np\nint(np.arange(4).sum())").output == 6
        assert ex("np.arange(3)").output == "array([0, 1, 2])"  # no JSON form: its repr
    finally:
        ex.cleanup()
    assert ex._sandbox is None  # cleanup() stopped the sandbox it started


def test_a_shared_sandbox_must_allow_the_imports(sandbox: Sandbox) -> None:
    with pytest.raises(ValueError, match="does not allow importing numpy"):
        CodeactExecutor(["numpy"], sandbox=sandbox)
    CodeactExecutor(["math", "json"], sandbox=sandbox).cleanup()  # the default allows these


class ScriptedCodeModel(Model):
    """smolagents' way of testing an agent: a Model whose replies are fixed."""

    def __init__(self, replies: list[str]) -> None:
        super().__init__(model_id="scripted")
        self.replies = list(replies)
        self.prompts: list[str] = []

    def generate(self, messages: Any, stop_sequences: Any = None, **kwargs: Any) -> ChatMessage:
        self.prompts.append(str(messages))
        return ChatMessage(role=MessageRole.ASSISTANT, content=self.replies.pop(0))


def test_code_agent_runs_end_to_end(sandbox: Sandbox) -> None:
    ledger = Ledger()
    model = ScriptedCodeModel(
        [
            "Thought: record both.\n<code>\ntotal = record(4)\ntotal = record(6)\n"
            "print('total is', total)\n</code>",
            "Thought: oops.\n<code>\nratio = total / 0\n</code>",
            "Thought: done.\n<code>\nfinal_answer(total * 2)\n</code>",
        ]
    )
    with CodeactCodeAgent([ledger], model, sandbox=sandbox, max_steps=5) as agent:
        assert agent.run("Record 4 and 6, then double the total.") == 20
    assert ledger.amounts == [4, 6]
    # The model saw the printed text and the last value, then the error.
    assert "total is 10" in model.prompts[1] and "Last output from code snippet" in model.prompts[1]
    assert "ZeroDivisionError" in model.prompts[2]
    assert "'statistics'" in agent.system_prompt  # the policy's modules are listed


def test_code_agent_keeps_variables_between_runs(sandbox: Sandbox) -> None:
    model = ScriptedCodeModel(
        [
            "<code>\nseen = [task_number]\nfinal_answer(seen)\n</code>",
            "<code>\nseen.append(task_number)\nfinal_answer(seen)\n</code>",
        ]
    )
    with CodeactCodeAgent([], model, sandbox=sandbox) as agent:
        assert agent.run("first", additional_args={"task_number": 1}) == [1]
        assert agent.run("second", additional_args={"task_number": 2}, reset=False) == [1, 2]


def test_code_agent_refuses_another_executor() -> None:
    with pytest.raises(TypeError, match="own executor"):
        CodeactCodeAgent([], ScriptedCodeModel([]), executor_type="docker")


def test_a_managed_agent_is_called_from_the_script(sandbox: Sandbox) -> None:
    helper_model = ScriptedCodeModel(["<code>\nfinal_answer('Oslo has 42 parks')\n</code>"])
    helper = CodeactCodeAgent(
        [], helper_model, sandbox=sandbox, name="helper", description="Looks things up."
    )
    manager_model = ScriptedCodeModel(
        ["<code>\nreport = helper(task='How many parks in Oslo?')\nfinal_answer(report)\n</code>"]
    )
    with (
        helper,
        CodeactCodeAgent([], manager_model, sandbox=sandbox, managed_agents=[helper]) as manager,
    ):
        answer = manager.run("Ask the helper.")
    assert "Oslo has 42 parks" in str(answer)
    assert "How many parks in Oslo?" in helper_model.prompts[0]
