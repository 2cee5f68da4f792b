"""Runs in a sandbox the caller keeps up: one zygote for many runs, a session per run."""

from __future__ import annotations

import psutil
import pytest

from codeact import Agent
from codeact.models import ScriptedModel
from sandbox import AsyncSandbox, Sandbox, SandboxPolicy
from tests.codeact.loop_helpers import arun, py


def counting_agent(policy: SandboxPolicy, replies: list[str]) -> Agent:
    return Agent("counter", ScriptedModel(replies), policy=policy)


def zygotes() -> int:
    """How many fork servers this process runs now (a stopped one may wait to be reaped)."""
    running = 0
    for child in psutil.Process().children():
        try:
            running += child.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            pass
    return running


def test_runs_share_the_sandbox_but_not_their_variables() -> None:
    policy = SandboxPolicy.preset("default")
    with Sandbox(policy) as sandbox:
        first = Agent(
            "counter",
            ScriptedModel([py("n = 41\nfinal_result([n + 1, zygotes()])")]),
            tools=[zygotes],
            policy=policy,
        )
        assert first.run_sync("count", sandbox=sandbox).value == [42, 1]
        second = counting_agent(policy, [py("final_result(n)"), py("final_result(0)")])
        out = second.run_sync("count again", sandbox=sandbox)
        # The second run's session is new: `n` from the first run does not exist.
        assert "NameError" in (out.messages[3].text() or "") and out.value == 0
        # The sandbox outlived both runs.
        with sandbox.session() as session:
            assert session.run("final_result(1)").ok
    # Without one, each run starts its own fork server.
    alone = Agent("counter", ScriptedModel([py("final_result(zygotes())")]), tools=[zygotes])
    assert alone.run_sync("count").value == 1


def test_an_async_sandbox_is_used_as_is() -> None:
    policy = SandboxPolicy.preset("strict")

    async def main() -> list[object]:
        async with AsyncSandbox(policy) as sandbox:
            values = []
            for n in range(3):
                agent = counting_agent(policy, [py(f"final_result({n} * 2)")])
                values.append((await agent.run("double", sandbox=sandbox)).value)
            return values

    assert arun(main()) == [0, 2, 4]


def test_a_sandbox_with_another_policy_is_refused() -> None:
    agent = counting_agent(SandboxPolicy.preset("default"), [py("final_result(1)")])
    with Sandbox(SandboxPolicy.preset("strict")) as sandbox:
        with pytest.raises(ValueError, match=r"strict.*agent 'counter'"):
            agent.run_sync("count", sandbox=sandbox)
