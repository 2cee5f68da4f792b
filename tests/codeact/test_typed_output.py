"""Typed output: ``Agent(..., output_schema=Trip)`` runs return ``AgentOutput[Trip]``."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from codeact import Agent, AgentOutput, AgentRunFailed
from codeact.models import ScriptedModel
from tests.codeact.loop_helpers import py


class Trip(BaseModel):
    city: str
    nights: int


@dataclasses.dataclass
class Point:
    x: float
    y: float


@pytest.mark.timeout(60)
def test_a_pydantic_schema_gives_an_instance_and_keeps_the_json() -> None:
    model = ScriptedModel([py("final_result({'city': 'Lyon', 'nights': 2})")])
    agent = Agent("planner", model, output_schema=Trip)
    out = agent.run_sync("Plan a trip")
    assert isinstance(out.output, Trip)
    assert out.output == Trip(city="Lyon", nights=2)
    assert out.value == {"city": "Lyon", "nights": 2}
    assert isinstance(out, AgentOutput[Trip])
    # The JSON round trip keeps the type.
    again = AgentOutput[Trip].model_validate_json(out.model_dump_json())
    assert again.output == out.output


@pytest.mark.timeout(60)
def test_a_dataclass_schema_is_validated_and_returned_as_one() -> None:
    model = ScriptedModel([py("final_result({'x': 1})"), py("final_result({'x': 1, 'y': 2.5})")])
    out = Agent("geo", model, output_schema=Point).run_sync("Where?")
    assert out.output == Point(1.0, 2.5)
    assert out.steps == 2  # the first result missed 'y' and was corrected


@pytest.mark.timeout(60)
def test_without_a_type_the_output_is_the_json_value() -> None:
    model = ScriptedModel([py("final_result([1, 2])")])
    out = Agent("plain", model).run_sync("List")
    assert out.output == [1, 2] == out.value
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    model = ScriptedModel([py("final_result({'n': 3})")])
    out2 = Agent("json", model, output_schema=schema).run_sync("N")
    assert out2.output == {"n": 3}


@pytest.mark.timeout(60)
def test_a_failed_run_has_no_output() -> None:
    model = ScriptedModel([py("x = 1")])
    with pytest.raises(AgentRunFailed) as caught:
        Agent("short", model, max_steps=1, output_schema=Trip).run_sync("Plan")
    with pytest.raises(ValueError, match="max_steps_exceeded"):
        _ = caught.value.output.output


def test_a_type_pydantic_cannot_validate_is_refused_up_front() -> None:
    class Opaque:
        pass

    with pytest.raises(ValueError, match="output_schema Opaque"):
        Agent("odd", ScriptedModel([]), output_schema=Opaque)


_USER_FILE = """\
from pydantic import BaseModel
from codeact import Agent, AgentOutput
from codeact.models import ScriptedModel

class Trip(BaseModel):
    city: str

agent = Agent("planner", ScriptedModel([]), output_schema=Trip)
out = agent.run_sync("Plan")
reveal_type(out)
reveal_type(out.output)
city: str = out.output.city
typed: AgentOutput[Trip] = out
plain = Agent("plain", ScriptedModel([])).run_sync("x")
reveal_type(plain.output)

async def later() -> Trip:
    result = await agent.run("Plan")
    return result.output

wrong: int = out.output
"""


@pytest.mark.timeout(400)
def test_mypy_knows_the_output_type(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text(_USER_FILE)
    checked = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(tmp_path / "cache"),
            "--no-error-summary",
            "app.py",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=380,
    )
    lines = checked.stdout.splitlines()
    revealed = [line.split("Revealed type is ")[1] for line in lines if "Revealed type" in line]
    assert revealed[0] == '"codeact.output.AgentOutput[app.Trip]"', checked.stdout
    assert revealed[1] == '"app.Trip"', checked.stdout
    assert "str" in revealed[2] and "dict[" in revealed[2], checked.stdout  # the JSON value
    errors = [line for line in lines if ": error:" in line]
    # Only the deliberate mistake: a Trip is not an int.
    assert len(errors) == 1 and "app.py:21:" in errors[0], checked.stdout
    assert '"Trip"' in errors[0] and '"int"' in errors[0], errors
