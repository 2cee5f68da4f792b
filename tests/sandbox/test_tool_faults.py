"""Tools cannot take the host down: BaseExceptions and broken messages become script
errors, a hung tool costs its own call, and hung threads never block the host's exit."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox import FinalResult, Sandbox, SandboxPolicy

ROOT = Path(__file__).resolve().parents[2]
RELEASE = threading.Event()


class Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no message for you")

    def __repr__(self) -> str:
        raise RuntimeError("nor a repr")


def exits() -> None:
    raise SystemExit(3)


def interrupts() -> None:
    raise KeyboardInterrupt


def generator_exit() -> None:
    raise GeneratorExit


def unprintable() -> None:
    raise Unprintable


async def async_exits() -> None:
    raise SystemExit(2)


async def async_interrupts() -> None:
    raise KeyboardInterrupt


def hangs() -> str:
    RELEASE.wait()  # never set while the test runs: a tool that hangs
    return "late"


def quick() -> str:
    return "quick"


TOOLS = {
    "exits": exits,
    "interrupts": interrupts,
    "generator_exit": generator_exit,
    "unprintable": unprintable,
    "hangs": hangs,
    "quick": quick,
    "async_exits": async_exits,
    "async_interrupts": async_interrupts,
}


#: Only the tool that hangs gets a short timeout: it is certain to overrun it, while the
#: others have the policy's long one, however busy the machine is.
HANG_TIMEOUT = {"hangs": 0.2}


@pytest.fixture(scope="module")
def sb() -> Iterator[Sandbox]:
    policy = SandboxPolicy.preset("default").with_limits(tool_timeout_s=30, tool_calls=50)
    with Sandbox(policy, spares=1, tool_threads=8, hung_tools_per_session=3) as sandbox:
        yield sandbox
    RELEASE.set()  # let the hung threads end with the module


@pytest.mark.parametrize(
    ("tool", "kind"),
    [
        ("exits", "SystemExit"),
        ("interrupts", "KeyboardInterrupt"),
        ("generator_exit", "GeneratorExit"),
        ("unprintable", "Unprintable"),
        ("async_exits", "SystemExit"),
        ("async_interrupts", "KeyboardInterrupt"),
    ],
)
def test_base_exceptions_and_broken_messages_are_script_errors(
    sb: Sandbox, tool: str, kind: str
) -> None:
    with sb.session(tools=TOOLS, tool_timeouts={"exits": None, "interrupts": None}) as s:
        assert s.run("x = 41").ok
        ex = s.run(f"try:\n    {tool}()\nexcept Exception as e:\n    final_result(str(e))")
        assert isinstance(ex.output, FinalResult), ex
        assert kind in ex.output.value
        assert ex.tool_calls[0].error is not None and ex.tool_calls[0].error.startswith(kind)
        # The worker got its reply and keeps its variables; the event loop async tools run
        # on is still there.
        assert s.run("final_result(x + 1)").output == FinalResult(value=42)
        assert s.run("async_exits()").tool_calls[0].error == "SystemExit: 2"


def test_a_hung_tool_costs_its_own_calls_only(sb: Sandbox) -> None:
    with sb.session(tools=TOOLS, tool_timeouts=HANG_TIMEOUT) as s:
        for _ in range(3):
            ex = s.run("hangs()")
            assert ex.error_code == "runtime_error"
            assert "did not finish within 0.2 s" in ex.output.message  # type: ignore[union-attr]
        ex = s.run("try:\n    hangs()\nexcept RuntimeError as e:\n    final_result(str(e))")
        assert isinstance(ex.output, FinalResult)
        assert "3 earlier tool calls of this session are still running" in ex.output.value
    # Other sessions' sync tools still run: the hung calls hold only their own threads.
    with sb.session(tools=TOOLS) as other:
        assert other.run("final_result(quick())").output == FinalResult(value="quick")
    assert sb.health().tool_threads_busy == 3


def test_the_sandbox_thread_budget_gives_a_clear_error() -> None:
    policy = SandboxPolicy.preset("default").with_limits(tool_timeout_s=30)
    with Sandbox(policy, spares=0, tool_threads=2, hung_tools_per_session=5) as sb:
        with sb.session(tools=TOOLS, tool_timeouts=HANG_TIMEOUT) as s:
            for _ in range(2):
                assert "did not finish" in s.run("hangs()").output.message  # type: ignore[union-attr]
        with sb.session(tools=TOOLS) as other:
            ex = other.run("quick()")
    assert ex.error_code == "runtime_error"
    assert "all 2 tool threads of this sandbox are busy" in ex.output.message  # type: ignore[union-attr]


@pytest.mark.timeout(60)
def test_a_hung_tool_never_blocks_interpreter_exit() -> None:
    program = textwrap.dedent(
        """
        import threading
        from sandbox import Sandbox, SandboxPolicy
        forever = threading.Event()
        def hangs():
            forever.wait()
        policy = SandboxPolicy.preset("default").with_limits(tool_timeout_s=0.2)
        sb = Sandbox(policy, spares=0)
        s = sb.session(tools={"hangs": hangs})
        print(s.run("hangs()").error_code, flush=True)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=45
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "runtime_error"


def test_a_gate_raising_keyboard_interrupt_is_the_call_failing(sb: Sandbox) -> None:
    asked: list[str] = []

    async def gate(name: str, arguments: dict[str, object]) -> str | None:
        asked.append(name)
        if len(asked) == 1:
            raise KeyboardInterrupt
        return None

    with sb.session(tools=TOOLS, gate=gate) as s:
        ex = s.run("quick()")
        assert ex.error_code == "runtime_error"
        assert "KeyboardInterrupt" in ex.output.message  # type: ignore[union-attr]
        # The loop the gate runs on survived: the next call is asked and proceeds.
        assert s.run("final_result(quick())").output == FinalResult(value="quick")
    assert asked == ["quick", "quick"]


def big() -> str:
    return "x" * 900_000


FLOOD = """
import json, os, socket, struct, time
for fd in range(3, 32):
    try:
        socket.socket(fileno=fd).detach()
        break
    except OSError:
        pass
for call_id in range(1, 21):
    frame = json.dumps({"op": "call", "id": call_id, "name": "big"}).encode()
    os.write(fd, struct.pack(">I", len(frame)) + frame)  # and never read the replies
time.sleep(100)
"""


@pytest.mark.timeout(60)
def test_a_worker_that_stops_reading_cannot_block_the_host_past_the_wall_limit() -> None:
    # Plain Python owns its end of the channel: it asks for big results and reads none.
    policy = (
        SandboxPolicy.preset("default")
        .with_layers(language=False)
        .with_limits(wall_s=3, tool_calls=100)
    )
    with Sandbox(policy, spares=0) as sb, sb.session(tools={"big": big}) as s:
        ex = s.run(FLOOD)
        assert ex.error_code == "timeout"
        assert s.run("final_result(1)").output == FinalResult(value=1)
