"""The system prompt: what the model is told about its tools, modules, files and limits."""

from __future__ import annotations

from pathlib import Path

from codeact import Agent
from codeact.models import ScriptedModel
from sandbox import Mount, SandboxPolicy


def convert(amount: float, currency: str = "EUR") -> float:
    """Convert an amount of USD to `currency`."""
    return amount


def prompt_of(agent: Agent) -> str:
    from codeact.loop import AgentLoop
    from codeact.loop_state import LoopState
    from codeact.run_state import RunState

    loop = AgentLoop(RunState("r", lambda _: None), LoopState(agent))
    return loop.system_message(agent).text()


def test_the_prompt_describes_tools_modules_files_and_limits() -> None:
    policy = SandboxPolicy.preset("strict")
    agent = Agent("fx", ScriptedModel([]), "Answer in EUR.", tools=[convert], policy=policy)
    prompt = prompt_of(agent)
    assert "You are fx" in prompt and "Answer in EUR." in prompt
    assert "def convert(amount: float, currency: str = 'EUR') -> float:" in prompt
    assert "Convert an amount of USD to `currency`." in prompt
    assert "Importable modules: json, math, re." in prompt
    assert "Files: none: there is no `open`" in prompt
    assert f"{policy.limits.wall_s:g} s wall-clock" in prompt
    assert "transfer_to_agent" not in prompt  # no transfer targets, no transfer helper


def test_mounts_are_named_with_their_modes(tmp_path: Path) -> None:
    policy = SandboxPolicy.preset("default").with_mounts(
        Mount(sandbox_path="/data", host_path=str(tmp_path / "data")),
        Mount(sandbox_path="/out", host_path=str(tmp_path / "out"), mode="rw", max_bytes=2048),
    )
    prompt = prompt_of(Agent("reader", ScriptedModel([]), policy=policy))
    assert (
        "Files: `/data` (read-only), `/out` (read-write, 2,048 bytes per session), "
        "through `open(path)`" in prompt
    )
