"""AutoGen: CodeactCodeExecutor as a CodeExecutor, and a CodeExecutorAgent on it driven
by AutoGen's replay model client."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

pytest.importorskip("autogen_core")

from autogen_core import CancellationToken
from autogen_core.code_executor import CodeBlock

from codeact.integrations.autogen import CodeactCodeExecutor

pytestmark = pytest.mark.timeout(120)

FENCE = "`" * 3


def lookup_price(item: str) -> float:
    """The price of an item (runs in the test's process)."""
    return {"wand": 10.0, "cloak": 25.5}[item]


def _run(blocks: list[tuple[str, str]], **options: Any) -> list[Any]:
    async def main() -> list[Any]:
        async with CodeactCodeExecutor(**options) as executor:
            results = []
            for code, language in blocks:
                token = CancellationToken()
                results.append(
                    await executor.execute_code_blocks([CodeBlock(code, language)], token)
                )
            return results

    return asyncio.run(main())


def test_blocks_share_a_session_and_call_host_tools() -> None:
    first, second, third = _run(
        [
            ("price = lookup_price('wand')\nprint('one wand:', price)", "python"),
            ("print(price * 3)", "py"),
            ("print('before')\nlookup_price('hat')", "python"),
        ],
        tools={"lookup_price": lookup_price},
    )
    assert (first.exit_code, first.output) == (0, "one wand: 10.0\n")
    assert (second.exit_code, second.output) == (0, "30.0\n")
    assert third.exit_code == 1 and third.output.startswith("before\nTraceback")
    assert "KeyError: 'hat'" in third.output


def test_other_languages_are_refused_before_anything_runs() -> None:
    (result,) = _run([("echo hi", "sh")])
    assert result.exit_code == 1
    assert "unsupported language 'sh'" in result.output and "Python" in result.output

    async def mixed() -> Any:
        async with CodeactCodeExecutor() as executor:
            blocks = [CodeBlock("print('ran')", "python"), CodeBlock("ls", "bash")]
            return await executor.execute_code_blocks(blocks, CancellationToken())

    result = asyncio.run(mixed())
    assert result.exit_code == 1 and "ran" not in result.output


def test_restart_forgets_and_the_policy_holds() -> None:
    async def main() -> tuple[Any, Any]:
        async with CodeactCodeExecutor(policy="strict") as executor:
            token = CancellationToken()
            await executor.execute_code_blocks([CodeBlock("x = 1", "python")], token)
            await executor.restart()
            forgot = await executor.execute_code_blocks([CodeBlock("print(x)", "python")], token)
            refused = await executor.execute_code_blocks([CodeBlock("import os", "python")], token)
            return forgot, refused

    forgot, refused = asyncio.run(main())
    assert forgot.exit_code == 1 and "NameError" in forgot.output
    assert refused.exit_code == 1 and "No module named 'os'" in refused.output


def test_cancelling_the_token_kills_the_run() -> None:
    async def main() -> None:
        async with CodeactCodeExecutor() as executor:
            token = CancellationToken()
            loop = asyncio.get_running_loop()
            loop.call_later(0.5, token.cancel)
            with pytest.raises(asyncio.CancelledError):
                await executor.execute_code_blocks([CodeBlock("while True: pass", "python")], token)
            # The executor goes on in a fresh worker.
            ok = await executor.execute_code_blocks(
                [CodeBlock("print('alive')", "python")], CancellationToken()
            )
            assert ok.output == "alive\n"

    asyncio.run(main())


@pytest.mark.filterwarnings("ignore:No approval function set:UserWarning")
def test_a_code_executor_agent_runs_end_to_end() -> None:
    pytest.importorskip("autogen_agentchat")
    from autogen_agentchat.agents import CodeExecutorAgent
    from autogen_ext.models.replay import ReplayChatCompletionClient

    model = ReplayChatCompletionClient(
        [
            f"I'll compute it.\n{FENCE}python\nprint(lookup_price('cloak') * 2)\n{FENCE}",
            "Two cloaks cost 51.0.",
        ]
    )

    async def main() -> Any:
        async with CodeactCodeExecutor(tools={"lookup_price": lookup_price}) as executor:
            agent = CodeExecutorAgent("coder", code_executor=executor, model_client=model)
            return [event async for event in agent.run_stream(task="What do two cloaks cost?")]

    events = asyncio.run(main())
    executed = [e for e in events if type(e).__name__ == "CodeExecutionEvent"]
    assert [(e.result.exit_code, e.result.output) for e in executed] == [(0, "51.0\n")]
    assert events[-1].messages[-1].content == "Two cloaks cost 51.0."
