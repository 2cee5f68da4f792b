"""Chaos: many short agent runs on one shared Sandbox, each with a random fault.

Faults, injected for real: the run's worker SIGKILLed mid-script, the zygote SIGKILLed
mid-script, a tool that hangs past its timeout, a tool that crashes (with an exception
that cannot even be printed, or SystemExit), and a cancellation at a random moment.
Every run must end with exactly one typed terminal event, the Sandbox must keep
serving the next runs, and at the end no process, descriptor or thread is left.
The policy's limits give the slack: a hung tool is cut at ``tool_timeout_s``, and the
wall limit is far above anything a healthy step takes.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

import psutil
import pytest

from codeact import (
    Agent,
    AgentEvent,
    Completed,
    Failed,
    FailureCode,
    ModelReplied,
    ScriptExecuted,
    tool,
)
from codeact.messages import Message
from codeact.models import FunctionModel
from codeact.models.testing import CallInfo
from sandbox import Execution, Sandbox, SandboxPolicy
from sandbox.host.sandbox import open_sandboxes
from tests.codeact.loop_helpers import arun, py
from tests.processes import live_children

RUNS = int(os.environ.get("CODEACT_CHAOS_RUNS", "30"))
SEED = int(os.environ.get("CODEACT_CHAOS_SEED", str(random.randrange(1 << 30))))
FAULTS = ("none", "kill_worker", "kill_zygote", "tool_hang", "tool_crash", "cancel")

_default = SandboxPolicy.preset("default")
POLICY = _default.model_copy(
    update={"limits": _default.limits.model_copy(update={"wall_s": 120, "tool_timeout_s": 1.0})}
)

RELEASE = threading.Event()  # lets the hung tools' threads go at the end


class Unprintable(Exception):
    def __str__(self) -> str:
        raise ValueError("no text")


def hang() -> str:
    """Never answers in time."""
    RELEASE.wait(60)
    return "late"


def crash(how: str) -> None:
    """Fails badly."""
    if how == "exit":
        raise SystemExit(3)
    raise Unprintable()


SCRIPTS = {
    "none": "final_result('fine')",
    "kill_worker": "started()\nimport time\ntime.sleep(60)\nfinal_result('slept')",
    "kill_zygote": "started()\nimport time\ntime.sleep(60)\nfinal_result('slept')",
    "tool_hang": "try:\n    hang()\nexcept Exception as e:\n    print(type(e).__name__)",
    "tool_crash": "try:\n    crash(CHOICE)\nexcept Exception as e:\n    print(type(e).__name__)",
    "cancel": "import time\ntime.sleep(60)",
}


def agent_for(fault: str, rng: random.Random, flag: asyncio.Event) -> Agent:
    script = SCRIPTS[fault].replace("CHOICE", repr(rng.choice(["exit", "unprintable"])))

    def reply(messages: list[Message], info: CallInfo) -> str:
        # First the faulty step; then, whatever happened, finish.
        return py(script) if info.call_index == 0 else py("final_result('recovered')")

    async def started() -> None:
        """Say the script runs."""
        flag.set()

    tools = [started, tool(hang, timeout_s=1.0), crash]
    return Agent("chaos", FunctionModel(reply), tools=tools, policy=POLICY, max_steps=3)


def worker_pid(stream: Any) -> int | None:
    session = stream._loop.session.current
    return session.pid if session is not None else None


async def one_run(sandbox: Sandbox, fault: str, rng: random.Random) -> list[AgentEvent]:
    flag = asyncio.Event()
    stream = agent_for(fault, rng, flag).stream("go", sandbox=sandbox)
    events: list[AgentEvent] = []
    if fault == "cancel":
        asyncio.get_running_loop().call_later(rng.uniform(0, 0.4), stream.cancel)
    async for event in stream:
        events.append(event)
        if isinstance(event, ModelReplied) and event.step == 1 and fault.startswith("kill_"):
            await asyncio.wait_for(flag.wait(), 60)  # the script runs
            pid = worker_pid(stream) if fault == "kill_worker" else sandbox.health().zygote_pid
            assert pid is not None
            os.kill(pid, signal.SIGKILL)
    return events


#: What the faulty step's Execution shows, per fault: the fault really happened.
EVIDENCE: dict[str, Callable[[Execution], bool]] = {
    "none": lambda e: e.output.type == "final_result",
    "kill_worker": lambda e: e.error_code == "worker_crashed" and "from outside" in _text(e),
    "kill_zygote": lambda e: e.error_code == "worker_crashed" and "zygote" in _text(e),
    "tool_hang": lambda e: "TimeoutError" in e.stdout,
    "tool_crash": lambda e: e.error_code is None and e.stdout.strip() != "",
}


def _text(execution: Execution) -> str:
    return execution.output.model_dump_json()


def check(fault: str, events: list[AgentEvent]) -> str:
    terminal = [e for e in events if isinstance(e, (Completed, Failed))]
    assert len(terminal) == 1 and events[-1] is terminal[0], events
    end = terminal[0]
    executed = [e for e in events if isinstance(e, ScriptExecuted)]
    if fault in EVIDENCE:
        assert executed and EVIDENCE[fault](executed[0].execution), (fault, executed)
    if fault == "cancel":
        # A cancel may come after the first (and only) step already finished the run.
        assert isinstance(end, Completed) or end.code == FailureCode.CANCELLED, end
    else:
        assert isinstance(end, Completed), (fault, end)
    return "completed" if isinstance(end, Completed) else end.code.value


@pytest.mark.timeout(600)
def test_chaos() -> None:
    rng = random.Random(SEED)
    me = psutil.Process()
    fds_before, threads_before = me.num_fds(), threading.active_count()
    outcomes: dict[str, list[str]] = {fault: [] for fault in FAULTS}
    try:
        with Sandbox(POLICY, spares=2) as sandbox:
            for index in range(RUNS):
                # Every kind at least once, then at random.
                fault = FAULTS[index] if index < len(FAULTS) else rng.choice(FAULTS)
                try:
                    outcomes[fault].append(check(fault, arun(one_run(sandbox, fault, rng))))
                except Exception as exc:
                    raise AssertionError(f"seed {SEED}, run {index} ({fault}): {exc!r}") from exc
            with sandbox.session() as session:
                assert session.run("final_result(6 * 7)").output.value == 42
            assert sandbox.health().zygote_restarts >= 1
    finally:
        RELEASE.set()
    print(f"chaos seed {SEED}: {outcomes}")
    assert open_sandboxes() == []
    deadline = time.monotonic() + 10
    while (
        live_children() or me.num_fds() > fds_before or threading.active_count() > threads_before
    ) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live_children() == set(), f"seed {SEED}"
    assert me.num_fds() <= fds_before, f"seed {SEED}: descriptors left open"
    assert threading.active_count() <= threads_before, f"seed {SEED}: {threading.enumerate()}"
