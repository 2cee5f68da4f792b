"""ScriptOutput: the tagged union, decode's contract, JSON schema."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox import Error, FinalResult, Observation, ScriptOutput, TransferToAgent

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"type": "observation", "value": [1, 2]}, Observation(value=[1, 2])),
        ({"type": "final_result", "value": {"a": 1}}, FinalResult(value={"a": 1})),
        ({"type": "error", "message": "boom"}, Error(message="boom")),
        ({"type": "transfer_to_agent", "agent_name": "r"}, TransferToAgent(agent_name="r")),
    ],
)
def test_decode_each_variant(raw: dict[str, object], expected: ScriptOutput) -> None:
    decoded = ScriptOutput.decode(raw)
    assert decoded == expected
    assert isinstance(decoded, ScriptOutput)
    assert json.loads(decoded.model_dump_json()) == raw


@given(value=json_values)
@settings(max_examples=200, deadline=None)
def test_decode_never_raises_and_explains(value: object) -> None:
    decoded = ScriptOutput.decode(value)
    assert isinstance(decoded, (Observation, Error, FinalResult, TransferToAgent))
    if (
        isinstance(value, dict)
        and value.get("type") == "final_result"
        and set(value)
        <= {
            "type",
            "value",
        }
    ):
        assert isinstance(decoded, FinalResult)
    if isinstance(decoded, Error) and not (
        isinstance(value, dict) and value.get("type") == "error"
    ):
        assert "final_result(value)" in decoded.message


@given(value=json_values)
@settings(max_examples=100, deadline=None)
def test_round_trip_of_valid_outputs(value: object) -> None:
    for output in (FinalResult(value=value), Observation(value=value)):
        assert ScriptOutput.decode_json(output.model_dump_json()) == output


def test_bad_value_quotes_what_it_got_truncated() -> None:
    decoded = ScriptOutput.decode({"type": "final", "value": "x" * 5000})
    assert isinstance(decoded, Error)
    assert '"type": "final"' in decoded.message
    assert len(decoded.message) < 1500
    assert "final_result" in decoded.message


@pytest.mark.parametrize(
    "raw",
    [
        {"type": "error"},
        {"type": "transfer_to_agent", "agent_name": ""},
        {"type": "observation", "value": 1, "extra": True},
        [1, 2, 3],
        "final_result",
        None,
    ],
)
def test_misfits_become_errors(raw: object) -> None:
    assert isinstance(ScriptOutput.decode(raw), Error)


def test_non_json_values_do_not_raise() -> None:
    class Hostile:
        def __eq__(self, other: object) -> bool:
            raise RuntimeError("no")

        __hash__ = object.__hash__

    assert isinstance(ScriptOutput.decode({"type": "final_result", "value": Hostile()}), Error)
    assert isinstance(ScriptOutput.decode_json("{not json"), Error)


def test_json_schema_is_a_tagged_union() -> None:
    schema = ScriptOutput.json_schema()
    assert schema["discriminator"]["propertyName"] == "type"
    assert set(schema["discriminator"]["mapping"]) == {
        "observation",
        "error",
        "final_result",
        "transfer_to_agent",
    }
