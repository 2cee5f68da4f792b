"""Inputs that cannot be sent are refused as ordinary errors before anything is sent:
the worker and its variables survive."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from sandbox import ErrorCode, FinalResult, Sandbox, SandboxPolicy
from sandbox.protocol import UnencodableText, encode, host_frame_cap

POLICY = SandboxPolicy.preset("default")


def echo(value: Any) -> int:
    return len(value)


@pytest.fixture(scope="module")
def sb() -> Iterator[Sandbox]:
    with Sandbox(POLICY, spares=1) as sandbox:
        yield sandbox


def test_a_lone_surrogate_in_the_source_is_refused_and_the_worker_survives(sb: Sandbox) -> None:
    with sb.session() as s:
        assert s.run("x = 7").ok
        pid = s.pid
        ex = s.run("y = 1\nx = '\udcff'")
        assert ex.error_code == ErrorCode.SYNTAX_ERROR
        message = ex.output.message  # type: ignore[union-attr]
        assert "lone surrogate \\udcff at line 2, column 6" in message
        again = s.run("final_result(x)")
        assert again.output == FinalResult(value=7) and not again.worker_restarted
        assert s.pid == pid


def test_a_tool_argument_above_the_frame_cap_is_a_catchable_error(sb: Sandbox) -> None:
    cap = host_frame_cap(POLICY.limits.model_dump())
    with sb.session(tools={"echo": echo}) as s:
        assert s.run("x = 'kept'").ok
        ex = s.run(
            f"big = 'a' * {cap}\n"
            "try:\n    echo(big)\nexcept ValueError as e:\n    final_result(str(e))"
        )
        assert isinstance(ex.output, FinalResult), ex
        assert ex.output.value.startswith("echo(): the arguments are ")
        assert f"at most {cap}" in ex.output.value
        assert ex.tool_calls == []
        ok = s.run("final_result([x, echo('abc')])")
        assert ok.output == FinalResult(value=["kept", 3]) and not ok.worker_restarted


def test_a_surrogate_in_tool_arguments_is_a_catchable_error(sb: Sandbox) -> None:
    with sb.session(tools={"echo": echo}) as s:
        ex = s.run(
            "try:\n    echo('a' + chr(0xD800))\nexcept ValueError as e:\n    final_result(str(e))"
        )
        assert isinstance(ex.output, FinalResult), ex
        assert "lone surrogate \\ud800" in ex.output.value
        assert s.run("final_result(echo('ok'))").output == FinalResult(value=2)


def surrogate_result() -> str:
    return "r\udcff"


def surrogate_error() -> None:
    raise ValueError("bad \udcff")


def test_surrogates_from_tools_are_errors_not_dead_workers(sb: Sandbox) -> None:
    tools = {"surrogate_result": surrogate_result, "surrogate_error": surrogate_error}
    with sb.session(tools=tools) as s:
        assert s.run("x = 3").ok
        ex = s.run(
            "try:\n    surrogate_result()\nexcept ValueError as e:\n    final_result(str(e))"
        )
        assert ex.output == FinalResult(
            value="surrogate_result() returned text that is not valid Unicode (a lone surrogate)"
        )
        ex = s.run("try:\n    surrogate_error()\nexcept ValueError as e:\n    final_result(str(e))")
        assert ex.output == FinalResult(value="bad ?")
        assert s.run("final_result(x)").output == FinalResult(value=3)


def test_a_surrogate_the_script_returns_or_prints_is_replaced_not_fatal(sb: Sandbox) -> None:
    with sb.session() as s:
        ex = s.run("print('p' + chr(0xDCFF))\nfinal_result('r' + chr(0xD800))")
        assert ex.output == FinalResult(value="r?") and ex.stdout == "p?\n"


def test_both_ends_frame_strictly() -> None:
    with pytest.raises(UnencodableText, match="lone surrogate"):
        encode({"op": "run", "source": "\udcff"})
    assert encode({"s": "\udcff"}, replace=True).endswith(b'{"s":"?"}')
