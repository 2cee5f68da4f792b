"""The agent loop with scripted and function models: no network."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from pydantic import BaseModel

from codeact import (
    Agent,
    AgentOutput,
    AgentRunFailed,
    Completed,
    Message,
    ModelDelta,
    ModelReplied,
    ScriptExecuted,
    Started,
    keep_recent_observations,
)
from codeact.models import FunctionModel, LlmUsage, ScriptedModel
from codeact.models.testing import CallInfo
from sandbox import SandboxPolicy
from tests.codeact.loop_helpers import arun, py


def lookup(item: str) -> float:
    """Price of an item."""
    return {"wand": 10.0, "cloak": 25.5}[item]


def test_first_reply_finishes() -> None:
    agent = Agent("shop", ScriptedModel([py("final_result(lookup('wand') * 2)")]), tools=[lookup])
    out = agent.run_sync("Double the wand price")
    assert out.value == 20.0 and out.ok and out.steps == 1
    assert out.tool_call_count() == 1 and out.tool_calls[0].result == 10.0
    assert out.tool_calls[0].step == 1 and out.tool_calls[0].agent == "shop"


def test_error_recovery_and_state_across_steps() -> None:
    model = ScriptedModel(
        [
            py("price = lookup('wond')"),
            py("price = lookup('wand')\nprint('price is', price)"),
            py("final_result({'content': f'It costs {price}'})"),
        ]
    )
    out = Agent("shop", model, tools=[lookup]).run_sync("Price of a wand?")
    assert out.text() == "It costs 10.0"
    feedback = [m.text() for m in out.messages if m.role == "human"][1:]
    assert feedback[0].startswith("Error:") and "KeyError: 'wond'" in feedback[0]
    assert feedback[1] == "Observation:\nprice is 10.0"
    assert [c.ok for c in out.tool_calls] == [False, True]
    # The model saw the error before its second reply.
    assert "KeyError" in model.calls[1][-1].text()


def test_no_code_gets_a_corrective_message_and_counts_as_a_step() -> None:
    model = ScriptedModel(["I will now think very hard.", py("final_result(1)")])
    out = Agent("a", model).run_sync("task")
    assert out.value == 1 and out.steps == 2
    assert "contained no code" in out.messages[3].text()


def test_max_steps_exceeded() -> None:
    model = ScriptedModel([py("x = 1")] * 3)
    with pytest.raises(AgentRunFailed) as info:
        Agent("a", model, max_steps=3).run_sync("loop forever")
    assert info.value.code == "max_steps_exceeded"
    assert info.value.output.steps == 3 and info.value.output.usage.scripts_run == 3


class Answer(BaseModel):
    city: str
    nights: int


def test_output_schema_retries_then_succeeds() -> None:
    model = ScriptedModel(
        [py("final_result({'city': 'B'})"), py("final_result({'city': 'B', 'nights': 2})")]
    )
    out = Agent("a", model, output_schema=Answer).run_sync("plan")
    assert out.value == {"city": "B", "nights": 2}
    assert "does not match the required output schema" in out.messages[3].text()
    assert "nights" in out.messages[3].text()


def test_output_schema_gives_up_after_retries() -> None:
    schema = {"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}
    model = ScriptedModel([py("final_result({'n': 'x'})")] * 3)
    with pytest.raises(AgentRunFailed) as info:
        Agent("a", model, output_schema=schema, max_output_retries=2).run_sync("t")
    assert info.value.code == "invalid_output"


def test_invalid_json_schema_is_refused_at_construction() -> None:
    with pytest.raises(ValueError, match="not a valid JSON schema"):
        Agent("a", ScriptedModel([]), output_schema={"type": 12})


def test_usage_sums_and_event_order() -> None:
    usage = LlmUsage(input_tokens=100, output_tokens=10, cache_read_tokens=40)
    model = ScriptedModel(
        [
            Message.ai_with_usage(py("x = lookup('wand')"), usage),
            Message.ai_with_usage(py("final_result(x)"), usage),
        ]
    )
    agent = Agent("a", model, tools=[lookup])

    async def collect() -> list[object]:
        return [event async for event in agent.stream("t")]

    streamed = arun(collect())
    # The model's pieces (ModelDelta) are tested in test_token_stream.py.
    events = [e for e in streamed if not isinstance(e, ModelDelta)]
    kinds = [type(e).__name__ for e in events]
    assert kinds == [
        "Started",
        "ModelReplied",
        "ScriptExecuted",
        "ModelReplied",
        "ScriptExecuted",
        "Completed",
    ]
    assert isinstance(events[0], Started) and isinstance(events[1], ModelReplied)
    assert isinstance(events[2], ScriptExecuted) and events[2].execution.ok
    done = events[-1]
    assert isinstance(done, Completed) and done.result == 10.0
    assert done.usage.requests == 2 and done.usage.input_tokens == 200
    assert done.usage.output_tokens == 20 and done.usage.cached_tokens == 80
    assert done.usage.scripts_run == 2 and done.usage.tool_calls == 1
    for event in events:  # every event is JSON
        json.loads(event.model_dump_json())


def test_function_model_and_remove_and_history_processor() -> None:
    seen: list[list[str]] = []

    def reply(messages: list[Message], info: CallInfo) -> str:
        seen.append([m.text() for m in messages])
        return (
            py("final_result(len([1, 2]))")
            if info.call_index >= 2
            else py(f"print({info.call_index})")
        )

    history = [
        Message.human("old question", id="q1"),
        Message.ai("old answer", id="a1"),
        Message.remove("a1"),
    ]
    agent = Agent("a", FunctionModel(reply), history_processor=keep_recent_observations(1))
    out = agent.run_sync("new question", history=history)
    assert out.value == 2
    assert "old answer" not in seen[0] and "old question" in seen[0]
    assert seen[2].count("[earlier observation omitted]") == 1


def test_output_helpers_and_round_trip() -> None:
    model = ScriptedModel(
        [
            Message.ai_with_usage(
                py("final_result({'content': 'hi', 'n': 1})"),
                LlmUsage(input_tokens=5, output_tokens=2),
            )
        ]
    )
    out = Agent("a", model).run_sync("greet")
    assert out.text() == "hi" and out.text_or("x") == "hi"
    assert out.message_count() == 3 and out.total_tokens() == 7
    assert out.prompt_tokens() == 5 and out.completion_tokens() == 2
    assert "1 request, 7 tokens" in out.usage_summary()
    assert "hi" in str(out)
    assert AgentOutput.model_validate_json(out.model_dump_json()) == out


def test_each_run_gets_a_fresh_session() -> None:
    model = ScriptedModel(
        [
            py("secret = 1\nfinal_result('set')"),
            py("try:\n    secret\nexcept NameError:\n    final_result('fresh')"),
        ]
    )
    agent = Agent("a", model)
    assert agent.run_sync("one").value == "set"
    assert agent.run_sync("two").value == "fresh"


@pytest.mark.timeout(30)
def test_cancellation_ends_the_run_and_kills_the_worker() -> None:
    # The wall limit is far beyond the test's timeout: only the cancellation can end
    # the script, however slowly a loaded machine starts the sandbox.
    default = SandboxPolicy.preset("default")
    policy = default.model_copy(
        update={"limits": default.limits.model_copy(update={"wall_s": 600})}
    )
    agent = Agent("a", ScriptedModel([py("import time\ntime.sleep(300)")]), policy=policy)

    async def main() -> None:
        stream = agent.stream("sleep")
        events = []
        async for event in stream:
            events.append(event)
            if isinstance(event, ModelReplied):
                await asyncio.sleep(0.3)
                stream.cancel()
        assert events[-1].type == "failed" and events[-1].code == "cancelled"  # type: ignore[union-attr]
        assert stream.output().failure is not None

    arun(main())


def test_cancellation_while_the_sandbox_starts_stops_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from sandbox.host import sandbox as host
    from sandbox.host import supervisor
    from sandbox.host import workers as process

    class SlowZygote(process.Zygote):
        def __init__(self, config: dict[str, Any], **options: Any) -> None:
            time.sleep(1.0)  # the cancel below lands while the run's sandbox starts
            super().__init__(config, **options)

    monkeypatch.setattr(supervisor, "Zygote", SlowZygote)
    agent = Agent("a", ScriptedModel([py("final_result(1)")]))

    async def main() -> None:
        stream = agent.stream("go")
        async for event in stream:
            if isinstance(event, ModelReplied):
                await asyncio.sleep(0.3)
                stream.cancel()
        assert stream.output().failure is not None

    arun(main())
    assert host.open_sandboxes() == []


@pytest.mark.timeout(30)
def test_cancelling_the_awaiting_task() -> None:
    agent = Agent("a", ScriptedModel([py("import time\ntime.sleep(20)")]))

    async def main() -> None:
        task = asyncio.create_task(agent.run("sleep"))
        await asyncio.sleep(1.0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    arun(main())


def test_bad_agent_definitions() -> None:
    with pytest.raises(ValueError, match="identifier"):
        Agent("not valid", ScriptedModel([]))
    with pytest.raises(ValueError, match="reserved"):
        Agent("a", ScriptedModel([]), tools={"final_result": lookup})
    with pytest.raises(ValueError, match="max_steps"):
        Agent("a", ScriptedModel([]), max_steps=0)
    with pytest.raises(ValueError, match="non-empty"):
        Agent("a", ScriptedModel([])).run_sync("  ")


def test_model_failure_ends_with_its_code() -> None:
    with pytest.raises(AgentRunFailed) as info:
        Agent("a", ScriptedModel([])).run_sync("t")
    assert info.value.code == "bad_request"


def test_every_model_failure_code_is_a_run_failure_code() -> None:
    from codeact import FailureCode
    from codeact.models import ModelErrorCode

    assert {code.value for code in ModelErrorCode} <= {code.value for code in FailureCode}


def test_run_sync_works_inside_a_running_event_loop() -> None:
    agent = Agent("shop", ScriptedModel([py("final_result(lookup('cloak'))")]), tools=[lookup])

    async def handler() -> float:
        return agent.run_sync("Price of a cloak?").value  # type: ignore[no-any-return]

    assert arun(handler()) == 25.5


def test_usage_summary_shows_short_sandbox_times_in_milliseconds() -> None:
    from codeact.summary import UsageSummary

    line = UsageSummary(sandbox_cpu_s=0.0042, sandbox_wall_s=1.5).one_line()
    assert line.endswith("sandbox 4.2 ms CPU / 1.50 s wall")
