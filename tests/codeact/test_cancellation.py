"""Cancelling a run at any moment leaves no zygote or worker behind.

Each test cancels at one point of a run — before it starts, before the worker exists,
while the sandbox starts, mid-script, during a tool call, during an approval — and
then compares the live child processes (psutil) with what ``open_sandboxes()`` says.
The policy's wall limit is far above the test's timeout, so only the cancellation
can end the script.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from codeact import Agent, AgentEvent, Failed, InteractionRequired, ModelReplied, Started, tool
from codeact.models import ScriptedModel
from sandbox import Sandbox, SandboxPolicy
from sandbox.host.sandbox import open_sandboxes
from tests.codeact.loop_helpers import arun, py
from tests.processes import accounted, live_children

POLICY = SandboxPolicy.preset("default").model_copy(
    update={"limits": SandboxPolicy.preset("default").limits.model_copy(update={"wall_s": 600})}
)
SLEEP = py("import time\ntime.sleep(300)")


def assert_nothing_left(shared: Sandbox | None = None) -> None:
    """No sandbox is open but ``shared``, and the live children are exactly the open
    sandboxes' processes; killed processes get a moment to be reaped."""
    assert open_sandboxes() == ([] if shared is None else [shared])
    deadline = time.monotonic() + 10
    while live_children() != accounted() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert live_children() == accounted()


Trigger = Callable[[AgentEvent], bool]


def cancelled_run(agent: Agent, when: Trigger, wait: asyncio.Event | None = None) -> list[Any]:
    """Run ``agent`` and cancel it at the first event ``when`` accepts (after ``wait``
    is set, if given); return the events."""

    async def main() -> list[AgentEvent]:
        stream = agent.stream("t")
        events: list[AgentEvent] = []
        async for event in stream:
            events.append(event)
            if when(event):
                if wait is not None:
                    await asyncio.wait_for(wait.wait(), 60)
                stream.cancel()
        await stream.aclose()
        return events

    events = arun(main())
    assert isinstance(events[-1], Failed) and events[-1].code == "cancelled", events
    assert sum(isinstance(e, Failed) for e in events) == 1
    return events


def is_type(kind: type) -> Trigger:
    return lambda event: isinstance(event, kind)


@pytest.mark.timeout(60)
def test_cancel_before_the_run_starts() -> None:
    async def main() -> list[AgentEvent]:
        stream = Agent("a", ScriptedModel([SLEEP]), policy=POLICY).stream("t")
        stream.cancel()
        return [event async for event in stream]

    events = arun(main())
    assert [e.type for e in events] == ["failed"]
    assert_nothing_left()


@pytest.mark.timeout(60)
def test_aclose_of_a_stream_never_iterated_ends_it() -> None:
    async def main() -> None:
        stream = Agent("a", ScriptedModel([SLEEP]), policy=POLICY).stream("t")
        await stream.aclose()
        assert stream.output().failure is not None
        assert stream.output().failure.code == "cancelled"  # type: ignore[union-attr]

    arun(main())
    assert_nothing_left()


@pytest.mark.timeout(60)
def test_cancel_before_the_worker_exists() -> None:
    cancelled_run(Agent("a", ScriptedModel([SLEEP]), policy=POLICY), is_type(Started))
    assert_nothing_left()


@pytest.mark.timeout(120)
def test_cancel_right_after_the_model_replied_while_the_sandbox_starts() -> None:
    # The sandbox starts in a thread right after ModelReplied; 8 runs in a row used to
    # leave 16 processes behind.
    for _ in range(8):
        cancelled_run(Agent("a", ScriptedModel([SLEEP]), policy=POLICY), is_type(ModelReplied))
        assert_nothing_left()


def running_agent(
    code: str, extra: list[Any] | None = None, **options: Any
) -> tuple[Agent, asyncio.Event]:
    """An agent whose script calls ``started()`` (an async tool) and then ``code``."""
    flag = asyncio.Event()

    async def started() -> None:
        """Say the script is running."""
        flag.set()

    model = ScriptedModel([py(f"started()\n{code}")])
    return Agent("a", model, tools=[started, *(extra or [])], policy=POLICY, **options), flag


@pytest.mark.timeout(60)
def test_cancel_mid_script() -> None:
    agent, flag = running_agent("import time\ntime.sleep(300)")
    cancelled_run(agent, is_type(ModelReplied), flag)
    assert_nothing_left()


@pytest.mark.timeout(60)
def test_cancel_during_an_async_tool_call() -> None:
    async def hang() -> None:
        """Never returns."""
        await asyncio.Event().wait()

    agent, flag = running_agent("hang()", [hang])
    cancelled_run(agent, is_type(ModelReplied), flag)
    assert_nothing_left()


@pytest.mark.timeout(60)
def test_cancel_during_a_sync_tool_call() -> None:
    import threading

    release = threading.Event()

    def block() -> None:
        """Waits until the test ends."""
        release.wait(60)

    agent, flag = running_agent("block()", [tool(block, timeout_s=120)])
    try:
        cancelled_run(agent, is_type(ModelReplied), flag)
        assert_nothing_left()
    finally:
        release.set()


@pytest.mark.timeout(60)
def test_cancel_while_a_script_waits_for_approval() -> None:
    agent = Agent("a", ScriptedModel([SLEEP]), policy=POLICY, approval="scripts")
    cancelled_run(agent, is_type(InteractionRequired))
    assert_nothing_left()


@pytest.mark.timeout(60)
def test_cancel_while_a_tool_call_waits_for_approval() -> None:
    def charge(amount: float) -> float:
        """Charge the card."""
        return amount

    agent, _ = running_agent("charge(3)", [tool(charge, requires_approval=True)])
    events = cancelled_run(agent, is_type(InteractionRequired))
    assert any(isinstance(e, InteractionRequired) for e in events)
    assert_nothing_left()


@pytest.mark.timeout(60)
def test_cancel_with_a_shared_sandbox_leaves_only_the_sandbox() -> None:
    with Sandbox(POLICY, spares=1) as sandbox:
        for when in (is_type(Started), is_type(ModelReplied)):
            agent = Agent("a", ScriptedModel([SLEEP]), policy=POLICY)

            async def main(agent: Agent = agent, when: Trigger = when) -> None:
                stream = agent.stream("t", sandbox=sandbox)
                async for event in stream:
                    if when(event):
                        stream.cancel()
                assert stream.output().failure is not None

            arun(main())
            # What is alive is the sandbox's zygote and spares, and nothing else.
            assert_nothing_left(sandbox)
    assert_nothing_left()
